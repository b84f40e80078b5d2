// REQUIRES: libtorch-cuda
// RUN: %check_torch_tidy %s torch-kernel-default-stream %t -- %cuda_flags

// GPU work of an extension on the legacy default stream: launches without a
// stream or on 0 / nullptr / NULL / cudaStreamLegacy, with the fix that
// passes PyTorch's current stream; blocking runtime copies; Async copies on
// stream 0; thrust without a policy on a stream. Near misses: streams from
// getCurrentCUDAStream or getStreamFromPool, a cudaStream_t parameter,
// cudaStreamPerThread, thrust on par.on(stream), host-side thrust.
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include <thrust/device_ptr.h>
#include <thrust/execution_policy.h>
#include <thrust/sort.h>
#include <torch/extension.h>
#include <vector>

__global__ void fill_kernel(float *x, float v, int64_t n) {
  int64_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] = v;
}

void noStream(torch::Tensor x) {
  const at::cuda::OptionalCUDAGuard guard(device_of(x));
  fill_kernel<<<1, 256>>>(x.data_ptr<float>(), 1.f, x.numel());
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: kernel 'fill_kernel' runs on the legacy default stream, not on PyTorch's current stream: under a stream guard, a side stream or CUDA graph capture it races with the work around it or breaks the capture; pass at::cuda::getCurrentCUDAStream() [torch-kernel-default-stream]
  // CHECK-FIXES: fill_kernel<<<1, 256, 0, at::cuda::getCurrentCUDAStream()>>>(x.data_ptr<float>(), 1.f, x.numel());
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  fill_kernel<<<1, 256, 64>>>(x.data_ptr<float>(), 2.f, x.numel());
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: kernel 'fill_kernel' runs on the legacy default stream
  // CHECK-FIXES: fill_kernel<<<1, 256, 64, at::cuda::getCurrentCUDAStream()>>>(x.data_ptr<float>(), 2.f, x.numel());
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}

void legacyStreams(torch::Tensor x) {
  const at::cuda::OptionalCUDAGuard guard(device_of(x));
  fill_kernel<<<1, 256, 0, 0>>>(x.data_ptr<float>(), 1.f, x.numel());
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: kernel 'fill_kernel' runs on the legacy default stream
  // CHECK-FIXES: fill_kernel<<<1, 256, 0, at::cuda::getCurrentCUDAStream()>>>(x.data_ptr<float>(), 1.f, x.numel());
  fill_kernel<<<1, 256, 0, nullptr>>>(x.data_ptr<float>(), 1.f, x.numel());
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: kernel 'fill_kernel' runs on the legacy default stream
  // CHECK-FIXES: fill_kernel<<<1, 256, 0, at::cuda::getCurrentCUDAStream()>>>(x.data_ptr<float>(), 1.f, x.numel());
  fill_kernel<<<1, 256, 0, NULL>>>(x.data_ptr<float>(), 1.f, x.numel());
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: kernel 'fill_kernel' runs on the legacy default stream
  // CHECK-FIXES: fill_kernel<<<1, 256, 0, at::cuda::getCurrentCUDAStream()>>>(x.data_ptr<float>(), 1.f, x.numel());
  fill_kernel<<<1, 256, 0, cudaStreamLegacy>>>(x.data_ptr<float>(), 1.f, x.numel());
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: kernel 'fill_kernel' runs on the legacy default stream
  // CHECK-FIXES: fill_kernel<<<1, 256, 0, at::cuda::getCurrentCUDAStream()>>>(x.data_ptr<float>(), 1.f, x.numel());
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}

float copies(torch::Tensor x, float *host) {
  const at::cuda::OptionalCUDAGuard guard(device_of(x));
  cudaMemset(x.data_ptr<float>(), 0, x.nbytes());
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'cudaMemset' runs on the legacy default stream, not on PyTorch's current stream: under a stream guard, a side stream or CUDA graph capture it races with the work around it or breaks the capture; use its Async form on at::cuda::getCurrentCUDAStream(), then synchronize that stream if the host needs the result [torch-kernel-default-stream]
  cudaMemcpyAsync(host, x.data_ptr<float>(), x.nbytes(), cudaMemcpyDeviceToHost);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'cudaMemcpyAsync' runs on the legacy default stream
  // CHECK-FIXES: cudaMemcpyAsync(host, x.data_ptr<float>(), x.nbytes(), cudaMemcpyDeviceToHost, at::cuda::getCurrentCUDAStream());
  cudaMemsetAsync(x.data_ptr<float>(), 0, x.nbytes(), 0);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'cudaMemsetAsync' runs on the legacy default stream
  // CHECK-FIXES: cudaMemsetAsync(x.data_ptr<float>(), 0, x.nbytes(), at::cuda::getCurrentCUDAStream());
  return host[0];
}

void sorts(torch::Tensor keys) {
  const at::cuda::OptionalCUDAGuard guard(device_of(keys));
  thrust::device_ptr<float> k(keys.data_ptr<float>());
  thrust::sort(thrust::device, k, k + keys.numel());
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'thrust::sort' runs on the legacy default stream, not on PyTorch's current stream: under a stream guard, a side stream or CUDA graph capture it races with the work around it or breaks the capture; pass thrust::cuda::par.on(at::cuda::getCurrentCUDAStream()) as its execution policy [torch-kernel-default-stream]
  thrust::sort(k, k + keys.numel());
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'thrust::sort' runs on the legacy default stream
}

// Near misses.

void currentStream(torch::Tensor x, cudaStream_t given) {
  const at::cuda::OptionalCUDAGuard guard(device_of(x));
  cudaStream_t stream = at::cuda::getCurrentCUDAStream();
  fill_kernel<<<1, 256, 0, stream>>>(x.data_ptr<float>(), 1.f, x.numel());
  fill_kernel<<<1, 256, 0, at::cuda::getCurrentCUDAStream()>>>(x.data_ptr<float>(), 1.f, x.numel());
  at::cuda::CUDAStream side = at::cuda::getStreamFromPool();
  fill_kernel<<<1, 256, 0, side>>>(x.data_ptr<float>(), 1.f, x.numel());
  fill_kernel<<<1, 256, 0, given>>>(x.data_ptr<float>(), 1.f, x.numel());
  // Under nvcc --default-stream per-thread (docs/checks/torch-kernel-default-stream.md).
  fill_kernel<<<1, 256, 0, cudaStreamPerThread>>>(x.data_ptr<float>(), 1.f, x.numel());
  cudaMemcpyAsync(x.data_ptr<float>(), x.data_ptr<float>(), x.nbytes(), cudaMemcpyDeviceToDevice, stream);
  thrust::device_ptr<float> k(x.data_ptr<float>());
  thrust::sort(thrust::cuda::par.on(stream), k, k + x.numel());
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}

void hostThrust(std::vector<float> &v) {
  thrust::sort(thrust::host, v.begin(), v.end());
  thrust::sort(v.begin(), v.end());
}

// Inside a macro: reported at its use, without a fix.
#define FILL(x, v) fill_kernel<<<1, 256>>>((x).data_ptr<float>(), v, (x).numel())
void inMacro(torch::Tensor x) {
  const at::cuda::OptionalCUDAGuard guard(device_of(x));
  FILL(x, 0.f);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: kernel 'fill_kernel' runs on the legacy default stream
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: no automatic fix inside a macro expansion
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}
