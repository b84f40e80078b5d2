// REQUIRES: libtorch-cuda
// RUN: %check_torch_tidy %s torch-missing-device-guard %t -- %cuda_flags

// Host functions that take tensors and start GPU work with no device made
// current: directly, in an AT_DISPATCH lambda, through a launcher of raw
// pointers, with cuBLAS or thrust, and an operator registered with
// TORCH_LIBRARY_IMPL (the dispatcher adds no guard). The fix makes the
// first tensor's device current. Near misses: every kind of guard, a
// cudaSetDevice, a guard in every caller, functions without tensors.
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAGuard.h>
#include <thrust/device_ptr.h>
#include <thrust/execution_policy.h>
#include <thrust/sort.h>
#include <torch/extension.h>
#include <torch/library.h>

__global__ void add_kernel(float *out, const float *a, const float *b, int64_t n) {
  int64_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = a[i] + b[i];
}

// The extension tutorial's shape: dispatch, launch, no guard.
torch::Tensor add_forward(torch::Tensor a, torch::Tensor b) {
  // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: 'add_forward' starts GPU work on the current device, not on its tensors' device: with inputs on another GPU (cuda:1 while cuda:0 is current) the work reads another device's memory; make the tensors' device current first: 'const at::cuda::OptionalCUDAGuard device_guard(device_of(a));' [torch-missing-device-guard]
  // CHECK-FIXES: torch::Tensor add_forward(torch::Tensor a, torch::Tensor b) {
  // CHECK-FIXES-NEXT: {{^  const at::cuda::OptionalCUDAGuard device_guard\(device_of\(a\)\);$}}
  auto out = torch::empty_like(a);
  const int64_t n = a.numel();
  AT_DISPATCH_FLOATING_TYPES(a.scalar_type(), "add_forward", [&] {
    add_kernel<<<(n + 255) / 256, 256, 0, at::cuda::getCurrentCUDAStream()>>>(
        out.data_ptr<float>(), a.data_ptr<float>(), b.data_ptr<float>(), n);
    // CHECK-MESSAGES: :[[@LINE-2]]:5: note: kernel 'add_kernel' is launched here, with no guard before it
  });
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  return out;
}

// Through a launcher that takes raw pointers: reported at the function
// that has the tensors.
void launch_add(float *out, const float *a, const float *b, int64_t n) {
  add_kernel<<<(n + 255) / 256, 256, 0, at::cuda::getCurrentCUDAStream()>>>(out, a, b, n);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}
void add_into(const torch::Tensor &out, const torch::Tensor &a, const torch::Tensor &b) {
  // CHECK-MESSAGES: :[[@LINE-1]]:6: warning: 'add_into' starts GPU work on the current device
  // CHECK-FIXES: {{^  const at::cuda::OptionalCUDAGuard device_guard\(device_of\(out\)\);$}}
  launch_add(out.data_ptr<float>(), a.data_ptr<float>(), b.data_ptr<float>(), a.numel());
  // CHECK-MESSAGES: :[[@LINE-1]]:3: note: 'launch_add' starts kernel 'add_kernel' here, with no guard before it
}

// Library work on the tensors' memory.
void sort_values(torch::Tensor values) {
  // CHECK-MESSAGES: :[[@LINE-1]]:6: warning: 'sort_values' starts GPU work on the current device
  // CHECK-FIXES: {{^  const at::cuda::OptionalCUDAGuard device_guard\(device_of\(values\)\);$}}
  thrust::device_ptr<float> v(values.data_ptr<float>());
  thrust::sort(thrust::cuda::par.on(at::cuda::getCurrentCUDAStream()), v, v + values.numel());
  // CHECK-MESSAGES: :[[@LINE-1]]:3: note: 'sort' runs here, with no guard before it
}

// A custom operator: TORCH_LIBRARY_IMPL registers the kernel as it is; the
// dispatcher makes no device current for it.
torch::Tensor scaled_add(const torch::Tensor &a, const torch::Tensor &b) {
  // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: 'scaled_add' starts GPU work on the current device
  auto out = torch::empty_like(a);
  add_kernel<<<1, 256, 0, at::cuda::getCurrentCUDAStream()>>>(out.data_ptr<float>(), a.data_ptr<float>(), b.data_ptr<float>(), a.numel());
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  return out;
}
TORCH_LIBRARY(guard_test, m) { m.def("scaled_add(Tensor a, Tensor b) -> Tensor"); }
TORCH_LIBRARY_IMPL(guard_test, CUDA, m) { m.impl("scaled_add", &scaled_add); }

// Near misses.

void optionalGuard(torch::Tensor out, torch::Tensor a) {
  const at::cuda::OptionalCUDAGuard device_guard(device_of(a));
  launch_add(out.data_ptr<float>(), a.data_ptr<float>(), a.data_ptr<float>(), a.numel());
}

void cudaGuard(torch::Tensor out, torch::Tensor a) {
  at::cuda::CUDAGuard device_guard(a.device());
  launch_add(out.data_ptr<float>(), a.data_ptr<float>(), a.data_ptr<float>(), a.numel());
}

void deviceGuard(torch::Tensor out, torch::Tensor a) {
  at::DeviceGuard device_guard(a.device());
  launch_add(out.data_ptr<float>(), a.data_ptr<float>(), a.data_ptr<float>(), a.numel());
}

void setDevice(torch::Tensor out, torch::Tensor a) {
  cudaSetDevice(a.get_device());
  launch_add(out.data_ptr<float>(), a.data_ptr<float>(), a.data_ptr<float>(), a.numel());
}

void streamGuard(torch::Tensor out, torch::Tensor a) {
  at::cuda::CUDAStreamGuard stream_guard(at::cuda::getStreamFromPool(false, a.get_device()));
  launch_add(out.data_ptr<float>(), a.data_ptr<float>(), a.data_ptr<float>(), a.numel());
}

// Guarded inside the dispatch lambda, before the launch.
void guardInLambda(torch::Tensor out, torch::Tensor a) {
  AT_DISPATCH_FLOATING_TYPES(a.scalar_type(), "guardInLambda", [&] {
    const at::cuda::OptionalCUDAGuard device_guard(device_of(a));
    launch_add(out.data_ptr<float>(), a.data_ptr<float>(), a.data_ptr<float>(), a.numel());
  });
}

// Every caller guards.
static void unguarded_impl(torch::Tensor out, torch::Tensor a) {
  launch_add(out.data_ptr<float>(), a.data_ptr<float>(), a.data_ptr<float>(), a.numel());
}
void guarded_entry(torch::Tensor out, torch::Tensor a) {
  const at::cuda::OptionalCUDAGuard device_guard(device_of(a));
  unguarded_impl(out, a);
}

// No tensors: the device is the caller's business; and CPU work.
void raw_only(float *out, const float *a, int64_t n) { launch_add(out, a, a, n); }
torch::Tensor cpu_only(torch::Tensor a) { return a * 2; }
