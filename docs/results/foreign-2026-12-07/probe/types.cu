__global__ void k(float *a) {
  uint u = 1; ushort s = 2; ulong l = 3; u_char c = 9; u_int ui = 1;
  a[0] = u + s + l + c + ui;
}
