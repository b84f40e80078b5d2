// A device-only helper that exists when nvcc compiles for the device
// (__CUDA_ARCH__), used by a kernel template: nvcc's host pass does not
// instantiate the kernel's body, clang's does and cannot find the helper.
// The error is in device code only, so the host side is analysed.
#include <cstdint>

#ifdef __CUDA_ARCH__
__device__ float fast_exp(float x) { return __expf(x); }
#endif

template <typename T> __global__ void exp_kernel(T *x, int64_t n) {
  int64_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] = fast_exp(x[i]);
}

void exp_launcher(float *x, int64_t n) {
  exp_kernel<<<(n + 255) / 256, 256>>>(x, n);
}
