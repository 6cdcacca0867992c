// spin.cu: y = x, except that blocks of 64 threads wait for a flag nobody sets: a hung kernel, for
// `--timeout` (warpscope sweep --kernel-file examples/kernels/spin.toml --timeout 2).
__global__ void spin(float *y, const float *x, volatile int *flag, int n) {
    if (blockDim.x == 64)
        while (*flag == 0) {
        }
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i];
}
__global__ void spin_ref(float *y, const float *x, volatile int *flag, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i];
}
