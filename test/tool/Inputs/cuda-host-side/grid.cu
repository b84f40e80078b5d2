// Host code calling min/max as nvcc's headers allow (clang's declare them
// for device code only): analysed, and its launch is reported.
#include <cstdint>

#define THREADS_PER_BLOCK 256

__global__ void grid_kernel(float *x, int64_t n) {
  int64_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] = min(x[i], 1.0f);
}

void grid_launcher(float *x, int64_t n, unsigned cap) {
  int blocks = min(THREADS_PER_BLOCK, (int)((n + 255) / 256));
  unsigned limit = max(cap, 1u);
  double scale = max(0.5, (double)limit);
  grid_kernel<<<max(blocks, 1), THREADS_PER_BLOCK>>>(x, (int64_t)(n * scale));
}
