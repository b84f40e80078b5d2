// REQUIRES: libtorch-cuda
// RUN: %check_torch_tidy %s torch-unchecked-tensor-device %t -- %cuda_flags -I%S/Inputs

// What proves a tensor is on CUDA besides a test of its own: a comparison
// of its device (or device type) with a proven tensor's, an allocation
// from a proven tensor's options, at::cuda::check_device, a registration for CUDA with PyTorch's
// dispatcher (one tensor argument: the first), and a project registry's
// dispatch (every tensor when it checks that they share one device, else
// the first). Near misses: a comparison between two unproven tensors,
// options of an unproven tensor, a CPU registration.
#include "device_registry.h"
#include <ATen/cuda/CUDAContext.h>
#include <ATen/cuda/CUDAUtils.h>
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAGuard.h>
#include <torch/extension.h>
#include <torch/library.h>

__global__ void mul_kernel(float *out, const float *a, const float *b, int64_t n) {
  int64_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = a[i] * b[i];
}

#define CHECK_CUDA(x) TORCH_CHECK(x.is_cuda(), #x " must be a CUDA tensor")

static void launch(float *out, const float *a, const float *b, int64_t n) {
  mul_kernel<<<(n + 255) / 256, 256, 0, at::cuda::getCurrentCUDAStream()>>>(
      out, a, b, n);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}

// --- Device comparisons carry a proof from one tensor to another.
void same_type(at::Tensor a, at::Tensor b, at::Tensor out) {
  CHECK_CUDA(a);
  TORCH_CHECK(a.device().type() == b.device().type(), "b must be on a's device type");
  TORCH_CHECK(out.device() == a.device(), "out must be on a's device");
  launch(out.data_ptr<float>(), a.data_ptr<float>(), b.data_ptr<float>(), a.numel());
}

void same_index(at::Tensor a, at::Tensor b) {
  CHECK_CUDA(b);
  TORCH_CHECK(a.get_device() == b.get_device(), "same GPU");
  launch(a.data_ptr<float>(), a.data_ptr<float>(), b.data_ptr<float>(), a.numel());
}

void compared_unproven(at::Tensor a, at::Tensor b) {
  // CHECK-MESSAGES: :[[@LINE-1]]:6: warning: 'compared_unproven' hands the memory of 'a', 'b' to a kernel without checking that they are on a CUDA device: a CPU tensor's pointer is a host address, and the kernel fails with an illegal memory access; check each one first: 'TORCH_CHECK(a.is_cuda(), ...)' [torch-unchecked-tensor-device]
  TORCH_CHECK(a.device() == b.device(), "same device");
  launch(a.data_ptr<float>(), a.data_ptr<float>(), b.data_ptr<float>(), a.numel());
  // CHECK-MESSAGES: :[[@LINE-1]]:10: note: the memory of 'a' goes to kernel 'mul_kernel' here, unchecked
  // CHECK-MESSAGES: :[[@LINE-2]]:52: note: the memory of 'b' goes to kernel 'mul_kernel' here, unchecked
}

// LibTorch's at::cuda::check_device: false unless every tensor is on the
// current CUDA device.
void on_current_device(at::Tensor a, at::Tensor b) {
  TORCH_CHECK(at::cuda::check_device({a, b}), "inputs must be on the current GPU");
  launch(a.data_ptr<float>(), a.data_ptr<float>(), b.data_ptr<float>(), a.numel());
}

// --- An output allocated from a proven tensor's options is where it is.
void out_from_options(at::Tensor a, at::Tensor out) {
  CHECK_CUDA(a);
  out = at::empty({a.numel()}, a.options());
  launch(out.data_ptr<float>(), a.data_ptr<float>(), a.data_ptr<float>(), a.numel());
}

void out_from_device(at::Tensor a, at::Tensor out) {
  CHECK_CUDA(a);
  out = at::zeros({a.numel()}, at::TensorOptions().device(a.device()));
  launch(out.data_ptr<float>(), a.data_ptr<float>(), a.data_ptr<float>(), a.numel());
}

void out_from_unproven(at::Tensor a, at::Tensor b, at::Tensor out) {
  // CHECK-MESSAGES: :[[@LINE-1]]:6: warning: 'out_from_unproven' hands the memory of 'out', 'b' to a kernel without checking that they are on a CUDA device: a CPU tensor's pointer is a host address, and the kernel fails with an illegal memory access; check each one first: 'TORCH_CHECK(out.is_cuda(), ...)' [torch-unchecked-tensor-device]
  CHECK_CUDA(a);
  out = at::empty({a.numel()}, b.options());
  launch(out.data_ptr<float>(), a.data_ptr<float>(), b.data_ptr<float>(), a.numel());
  // CHECK-MESSAGES: :[[@LINE-1]]:10: note: the memory of 'out' goes to kernel 'mul_kernel' here, unchecked
  // CHECK-MESSAGES: :[[@LINE-2]]:54: note: the memory of 'b' goes to kernel 'mul_kernel' here, unchecked
}

// --- PyTorch's dispatcher: a CUDA kernel is reached when one tensor
// argument is on CUDA; the others still need a check.
at::Tensor scale_cuda(const at::Tensor &x, double s) {
  const at::cuda::OptionalCUDAGuard guard(device_of(x));
  auto out = at::empty_like(x);
  launch(out.data_ptr<float>(), x.data_ptr<float>(), x.data_ptr<float>(), x.numel());
  return out;
}

