// spmv_csr: y = A x for a sparse matrix A in CSR form (row offsets, column indices, values), with
// THREADS_PER_ROW threads on each row: 1 (a thread walks its row) or 32 (a warp shares it, then sums by
// shuffles). The column indices make x's reads a gather: where they fall is in the data, not the code.
#ifndef THREADS_PER_ROW
#define THREADS_PER_ROW 1
#endif

__global__ void spmv_csr(float *y, const int *rows, const int *cols, const float *vals, const float *x, int nrows)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int row = t / THREADS_PER_ROW, lane = t % THREADS_PER_ROW;
    float sum = 0.0f;
    if (row < nrows) {
        for (int j = rows[row] + lane; j < rows[row + 1]; j += THREADS_PER_ROW) {
            sum += vals[j] * x[cols[j]];
        }
    }
#if THREADS_PER_ROW > 1
    for (int off = THREADS_PER_ROW / 2; off > 0; off /= 2) {
        sum += __shfl_down_sync(0xffffffffu, sum, off, THREADS_PER_ROW);
    }
#endif
    if (row < nrows && lane == 0) {
        y[row] = sum;
    }
}

// The reference: a thread per row, rows by a grid-stride loop (any launch shape).
__global__ void spmv_csr_ref(float *y, const int *rows, const int *cols, const float *vals, const float *x, int nrows)
{
    for (int row = blockIdx.x * blockDim.x + threadIdx.x; row < nrows; row += gridDim.x * blockDim.x) {
        float sum = 0.0f;
        for (int j = rows[row]; j < rows[row + 1]; ++j) {
            sum += vals[j] * x[cols[j]];
        }
        y[row] = sum;
    }
}
