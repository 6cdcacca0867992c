__global__ void k(float *a) {
  uint8_t b = 4; int32_t i = 5; uint64_t q = 6; int64_t w = 8; uint16_t h = 1; intptr_t p = 0; uintptr_t up = 0;
  a[0] = b + i + q + w + h + p + up;
}
