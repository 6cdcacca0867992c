// What warpscope's test programs share: CHECK(call) stops the program, with the file, line and CUDA's
// message, when a runtime call fails.
#pragma once
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(call)                                                                                \
    {                                                                                              \
        cudaError_t e = call;                                                                      \
        if (e != cudaSuccess) {                                                                    \
            fprintf(stderr, "Error: %s:%d, %s\n", __FILE__, __LINE__, cudaGetErrorString(e));      \
            exit(1);                                                                               \
        }                                                                                          \
    }
