// REQUIRES: libtorch-cuda
// RUN: %check_torch_tidy %s torch-unchecked-kernel-launch %t -- %cuda_flags

// Launches whose error nobody reads, with the fix that checks right after
// the launch; launches in macros, of templated kernels with nested template
// arguments and with lambda arguments (the cases PyTorch's regex linter
// check_kernel_launches.py finds or misses); and the near misses: every
// way of reading the launch error after the launch, in the same block, in
// an enclosing one, after an AT_DISPATCH, in every caller, or through a
// project's own macro.
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAGuard.h>
#include <torch/extension.h>
#include <utility>

__global__ void scale_kernel(float *out, const float *in, float s, int64_t n) {
  int64_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i] * s;
}

template <typename Pair, int Tile>
__global__ void tiled_kernel(float *x, int64_t n) {
  if (threadIdx.x < Tile)
    x[threadIdx.x] = sizeof(Pair);
}

template <typename F>
__global__ void apply_kernel(float *x, int64_t n, F f) {
  int64_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] = f(x[i]);
}

void unchecked(torch::Tensor out, torch::Tensor in) {
  const at::cuda::OptionalCUDAGuard guard(device_of(in));
  int64_t n = in.numel();
  cudaStream_t stream = at::cuda::getCurrentCUDAStream();
  scale_kernel<<<(n + 255) / 256, 256, 0, stream>>>(out.data_ptr<float>(), in.data_ptr<float>(), 2.f, n);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: the launch of 'scale_kernel' is never checked: a launch error (a bad configuration, too many resources) surfaces later, at an unrelated CUDA call; add C10_CUDA_KERNEL_LAUNCH_CHECK() after it [torch-unchecked-kernel-launch]
  // CHECK-FIXES: scale_kernel<<<(n + 255) / 256, 256, 0, stream>>>(out.data_ptr<float>(), in.data_ptr<float>(), 2.f, n);
  // CHECK-FIXES-NEXT: {{^  C10_CUDA_KERNEL_LAUNCH_CHECK\(\);$}}
}

// Clearing the error is not reading it.
void cleared(torch::Tensor x) {
  const at::cuda::OptionalCUDAGuard guard(device_of(x));
  tiled_kernel<std::pair<int, std::pair<float, double>>, 4><<<1, 32, 0, at::cuda::getCurrentCUDAStream()>>>(x.data_ptr<float>(), x.numel());
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: the launch of 'tiled_kernel' is never checked
  // CHECK-FIXES: {{^  C10_CUDA_KERNEL_LAUNCH_CHECK\(\);$}}
  cudaGetLastError();
  (void)cudaPeekAtLastError();
}

// A launch with a lambda argument, and one in an AT_DISPATCH lambda with
// nothing after the dispatch.
void lambdas(torch::Tensor x) {
  const at::cuda::OptionalCUDAGuard guard(device_of(x));
  auto stream = at::cuda::getCurrentCUDAStream();
  apply_kernel<<<1, 256, 0, stream>>>(x.data_ptr<float>(), x.numel(), [] __device__(float v) { return v * 2; });
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: the launch of 'apply_kernel' is never checked
  AT_DISPATCH_FLOATING_TYPES(x.scalar_type(), "lambdas", [&] {
    scale_kernel<<<1, 256, 0, stream>>>(x.data_ptr<float>(), x.data_ptr<float>(), 1.f, x.numel());
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: the launch of 'scale_kernel' is never checked
  });
}

// A launch written by a project's macro: reported at the kernel's name in
// the macro's arguments, without a fix.
#define LAUNCH_1D(kernel, n, ...)                                              \
  kernel<<<((n) + 255) / 256, 256, 0, at::cuda::getCurrentCUDAStream()>>>(     \
      __VA_ARGS__)
void inMacro(torch::Tensor x) {
  const at::cuda::OptionalCUDAGuard guard(device_of(x));
  LAUNCH_1D(scale_kernel, x.numel(), x.data_ptr<float>(), x.data_ptr<float>(), 3.f, x.numel());
  // CHECK-MESSAGES: :[[@LINE-1]]:13: warning: the launch of 'scale_kernel' is never checked
  // CHECK-MESSAGES: :[[@LINE-2]]:13: note: no automatic fix inside a macro expansion
}

// A launcher of raw pointers whose callers do not check either.
void launch_scale(float *out, const float *in, int64_t n, cudaStream_t s) {
  scale_kernel<<<(n + 255) / 256, 256, 0, s>>>(out, in, 1.f, n);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: the launch of 'scale_kernel' is never checked
}
void callsLauncher(torch::Tensor x) {
  const at::cuda::OptionalCUDAGuard guard(device_of(x));
  launch_scale(x.data_ptr<float>(), x.data_ptr<float>(), x.numel(), at::cuda::getCurrentCUDAStream());
}

// cudaLaunchKernel with its result thrown away.
void launchFunction(float *x, int64_t n, cudaStream_t s) {
  float scale = 2;
  void *args[] = {&x, &x, &scale, &n};
  cudaLaunchKernel((const void *)scale_kernel, dim3(1), dim3(256), args, 0, s);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: the launch of 'scale_kernel' is never checked
}

// What PyTorch's regex linter (check_kernel_launches.py) says it misses: a
// ';' in a string among the arguments, and a triply nested template.
__global__ void tagged_kernel(float *x, const char *tag) {}
void regexBlindSpots(torch::Tensor x) {
  const at::cuda::OptionalCUDAGuard guard(device_of(x));
  auto stream = at::cuda::getCurrentCUDAStream();
  tagged_kernel<<<1, 1, 0, stream>>>(x.data_ptr<float>(), "a;b>>>(c);");
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: the launch of 'tagged_kernel' is never checked
  tiled_kernel<std::pair<int, std::pair<float, std::pair<int, int>>>, 4><<<1, 32, 0, stream>>>(x.data_ptr<float>(), x.numel());
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: the launch of 'tiled_kernel' is never checked
}

