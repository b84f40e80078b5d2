// REQUIRES: libtorch-cuda
// RUN: %check_torch_tidy %s torch-unchecked-tensor-device %t -- %cuda_flags

// Tensor arguments whose memory reaches a kernel with nothing proving they
// are on a CUDA device: directly, through a local pointer or accessor,
// through a contiguous() copy, through a launcher of raw pointers; and one
// checked argument does not vouch for another. Near misses: TORCH_CHECK
// with is_cuda(), device().is_cuda(), type().is_cuda() (AT_ASSERTM),
// CHECK_INPUT-style macros, a helper that checks, a branch on is_cuda(),
// a device comparison, `t = t.cuda()`, a check in every caller.
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAGuard.h>
#include <torch/extension.h>

__global__ void mul_kernel(float *out, const float *a, const float *b, int64_t n) {
  int64_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = a[i] * b[i];
}

__global__ void acc_kernel(at::PackedTensorAccessor32<float, 2> x) {}

#define CHECK_CUDA(x) TORCH_CHECK(x.is_cuda(), #x " must be a CUDA tensor")
#define CHECK_CONTIGUOUS(x) TORCH_CHECK(x.is_contiguous(), #x " must be contiguous")
#define CHECK_INPUT(x) CHECK_CUDA(x); CHECK_CONTIGUOUS(x)

torch::Tensor unchecked(torch::Tensor a, torch::Tensor b) {
  // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: 'unchecked' hands the memory of 'a', 'b' to a kernel without checking that they are on a CUDA device: a CPU tensor's pointer is a host address, and the kernel fails with an illegal memory access; check each one first: 'TORCH_CHECK(a.is_cuda(), ...)' [torch-unchecked-tensor-device]
  const at::cuda::OptionalCUDAGuard guard(device_of(a));
  auto out = torch::empty_like(a);
  mul_kernel<<<1, 256, 0, at::cuda::getCurrentCUDAStream()>>>(out.data_ptr<float>(), a.data_ptr<float>(), b.data_ptr<float>(), a.numel());
  // CHECK-MESSAGES: :[[@LINE-1]]:86: note: the memory of 'a' goes to kernel 'mul_kernel' here, unchecked
  // CHECK-MESSAGES: :[[@LINE-2]]:107: note: the memory of 'b' goes to kernel 'mul_kernel' here, unchecked
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  return out;
}

// Only the first argument is checked; through a pointer local, a
// contiguous copy and an accessor.
void firstOnly(torch::Tensor out, torch::Tensor a, torch::Tensor b) {
  // CHECK-MESSAGES: :[[@LINE-1]]:6: warning: 'firstOnly' hands the memory of 'out', 'b' to a kernel without checking that they are on a CUDA device
  CHECK_INPUT(a);
  const at::cuda::OptionalCUDAGuard guard(device_of(a));
  float *o = out.data_ptr<float>();
  // CHECK-MESSAGES: :[[@LINE-1]]:14: note: the memory of 'out' goes to kernel 'mul_kernel' here, unchecked
  auto bc = b.contiguous();
  mul_kernel<<<1, 256, 0, at::cuda::getCurrentCUDAStream()>>>(o, a.data_ptr<float>(), bc.data_ptr<float>(), a.numel());
  // CHECK-MESSAGES: :[[@LINE-1]]:87: note: the memory of 'b' goes to kernel 'mul_kernel' here, unchecked
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}

void accessor(torch::Tensor x) {
  // CHECK-MESSAGES: :[[@LINE-1]]:6: warning: 'accessor' hands the memory of 'x' to a kernel without checking that it is on a CUDA device
  const at::cuda::OptionalCUDAGuard guard(device_of(x));
  acc_kernel<<<1, 1, 0, at::cuda::getCurrentCUDAStream()>>>(x.packed_accessor32<float, 2>());
  // CHECK-MESSAGES: :[[@LINE-1]]:61: note: the memory of 'x' goes to kernel 'acc_kernel' here, unchecked
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}

// Through a launcher of raw pointers.
void launch_mul(float *out, const float *a, const float *b, int64_t n) {
  mul_kernel<<<1, 256, 0, at::cuda::getCurrentCUDAStream()>>>(out, a, b, n);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}
void viaLauncher(torch::Tensor x) {
  // CHECK-MESSAGES: :[[@LINE-1]]:6: warning: 'viaLauncher' hands the memory of 'x' to a kernel
  const at::cuda::OptionalCUDAGuard guard(device_of(x));
  launch_mul(x.data_ptr<float>(), x.data_ptr<float>(), x.data_ptr<float>(), x.numel());
  // CHECK-MESSAGES: :[[@LINE-1]]:14: note: the memory of 'x' goes to kernel 'mul_kernel' here, unchecked
}

