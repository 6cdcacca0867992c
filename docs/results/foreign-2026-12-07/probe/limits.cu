__global__ void k(float *a) { a[0] = UINT32_MAX; a[1] = INT_MAX; a[2] = INT32_MAX; a[3] = FLT_MAX; }
