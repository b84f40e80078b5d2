// A CUDA extension's operator (see make_cuda_db.py).
#include <ATen/core/Tensor.h>
#include <c10/cuda/CUDAGuard.h>

__global__ void add_one_kernel(float *x, int64_t n) {
  int64_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] += 1;
}

at::Tensor add_one(at::Tensor x) {
  x.contiguous();
  TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
  const c10::cuda::OptionalCUDAGuard guard(x.device());
  add_one_kernel<<<(x.numel() + 255) / 256, 256, 0,
                   c10::cuda::getCurrentCUDAStream()>>>(x.data_ptr<float>(),
                                                        x.numel());
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  return x;
}
