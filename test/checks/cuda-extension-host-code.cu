// REQUIRES: libtorch-cuda
// The host code of a CUDA extension, against a LibTorch built with CUDA
// (at::cuda, c10::cuda and the CUDA runtime are real declarations there):
// the existing checks read its waits and conversions like any host code.
// RUN: %check_torch_tidy %s 'torch-*' %t -- %cuda_flags
#include <ATen/cuda/CUDAEvent.h>
#include <chrono>

__global__ void add_one_kernel(float *x, int64_t n) {
  int64_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] += 1;
}

// An operator that forgets that contiguous() returns a new tensor.
torch::Tensor add_one(torch::Tensor x) {
  x.contiguous();
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: result of 'Tensor::contiguous' is discarded; 'x' is unchanged and keeps its original memory layout; assign it: 'x = x.contiguous()' [torch-discarded-to]
  // CHECK-FIXES: x = x.contiguous();
  TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
  const at::cuda::OptionalCUDAGuard guard(device_of(x));
  int64_t n = x.numel();
  add_one_kernel<<<(n + 255) / 256, 256, 0,
                   at::cuda::getCurrentCUDAStream()>>>(x.data_ptr<float>(), n);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  return x;
}

// CUDA's own waits in a training loop: each stalls every step.
void train(torch::nn::Linear model, torch::optim::SGD &opt, torch::Tensor x) {
  for (int step = 0; step < 100; ++step) {
    opt.zero_grad();
    torch::Tensor loss = model(x).sum();
    loss.backward();
    opt.step();
    at::cuda::getCurrentCUDAStream().synchronize();
    // CHECK-MESSAGES: :[[@LINE-1]]:38: warning: 'c10::cuda::CUDAStream::synchronize' makes the host wait for all queued device work on every iteration of this training loop; remove it, or call it only under a timing or logging interval [torch-sync-in-loop]
    // CHECK-MESSAGES: :[[@LINE-4]]:10: note: this loop runs a training step: 'backward' is called here
    cudaDeviceSynchronize();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'cudaDeviceSynchronize' makes the host wait for all queued device work on every iteration of this training loop; remove it, or call it only under a timing or logging interval [torch-sync-in-loop]
    // CHECK-MESSAGES: :[[@LINE-7]]:10: note: this loop runs a training step
    c10::cuda::device_synchronize();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'c10::cuda::device_synchronize' makes the host wait for all queued device work on every iteration of this training loop; remove it, or call it only under a timing or logging interval [torch-sync-in-loop]
    // CHECK-MESSAGES: :[[@LINE-10]]:10: note: this loop runs a training step
  }
}

// Near misses: a timer that waits for the stream before reading the clock,
// and a non-blocking download read after the stream is synchronized.
double timed_forward(torch::nn::Linear model, torch::Tensor x) {
  auto start = std::chrono::steady_clock::now();
  torch::Tensor y = model(x);
  at::cuda::getCurrentCUDAStream().synchronize();
  auto end = std::chrono::steady_clock::now();
  return std::chrono::duration<double>(end - start).count();
}

float read_back(torch::Tensor gpu) {
  torch::Tensor host =
      gpu.to(torch::kCPU, /*non_blocking=*/true);
  cudaStreamSynchronize(at::cuda::getCurrentCUDAStream());
  return host.data_ptr<float>()[0];
}

// A latency benchmark timed with CUDA events: the wait for the stop event
// lets the host read the elapsed time, so it is the timing's own wait, not
// a stall to remove. A wait that no elapsed-time read follows still is.
void event_latency(torch::nn::Linear model, torch::Tensor x) {
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  float ms = 0;
  for (int i = 0; i < 100; ++i) {
    cudaEventRecord(start);
    torch::Tensor y = model(x);
    cudaEventRecord(stop);
    cudaEventSynchronize(stop); // near miss: read by the next statement
    cudaEventElapsedTime(&ms, start, stop);
    at::cuda::CUDAEvent begin(cudaEventDefault), end(cudaEventDefault);
    begin.record();
    y = model(y);
    end.record();
    end.synchronize(); // near miss
    ms += begin.elapsed_time(end);
    cudaEventSynchronize(stop);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'cudaEventSynchronize' makes the host wait for all queued device work on every iteration of this inference loop; remove it, or call it only under a timing or logging interval [torch-sync-in-loop]
    // CHECK-MESSAGES: :[[@LINE-12]]:23: note: this loop runs the model: the module is called here
  }
}

// A benchmark loop whose GPU branch takes the current stream into a local
// and waits for it right before the end clock (round 20): the timing's wait.
void stream_latency(torch::nn::Linear model, torch::Tensor x, bool on_gpu) {
  for (int i = 0; i < 5; ++i) {
    auto start = std::chrono::system_clock::now();
    torch::Tensor y = model(x);
    if (on_gpu) {
      at::cuda::CUDAStream stream = at::cuda::getCurrentCUDAStream();
      cudaStreamSynchronize(stream); // near miss
    }
    auto end = std::chrono::system_clock::now();
    (void)(end - start);
    if (on_gpu) {
      at::cuda::CUDAStream stream = at::cuda::getCurrentCUDAStream();
      cudaStreamSynchronize(stream);
      // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: 'cudaStreamSynchronize' makes the host wait for all queued device work on every iteration of this inference loop; remove it, or call it only under a timing or logging interval [torch-sync-in-loop]
      // CHECK-MESSAGES: :[[@LINE-11]]:23: note: this loop runs the model: the module is called here
    }
  }
}
