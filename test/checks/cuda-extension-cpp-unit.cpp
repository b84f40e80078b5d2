// REQUIRES: libtorch-cuda
// The extension checks in a .cpp unit of an extension (a binding file, or
// host code compiled by the C++ compiler): no <<<...>>> there, but
// cudaLaunchKernel, runtime copies and launchers of raw pointers.
// RUN: %check_torch_tidy %s 'torch-missing-device-guard,torch-kernel-default-stream,torch-unchecked-kernel-launch,torch-unchecked-tensor-device' %t -- %torch_flags -isystem %cuda_root/include
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAGuard.h>


// A kernel's host stub, compiled in a .cu of the extension.
void scale_kernel(float *x, int64_t n);

void launch_scale(float *x, int64_t n) {
  void *args[] = {&x, &n};
  cudaLaunchKernel((const void *)scale_kernel, dim3(1), dim3(256), args, 0, 0);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: kernel 'scale_kernel' runs on the legacy default stream, not on PyTorch's current stream
  // CHECK-MESSAGES: :[[@LINE-2]]:3: warning: the launch of 'scale_kernel' is never checked
  // CHECK-FIXES: cudaLaunchKernel((const void *)scale_kernel, dim3(1), dim3(256), args, 0, at::cuda::getCurrentCUDAStream());
  // CHECK-FIXES-NEXT: {{^  C10_CUDA_KERNEL_LAUNCH_CHECK\(\);$}}
}

torch::Tensor scale(torch::Tensor x) {
  // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: 'scale' hands the memory of 'x' to a kernel without checking that it is on a CUDA device
  // CHECK-MESSAGES: :[[@LINE+4]]:16: note: the memory of 'x' goes to kernel 'scale_kernel' here, unchecked
  // CHECK-MESSAGES: :[[@LINE-3]]:15: warning: 'scale' starts GPU work on the current device, not on its tensors' device
  // CHECK-MESSAGES: :[[@LINE+2]]:3: note: 'launch_scale' starts kernel 'scale_kernel' here, with no guard before it
  // CHECK-FIXES: {{^  const at::cuda::OptionalCUDAGuard device_guard\(device_of\(x\)\);$}}
  launch_scale(x.data_ptr<float>(), x.numel());
  return x;
}

float first_value(torch::Tensor x) {
  // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: 'first_value' starts GPU work on the current device
  // CHECK-MESSAGES: :[[@LINE+2]]:3: note: 'cudaMemcpy' runs here, with no guard before it
  float v = 0;
  cudaMemcpy(&v, x.data_ptr<float>(), sizeof(float), cudaMemcpyDeviceToHost);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'cudaMemcpy' runs on the legacy default stream
  return v;
}

// Near misses: the binding checks, guards, and launches on the current
// stream with their errors read.
torch::Tensor scale_checked(torch::Tensor x) {
  TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
  const at::cuda::OptionalCUDAGuard device_guard(device_of(x));
  float *p = x.data_ptr<float>();
  int64_t n = x.numel();
  void *args[] = {&p, &n};
  C10_CUDA_CHECK(cudaLaunchKernel((const void *)scale_kernel, dim3(1), dim3(256), args, 0, at::cuda::getCurrentCUDAStream()));
  return x;
}
