// Written for this test: a naive reference for Kernel Tuner's convolution_kernel (kt_convolution.cu):
// one output a thread, straight from global memory, the same filter in __constant__ memory.
#ifndef image_width
#define image_width 4096
#endif
#define filter_height 17
#define filter_width 17
#define input_width (image_width + (filter_width / 2) * 2)

__constant__ float d_filter[filter_height * filter_width];

extern "C" __global__ void convolution_ref(float *output, float *input, float *filter)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < image_width && y < image_height) {
        float sum = 0.0f;
        for (int i = 0; i < filter_height; i++)
            for (int j = 0; j < filter_width; j++)
                sum += input[(y + i) * input_width + x + j] * d_filter[i * filter_width + j];
        output[y * image_width + x] = sum;
    }
}