// Near misses.

// A launch in a comment is none: scale_kernel<<<1, 256>>>(p, p, 1.f, n);
/* tiled_kernel<int, 1><<<1, 1>>>(p, n); */

void checkedRightAfter(torch::Tensor x) {
  const at::cuda::OptionalCUDAGuard guard(device_of(x));
  scale_kernel<<<1, 256, 0, at::cuda::getCurrentCUDAStream()>>>(x.data_ptr<float>(), x.data_ptr<float>(), 1.f, x.numel());
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  tiled_kernel<std::pair<int, int>, 2><<<1, 32, 0, at::cuda::getCurrentCUDAStream()>>>(x.data_ptr<float>(), x.numel());
  AT_CUDA_CHECK(cudaGetLastError());
}

void comparedOrReturned(torch::Tensor x) {
  const at::cuda::OptionalCUDAGuard guard(device_of(x));
  auto stream = at::cuda::getCurrentCUDAStream();
  scale_kernel<<<1, 256, 0, stream>>>(x.data_ptr<float>(), x.data_ptr<float>(), 1.f, x.numel());
  cudaError_t err = cudaGetLastError();
  TORCH_CHECK(err == cudaSuccess, cudaGetErrorString(err));
  scale_kernel<<<1, 256, 0, stream>>>(x.data_ptr<float>(), x.data_ptr<float>(), 1.f, x.numel());
  if (cudaPeekAtLastError() != cudaSuccess)
    throw std::runtime_error("launch failed");
}

cudaError_t returned(float *x, int64_t n, cudaStream_t s) {
  scale_kernel<<<1, 256, 0, s>>>(x, x, 1.f, n);
  return cudaGetLastError();
}

// After the loop that holds the launches, and after the dispatch.
void enclosingBlock(torch::Tensor x) {
  const at::cuda::OptionalCUDAGuard guard(device_of(x));
  auto stream = at::cuda::getCurrentCUDAStream();
  for (int i = 0; i < 3; ++i) {
    scale_kernel<<<1, 256, 0, stream>>>(x.data_ptr<float>(), x.data_ptr<float>(), 1.f, x.numel());
  }
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  AT_DISPATCH_FLOATING_TYPES(x.scalar_type(), "dispatched", [&] {
    apply_kernel<<<1, 256, 0, stream>>>(x.data_ptr<float>(), x.numel(), [] __device__(float v) { return v + 1; });
  });
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}

// A project's own check macro, recognised by what it expands to.
#define SYNC_ERRORS_OR_DIE()                                                   \
  do {                                                                         \
    cudaError_t e = cudaGetLastError();                                        \
    TORCH_CHECK(e == cudaSuccess, "CUDA error: ", cudaGetErrorString(e));     \
  } while (0)
void projectMacro(torch::Tensor x) {
  const at::cuda::OptionalCUDAGuard guard(device_of(x));
  LAUNCH_1D(scale_kernel, x.numel(), x.data_ptr<float>(), x.data_ptr<float>(), 3.f, x.numel());
  SYNC_ERRORS_OR_DIE();
}

// A launcher whose every caller checks after the call.
static void launch_checked_by_caller(float *x, int64_t n, cudaStream_t s) {
  scale_kernel<<<1, 256, 0, s>>>(x, x, 1.f, n);
}
void caller(torch::Tensor x) {
  const at::cuda::OptionalCUDAGuard guard(device_of(x));
  launch_checked_by_caller(x.data_ptr<float>(), x.numel(), at::cuda::getCurrentCUDAStream());
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}

// A kernel functor reached through a dispatch template that recurses once
// per value (pytorch3d's DispatchKernel1D): the caller at the top checks.
template <typename T, int64_t D> struct ScaleFunctor {
  static void run(float *x, int64_t n, cudaStream_t s) {
    scale_kernel<<<1, 256, 0, s>>>(x, x, float(D), n);
  }
};
template <template <typename, int64_t> class K, typename T, int64_t Cur, int64_t Max>
struct Dispatch {
  static void run(int64_t d, float *x, int64_t n, cudaStream_t s) {
    if (d == Cur)
      K<T, Cur>::run(x, n, s);
    else
      Dispatch<K, T, Cur + 1, Max>::run(d, x, n, s);
  }
};
template <template <typename, int64_t> class K, typename T, int64_t Max>
struct Dispatch<K, T, Max, Max> {
  static void run(int64_t d, float *x, int64_t n, cudaStream_t s) { K<T, Max>::run(x, n, s); }
};
void dispatched(torch::Tensor x, int64_t d) {
  const at::cuda::OptionalCUDAGuard guard(device_of(x));
  Dispatch<ScaleFunctor, float, 1, 8>::run(d, x.data_ptr<float>(), x.numel(), at::cuda::getCurrentCUDAStream());
  AT_CUDA_CHECK(cudaGetLastError());
}

// cudaLaunchKernel's own result, checked.
void launchFunctionChecked(float *x, int64_t n, cudaStream_t s) {
  float scale = 2;
  void *args[] = {&x, &x, &scale, &n};
  AT_CUDA_CHECK(cudaLaunchKernel((const void *)scale_kernel, dim3(1), dim3(256), args, 0, s));
}
