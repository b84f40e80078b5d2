// REQUIRES: cuda
// Device code in a CUDA unit: kernels, __device__ functions and __device__
// lambdas are parsed with the host side but run on the GPU, so no host-side
// check reports in them. Each device body below has a host twin that every
// check reports as usual, so this test fails if device code stops being
// told apart.
// RUN: %check_torch_tidy %s 'torch-*' %t -- %cuda_flags
// The clang-tidy plugin, given the same host-side flags:
// RUN: %check_torch_tidy --via plugin --no-compile %s 'torch-*' %t.plugin -- %cuda_flags
#include <chrono>
#include <cstdio>

// Kernels as extensions write them: a grid-stride loop over the elements,
// warp shuffles, shared memory, atomics, device printf and clock reads.
__global__ void scale_kernel(float *out, const float *in, float s, int64_t n) {
  for (int64_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
    out[i] = in[i] * s;
}

__device__ float warp_sum(float v) {
  for (int offset = 16; offset > 0; offset /= 2)
    v += __shfl_down_sync(0xffffffff, v, offset);
  return v;
}

__global__ void sum_kernel(const float *in, float *total, int n) {
  __shared__ float partial[32];
  float v = 0;
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    v += in[i];
  v = warp_sum(v);
  if (threadIdx.x % 32 == 0)
    partial[threadIdx.x / 32] = v;
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int w = 1; w < blockDim.x / 32; ++w)
      partial[0] += partial[w];
    atomicAdd(total, partial[0]);
    printf("block %d: %f\n", blockIdx.x, partial[0]);
  }
}

__global__ void timed_kernel(float *out, long long *cycles) {
  long long start = clock64();
  out[threadIdx.x] = sqrtf(out[threadIdx.x]);
  cycles[threadIdx.x] = clock64() - start;
}

// Host code around the kernels is host code: every check reports there as
// in a C++ unit, in a function that is both __host__ and __device__ too (it
// runs on the host as well). The extension checks too: the launches below
// have no stream, no error check and no guard.
__host__ __device__ void both_sides(torch::Tensor t) {
  t.to(torch::kCUDA);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: result of 'Tensor::to' is discarded; 't' is unchanged and stays on its original device; assign it: 't = t.to(...)' [torch-discarded-to]
  // CHECK-FIXES: t = t.to(torch::kCUDA);
}

void host_body(torch::Tensor t, torch::nn::Linear model, float *out) {
  // CHECK-MESSAGES: :[[@LINE-1]]:6: warning: 'host_body' starts GPU work on the current device, not on its tensors' device
  t.to(torch::kCUDA);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: result of 'Tensor::to' is discarded; 't' is unchanged and stays on its original device; assign it: 't = t.to(...)' [torch-discarded-to]
  // CHECK-FIXES: t = t.to(torch::kCUDA);
  torch::Tensor g = torch::ones({4}, torch::kCUDA);
  float first = *g.data_ptr<float>();
  // CHECK-MESSAGES: :[[@LINE-1]]:20: warning: 'g' is on CUDA (created on it); 'data_ptr' returns a device address that host code reads, which on a GPU machine crashes or reads garbage; copy it to the host first ('auto host = g.cpu();') and read that copy's data [torch-host-access-device-tensor]
  for (int step = 0; step < 10; ++step) {
    torch::Tensor loss = model(t).sum();
    loss.backward();
    first += loss.item<float>();
    // CHECK-MESSAGES: :[[@LINE-1]]:19: warning: 'Tensor::item' makes the host wait for the device on every iteration of this training loop; accumulate on the device and read the value once after the loop, or read it under a logging interval [torch-sync-in-loop]
    scale_kernel<<<1, 256>>>(out, out, first, 256);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: kernel 'scale_kernel' runs on the legacy default stream
    // CHECK-MESSAGES: :[[@LINE-2]]:5: warning: the launch of 'scale_kernel' is never checked
  }
}

// A launch helper's device lambda inside a host function (as PyTorch's
// gpu_kernel takes one): its body is device code, the host code around it
// is not.
template <typename F>
__global__ void map_kernel(float *data, int64_t n, F f) {
  int64_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    data[i] = f(data[i]);
}

template <typename F> void map_elements(float *data, int64_t n, F f) {
  map_kernel<<<(n + 255) / 256, 256>>>(data, n, f);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: kernel 'map_kernel' runs on the legacy default stream
  // CHECK-MESSAGES: :[[@LINE-2]]:3: warning: the launch of 'map_kernel' is never checked
}

void launch_with_lambda(torch::Tensor t) {
  // CHECK-MESSAGES: :[[@LINE-1]]:6: warning: 'launch_with_lambda' hands the memory of 't' to a kernel without checking that it is on a CUDA device
  // CHECK-MESSAGES: :[[@LINE-2]]:6: warning: 'launch_with_lambda' starts GPU work on the current device
  map_elements(t.data_ptr<float>(), t.numel(), [] __device__(float x) {
    for (int i = 0; i < 3; ++i)
      x = x * x + 1;
    return x;
  });
  t.to(torch::kCUDA);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: result of 'Tensor::to' is discarded; 't' is unchanged and stays on its original device; assign it: 't = t.to(...)' [torch-discarded-to]
  // CHECK-FIXES: t = t.to(torch::kCUDA);
}
