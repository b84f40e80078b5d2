// The kernels of the extension checks' scenarios and their launchers (see
// cuda_kernels.h). Compiled by nvcc, only when the harness has CUDA and a
// CUDA compiler (CMakeLists.txt, HARNESS_HAS_CUDA_KERNELS). Written like an
// extension's .cu: c10's stream and error-check headers, not the C++ API.
// Two launches are the flagged patterns on purpose: copy_on_legacy_stream
// (torch-kernel-default-stream) and fill_unchecked
// (torch-unchecked-kernel-launch).
#include "cuda_kernels.h"

#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAStream.h>
#include <cuda_runtime.h>

namespace harness {
namespace kernels {
namespace {

__global__ void spin_then_fill_kernel(float *p, int64_t n, float value,
                                      long long cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
  for (int64_t i = 0; i < n; ++i)
    p[i] = value;
}

__global__ void copy_kernel(const float *in, float *out, int64_t n) {
  const int64_t i = int64_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i];
}

__global__ void fill_kernel(float *p, int64_t n, float value) {
  const int64_t i = int64_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (i < n)
    p[i] = value;
}

unsigned int blocks_for(int64_t n, int threads) {
  return static_cast<unsigned int>((n + threads - 1) / threads);
}

} // namespace

void spin_then_fill(float *p, int64_t n, float value, double ms) {
  int device = 0;
  int khz = 0; // peak clock: the spin lasts at least `ms` at any clock
  C10_CUDA_CHECK(cudaGetDevice(&device));
  C10_CUDA_CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, device));
  const auto cycles = static_cast<long long>(ms * khz);
  spin_then_fill_kernel<<<1, 1, 0, c10::cuda::getCurrentCUDAStream()>>>(
      p, n, value, cycles);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}

void copy(const float *in, float *out, int64_t n) {
  copy_kernel<<<blocks_for(n, 256), 256, 0,
                c10::cuda::getCurrentCUDAStream()>>>(in, out, n);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}

void copy_on_legacy_stream(const float *in, float *out, int64_t n) {
  copy_kernel<<<blocks_for(n, 256), 256>>>(in, out, n); // the flagged launch
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}

void fill_unchecked(float *p, int64_t n, float value, int threads) {
  fill_kernel<<<blocks_for(n, threads), threads, 0,
                c10::cuda::getCurrentCUDAStream()>>>(p, n, value);
  // the flagged pattern: nothing reads the launch's error
}

void fill_checked(float *p, int64_t n, float value, int threads) {
  fill_kernel<<<blocks_for(n, threads), threads, 0,
                c10::cuda::getCurrentCUDAStream()>>>(p, n, value);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}

int pageable_memory_access() {
  int device = 0;
  int value = 0;
  C10_CUDA_CHECK(cudaGetDevice(&device));
  C10_CUDA_CHECK(
      cudaDeviceGetAttribute(&value, cudaDevAttrPageableMemoryAccess, device));
  return value;
}

int can_access_peer(int device, int peer) {
  int value = 0;
  C10_CUDA_CHECK(cudaDeviceCanAccessPeer(&value, device, peer));
  return value;
}

} // namespace kernels
} // namespace harness