at::Tensor mul_cuda(const at::Tensor &a, const at::Tensor &b) {
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'mul_cuda' hands the memory of 'b' to a kernel without checking that it is on a CUDA device: a CPU tensor's pointer is a host address, and the kernel fails with an illegal memory access; check each one first: 'TORCH_CHECK(b.is_cuda(), ...)' [torch-unchecked-tensor-device]
  const at::cuda::OptionalCUDAGuard guard(device_of(a));
  auto out = at::empty_like(a);
  launch(out.data_ptr<float>(), a.data_ptr<float>(), b.data_ptr<float>(), a.numel());
  // CHECK-MESSAGES: :[[@LINE-1]]:54: note: the memory of 'b' goes to kernel 'mul_kernel' here, unchecked
  return out;
}

at::Tensor mul_checked_cuda(const at::Tensor &a, const at::Tensor &b) {
  CHECK_CUDA(b);
  const at::cuda::OptionalCUDAGuard guard(device_of(a));
  auto out = at::empty_like(a);
  launch(out.data_ptr<float>(), a.data_ptr<float>(), b.data_ptr<float>(), a.numel());
  return out;
}

at::Tensor cpu_registered(const at::Tensor &x) {
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'cpu_registered' hands the memory of 'x' to a kernel without checking that it is on a CUDA device: a CPU tensor's pointer is a host address, and the kernel fails with an illegal memory access; check each one first: 'TORCH_CHECK(x.is_cuda(), ...)' [torch-unchecked-tensor-device]
  auto out = at::empty_like(x);
  launch(out.data_ptr<float>(), x.data_ptr<float>(), x.data_ptr<float>(), x.numel());
  // CHECK-MESSAGES: :[[@LINE-1]]:33: note: the memory of 'x' goes to kernel 'mul_kernel' here, unchecked
  return out;
}

TORCH_LIBRARY(proofs, m) {
  m.def("scale(Tensor x, float s) -> Tensor");
  m.def("mul(Tensor a, Tensor b) -> Tensor");
  m.def("mul_checked(Tensor a, Tensor b) -> Tensor");
  m.def("odd(Tensor x) -> Tensor");
}

TORCH_LIBRARY_IMPL(proofs, CUDA, m) {
  m.impl("scale", &scale_cuda);
  m.impl("mul", TORCH_FN(mul_cuda));
  m.impl("mul_checked", mul_checked_cuda);
}

TORCH_LIBRARY_IMPL(proofs, CPU, m) { m.impl("odd", &cpu_registered); }

// --- A project's registry: its dispatch is the call.
at::Tensor roi_impl(at::Tensor a, at::Tensor b);
at::Tensor loose_impl(at::Tensor a, at::Tensor b);

at::Tensor roi_cuda(at::Tensor a, at::Tensor b) {
  const at::cuda::OptionalCUDAGuard guard(device_of(a));
  auto out = at::empty_like(a);
  launch(out.data_ptr<float>(), a.data_ptr<float>(), b.data_ptr<float>(), a.numel());
  return out;
}

at::Tensor loose_cuda(at::Tensor a, at::Tensor b) {
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'loose_cuda' hands the memory of 'b' to a kernel without checking that it is on a CUDA device: a CPU tensor's pointer is a host address, and the kernel fails with an illegal memory access; check each one first: 'TORCH_CHECK(b.is_cuda(), ...)' [torch-unchecked-tensor-device]
  const at::cuda::OptionalCUDAGuard guard(device_of(a));
  auto out = at::empty_like(a);
  launch(out.data_ptr<float>(), a.data_ptr<float>(), b.data_ptr<float>(), a.numel());
  // CHECK-MESSAGES: :[[@LINE-1]]:54: note: the memory of 'b' goes to kernel 'mul_kernel' here, unchecked
  return out;
}

// Five scalars before the tensors: the registry's check peels them one call
// at a time before it compares devices.
at::Tensor wide_impl(int64_t n, int64_t m, double s, double t, int64_t k,
                     at::Tensor a, at::Tensor b);
at::Tensor wide_cuda(int64_t n, int64_t m, double s, double t, int64_t k,
                     at::Tensor a, at::Tensor b) {
  const at::cuda::OptionalCUDAGuard guard(device_of(a));
  launch(a.data_ptr<float>(), a.data_ptr<float>(), b.data_ptr<float>(), n);
  return a;
}

REGISTER_DEVICE_IMPL(roi_impl, CUDA, roi_cuda)
REGISTER_DEVICE_IMPL(wide_impl, CUDA, wide_cuda)
REGISTER_DEVICE_IMPL(loose_impl, CUDA, loose_cuda)

at::Tensor roi_impl(at::Tensor a, at::Tensor b) {
  return DISPATCH_DEVICE_IMPL(roi_impl, a, b);
}

at::Tensor wide_impl(int64_t n, int64_t m, double s, double t, int64_t k,
                     at::Tensor a, at::Tensor b) {
  return DISPATCH_DEVICE_IMPL(wide_impl, n, m, s, t, k, a, b);
}

at::Tensor loose_impl(at::Tensor a, at::Tensor b) {
  return LOOSE_DISPATCH_DEVICE_IMPL(loose_impl, a, b);
}
