// REQUIRES: cuda
// A .cu of raw launchers that includes nothing of LibTorch, as many
// extensions have: it is still extension code, and its launches on the
// legacy stream are reported. Without LibTorch in the file there is no
// at::cuda::getCurrentCUDAStream to write, so no fix-it, and a note says so.
// RUN: %check_torch_tidy %s torch-kernel-default-stream %t -- -x cuda --cuda-host-only -nocudalib --cuda-path=%cuda_root -std=c++17
#include <cuda_runtime.h>

__global__ void nms_kernel(const float *boxes, unsigned long long *mask, int n) {}

void nms_launcher(const float *boxes, unsigned long long *mask, int n) {
  dim3 blocks((n + 63) / 64, (n + 63) / 64);
  nms_kernel<<<blocks, 64>>>(boxes, mask, n);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: kernel 'nms_kernel' runs on the legacy default stream, not on PyTorch's current stream
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: no automatic fix: at::cuda::getCurrentCUDAStream is not declared here; include <ATen/cuda/CUDAContext.h>
}

// A stream the caller chose is left alone.
void nms_launcher_on(const float *boxes, unsigned long long *mask, int n, cudaStream_t stream) {
  nms_kernel<<<1, 64, 0, stream>>>(boxes, mask, n);
}