// Memory taken by a helper of the file, and by an accessor call a template
// leaves unresolved.
template <typename T> struct DeviceView {
  T *data;
  int64_t n;
};
template <typename T> DeviceView<T> devicetensor(const torch::Tensor &t) {
  return {t.data_ptr<T>(), t.numel()};
}
template <typename T> __global__ void view_kernel(DeviceView<T> v) {}

void viaHelper(torch::Tensor x) {
  // CHECK-MESSAGES: :[[@LINE-1]]:6: warning: 'viaHelper' hands the memory of 'x' to a kernel
  const at::cuda::OptionalCUDAGuard guard(device_of(x));
  view_kernel<<<1, 1, 0, at::cuda::getCurrentCUDAStream()>>>(devicetensor<float>(x));
  // CHECK-MESSAGES: :[[@LINE-1]]:62: note: the memory of 'x' goes to kernel 'view_kernel' here, unchecked
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}

template <typename scalar_t> __global__ void acc_kernel_t(at::PackedTensorAccessor32<scalar_t, 2> x) {}
template <typename scalar_t> void templated(const torch::Tensor &x) {
  // CHECK-MESSAGES: :[[@LINE-1]]:35: warning: 'templated' hands the memory of 'x' to a kernel
  const at::cuda::OptionalCUDAGuard guard(device_of(x));
  auto acc = x.packed_accessor32<scalar_t, 2>();
  acc_kernel_t<scalar_t><<<1, 1, 0, at::cuda::getCurrentCUDAStream()>>>(acc);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}
template void templated<float>(const torch::Tensor &);

// Through a helper of the user's that reshapes the tensor.
static torch::Tensor normalize_shape(const torch::Tensor &x) { return x.view({x.size(0), -1}); }
void reshaped(torch::Tensor x_) {
  // CHECK-MESSAGES: :[[@LINE-1]]:6: warning: 'reshaped' hands the memory of 'x_' to a kernel
  const at::cuda::OptionalCUDAGuard guard(device_of(x_));
  auto x = normalize_shape(x_);
  acc_kernel<<<1, 1, 0, at::cuda::getCurrentCUDAStream()>>>(x.packed_accessor32<float, 2>());
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}

// Near misses.

// LibTorch's own argument checks throw for a tensor that is not on a GPU.
void sameGpu(torch::Tensor a, torch::Tensor b) {
  at::TensorArg a_t{a, "a", 1}, b_t{b, "b", 2};
  at::checkAllSameGPU("sameGpu", {a_t, b_t});
  const at::cuda::OptionalCUDAGuard guard(device_of(a));
  launch_mul(a.data_ptr<float>(), a.data_ptr<float>(), b.data_ptr<float>(), a.numel());
}

void checked(torch::Tensor out, torch::Tensor a, torch::Tensor b, torch::Tensor c) {
  CHECK_INPUT(out);
  TORCH_CHECK(a.device().is_cuda(), "a must be on the GPU");
  AT_ASSERTM(b.type().is_cuda(), "b must be a CUDA tensor");
  TORCH_CHECK(c.device().type() == at::kCUDA);
  const at::cuda::OptionalCUDAGuard guard(device_of(a));
  launch_mul(out.data_ptr<float>(), a.data_ptr<float>(), b.data_ptr<float>(), a.numel());
  launch_mul(c.data_ptr<float>(), c.data_ptr<float>(), c.data_ptr<float>(), c.numel());
}

static void check_inputs(const torch::Tensor &t) { TORCH_CHECK(t.is_cuda()); }
void helperChecks(torch::Tensor x) {
  check_inputs(x);
  const at::cuda::OptionalCUDAGuard guard(device_of(x));
  launch_mul(x.data_ptr<float>(), x.data_ptr<float>(), x.data_ptr<float>(), x.numel());
}

torch::Tensor branch(torch::Tensor x) {
  if (!x.is_cuda())
    return x * x;
  const at::cuda::OptionalCUDAGuard guard(device_of(x));
  launch_mul(x.data_ptr<float>(), x.data_ptr<float>(), x.data_ptr<float>(), x.numel());
  return x;
}

void moved(torch::Tensor x) {
  x = x.cuda();
  const at::cuda::OptionalCUDAGuard guard(device_of(x));
  launch_mul(x.data_ptr<float>(), x.data_ptr<float>(), x.data_ptr<float>(), x.numel());
}

// Every caller checks.
static void impl(torch::Tensor x) {
  const at::cuda::OptionalCUDAGuard guard(device_of(x));
  launch_mul(x.data_ptr<float>(), x.data_ptr<float>(), x.data_ptr<float>(), x.numel());
}
void entry(torch::Tensor x) {
  CHECK_INPUT(x);
  impl(x);
}
