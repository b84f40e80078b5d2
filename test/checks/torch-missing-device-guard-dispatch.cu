// REQUIRES: libtorch-cuda
// RUN: %check_torch_tidy %s torch-missing-device-guard,torch-kernel-default-stream %t -- %cuda_flags -I%S/Inputs

// Guards and dispatch. A project registry is a call edge: a guard taken
// before its dispatch covers the function registered for CUDA, and no
// guard there leaves it reported. PyTorch's dispatcher takes no guard for
// a custom operator's CUDA kernel. Near misses: an ATen kernel (its guard
// is generated in RegisterCUDA.cpp) and a torchvision-style operator,
// which guards and launches on the current stream: nothing to report for
// either check.
#include "device_registry.h"
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAGuard.h>
#include <torch/extension.h>
#include <torch/library.h>

__global__ void fill_kernel(float *out, int64_t n) {
  int64_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = 1.f;
}

static void launch(float *out, int64_t n) {
  fill_kernel<<<(n + 255) / 256, 256, 0, at::cuda::getCurrentCUDAStream()>>>(out, n);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}

// --- A project's registry.
at::Tensor guarded_impl(at::Tensor a, at::Tensor b);
at::Tensor unguarded_impl(at::Tensor a, at::Tensor b);

at::Tensor guarded_cuda(at::Tensor a, at::Tensor b) {
  launch(a.data_ptr<float>(), a.numel());
  return a;
}

at::Tensor unguarded_cuda(at::Tensor a, at::Tensor b) {
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'unguarded_cuda' starts GPU work on the current device, not on its tensors' device: with inputs on another GPU (cuda:1 while cuda:0 is current) the work reads another device's memory; make the tensors' device current first: 'const at::cuda::OptionalCUDAGuard device_guard(device_of(a));' [torch-missing-device-guard]
  launch(a.data_ptr<float>(), a.numel());
  // CHECK-MESSAGES: :[[@LINE-1]]:3: note: 'launch' starts kernel 'fill_kernel' here, with no guard before it
  return a;
}
// CHECK-FIXES: at::Tensor unguarded_cuda(at::Tensor a, at::Tensor b) {
// CHECK-FIXES-NEXT: const at::cuda::OptionalCUDAGuard device_guard(device_of(a));

REGISTER_DEVICE_IMPL(guarded_impl, CUDA, guarded_cuda)
REGISTER_DEVICE_IMPL(unguarded_impl, CUDA, unguarded_cuda)

at::Tensor guarded_impl(at::Tensor a, at::Tensor b) {
  const at::cuda::OptionalCUDAGuard guard(device_of(a));
  return DISPATCH_DEVICE_IMPL(guarded_impl, a, b);
}

at::Tensor unguarded_impl(at::Tensor a, at::Tensor b) {
  return DISPATCH_DEVICE_IMPL(unguarded_impl, a, b);
}

// --- PyTorch's dispatcher takes no guard for custom operators.
at::Tensor fill_cuda(const at::Tensor &x) {
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'fill_cuda' starts GPU work on the current device, not on its tensors' device: with inputs on another GPU (cuda:1 while cuda:0 is current) the work reads another device's memory; make the tensors' device current first: 'const at::cuda::OptionalCUDAGuard device_guard(device_of(x));' [torch-missing-device-guard]
  auto out = at::empty_like(x);
  launch(out.data_ptr<float>(), out.numel());
  // CHECK-MESSAGES: :[[@LINE-1]]:3: note: 'launch' starts kernel 'fill_kernel' here, with no guard before it
  return out;
}
// CHECK-FIXES: at::Tensor fill_cuda(const at::Tensor &x) {
// CHECK-FIXES-NEXT: const at::cuda::OptionalCUDAGuard device_guard(device_of(x));

TORCH_LIBRARY(guards, m) { m.def("fill(Tensor x) -> Tensor"); }
TORCH_LIBRARY_IMPL(guards, CUDA, m) { m.impl("fill", TORCH_FN(fill_cuda)); }

// --- An ATen kernel: the dispatcher's generated code holds its guard.
namespace at::native {
Tensor fill_ones_cuda(const Tensor &self) {
  auto out = at::empty_like(self);
  fill_kernel<<<(out.numel() + 255) / 256, 256, 0,
                at::cuda::getCurrentCUDAStream()>>>(out.data_ptr<float>(),
                                                     out.numel());
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  return out;
}
} // namespace at::native

// --- A torchvision-style operator: checks, a guard, the current stream.
namespace vision::ops {
namespace {
at::Tensor ones_kernel(const at::Tensor &input, const at::Tensor &rois) {
  TORCH_CHECK(input.is_cuda(), "input must be a CUDA tensor");
  TORCH_CHECK(rois.is_cuda(), "rois must be a CUDA tensor");
  at::TensorArg input_t{input, "input", 1}, rois_t{rois, "rois", 2};
  at::CheckedFrom c = "ones_kernel";
  at::checkAllSameGPU(c, {input_t, rois_t});
  at::cuda::CUDAGuard device_guard(input.device());
  cudaStream_t stream = at::cuda::getCurrentCUDAStream();
  at::Tensor output = at::zeros_like(input);
  AT_DISPATCH_FLOATING_TYPES(input.scalar_type(), "ones_kernel", [&] {
    fill_kernel<<<(output.numel() + 255) / 256, 256, 0, stream>>>(
        output.data_ptr<float>(), output.numel());
  });
  AT_CUDA_CHECK(cudaGetLastError());
  return output;
}
} // namespace

TORCH_LIBRARY(vision_like, m) { m.def("ones(Tensor input, Tensor rois) -> Tensor"); }
TORCH_LIBRARY_IMPL(vision_like, CUDA, m) {
  m.impl(TORCH_SELECTIVE_NAME("vision_like::ones"), TORCH_FN(ones_kernel));
}
} // namespace vision::ops
