// Kernels and their launchers: raw pointers only. The tensor functions
// that must guard and check are in ops.cpp.
#include <cstdint>
#include <cuda_runtime.h>

#define THREADS 256

__global__ void add_kernel(int64_t n, const float *a, const float *b, float *out) {
  int64_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = a[i] + b[i];
}

__global__ void mul_kernel(int64_t n, const float *a, const float *b, float *out) {
  int64_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = a[i] * b[i];
}

void add_launcher(int64_t n, const float *a, const float *b, float *out) {
  int blocks = min(65535, (int)((n + THREADS - 1) / THREADS));
  add_kernel<<<blocks, THREADS>>>(n, a, b, out);
}

void mul_launcher(int64_t n, const float *a, const float *b, float *out) {
  int blocks = max(1, (int)((n + THREADS - 1) / THREADS));
  mul_kernel<<<blocks, THREADS>>>(n, a, b, out);
}

void selfguard_launcher(int device, int64_t n, float *x) {
  cudaSetDevice(device);
  add_kernel<<<1, THREADS>>>(n, x, x, x);
}
