// The binding: scale() checks and guards before calling into ops.cu;
// shift() does neither.
#include <ATen/core/Tensor.h>
#include <c10/cuda/CUDAGuard.h>

void scale_cuda(at::Tensor x, double s);
void shift_cuda(at::Tensor x, double s);

#define CHECK_INPUT(x) TORCH_CHECK(x.is_cuda(), #x " must be a CUDA tensor")

void scale(at::Tensor x, double s) {
  CHECK_INPUT(x);
  const c10::cuda::OptionalCUDAGuard guard(x.device());
  scale_cuda(x, s);
}

void shift(at::Tensor x, double s) { shift_cuda(x, s); }
