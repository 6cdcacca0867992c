// The course's sumMatrix program (source 001, "CUDA study notes 6: Exposing Parallelism"), rebuilt from
// the document: a 16384 x 16384 float matrix sum with the block shape taken from the command line,
//   nvcc -O3 -o sumMatrix sumMatrix.cu && ./sumMatrix 32 16
// prints `sumMatrixOnGPU2D <<<(512,1024), (32,16)>>> elapsed 0.001094 sec` and checks the result on
// the host. It is the program the document ran under `nvprof --metrics ...`; warpscope nvprof runs it
// unchanged. One deliberate difference: the inputs come from a fixed-seed generator instead of rand(),
// which would take ten seconds for 2 x 268M values.
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <sys/time.h>

#define CHECK(call)                                                            \
    {                                                                          \
        const cudaError_t error = call;                                        \
        if (error != cudaSuccess) {                                            \
            fprintf(stderr, "Error: %s:%d, ", __FILE__, __LINE__);             \
            fprintf(stderr, "code:%d, reason: %s\n", error,                    \
                    cudaGetErrorString(error));                                \
            exit(1);                                                           \
        }                                                                      \
    }

double seconds() {
    struct timeval tp;
    gettimeofday(&tp, NULL);
    return ((double)tp.tv_sec + (double)tp.tv_usec * 1.e-6);
}

void initialData(float *ip, const size_t size, unsigned int seed) {
    unsigned int s = seed;
    for (size_t i = 0; i < size; i++) {
        s = s * 1664525u + 1013904223u;
        ip[i] = (float)((s >> 16) & 0xFF) / 10.0f;
    }
}

void sumMatrixOnHost(float *A, float *B, float *C, const int nx, const int ny) {
    float *ia = A, *ib = B, *ic = C;
    for (int iy = 0; iy < ny; iy++) {
        for (int ix = 0; ix < nx; ix++) ic[ix] = ia[ix] + ib[ix];
        ia += nx;
        ib += nx;
        ic += nx;
    }
}

void checkResult(float *hostRef, float *gpuRef, const size_t N) {
    double epsilon = 1.0E-8;
    for (size_t i = 0; i < N; i++) {
        if (fabs(hostRef[i] - gpuRef[i]) > epsilon) {
            printf("host %f gpu %f\n", hostRef[i], gpuRef[i]);
            printf("Arrays do not match.\n\n");
            exit(2);
        }
    }
}

__global__ void sumMatrixOnGPU2D(float *A, float *B, float *C, int NX, int NY) {
    unsigned int ix = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int iy = blockIdx.y * blockDim.y + threadIdx.y;
    unsigned int idx = iy * NX + ix;
    if (ix < NX && iy < NY) {
        C[idx] = A[idx] + B[idx];
    }
}

int main(int argc, char **argv) {
    int dev = 0;
    CHECK(cudaSetDevice(dev));

    int nx = 1 << 14;
    int ny = 1 << 14;
    size_t nxy = (size_t)nx * ny;
    size_t nBytes = nxy * sizeof(float);

    float *h_A = (float *)malloc(nBytes);
    float *h_B = (float *)malloc(nBytes);
    float *hostRef = (float *)malloc(nBytes);
    float *gpuRef = (float *)malloc(nBytes);
    initialData(h_A, nxy, 1);
    initialData(h_B, nxy, 2);
    memset(hostRef, 0, nBytes);
    memset(gpuRef, 0, nBytes);
    sumMatrixOnHost(h_A, h_B, hostRef, nx, ny);

    float *d_MatA, *d_MatB, *d_MatC;
    CHECK(cudaMalloc((void **)&d_MatA, nBytes));
    CHECK(cudaMalloc((void **)&d_MatB, nBytes));
    CHECK(cudaMalloc((void **)&d_MatC, nBytes));
    CHECK(cudaMemcpy(d_MatA, h_A, nBytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_MatB, h_B, nBytes, cudaMemcpyHostToDevice));

    int dimx = 32;
    int dimy = 32;
    if (argc > 2) {
        dimx = atoi(argv[1]);
        dimy = atoi(argv[2]);
    }
    dim3 block(dimx, dimy);
    dim3 grid((nx + block.x - 1) / block.x, (ny + block.y - 1) / block.y);

    CHECK(cudaDeviceSynchronize());
    double iStart = seconds();
    sumMatrixOnGPU2D<<<grid, block>>>(d_MatA, d_MatB, d_MatC, nx, ny);
    CHECK(cudaDeviceSynchronize());
    double iElaps = seconds() - iStart;
    printf("sumMatrixOnGPU2D <<<(%d,%d), (%d,%d)>>> elapsed %f sec\n", grid.x, grid.y, block.x, block.y, iElaps);
    CHECK(cudaGetLastError());

    CHECK(cudaMemcpy(gpuRef, d_MatC, nBytes, cudaMemcpyDeviceToHost));
    checkResult(hostRef, gpuRef, nxy);

    CHECK(cudaFree(d_MatA));
    CHECK(cudaFree(d_MatB));
    CHECK(cudaFree(d_MatC));
    free(h_A);
    free(h_B);
    free(hostRef);
    free(gpuRef);
    CHECK(cudaDeviceReset());
    return EXIT_SUCCESS;
}
