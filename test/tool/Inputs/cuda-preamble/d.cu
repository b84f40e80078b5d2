// A CUDA unit whose LibTorch includes sit in a branch of its own, as
// mmcv's kernels do (#ifdef MMCV_USE_PARROTS): it shares with its siblings.
#ifdef TORCH_TIDY_TEST_PARROTS
#include "parrots_cuda_helper.hpp"
#else
#include <ATen/core/Tensor.h>
#include <c10/cuda/CUDAGuard.h>
#endif

__global__ void d_kernel(float *x, int64_t n) {
  int64_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] = min(x[i], 1.0f);
}

void d_cuda(at::Tensor x) {
  d_kernel<<<max(1, (int)((x.numel() + 255) / 256)), 256>>>(
      x.data_ptr<float>(), x.numel());
}
