// The kernels of the extension checks' scenarios, behind plain C++
// launchers of raw pointers, as an extension's .cu exports them to its
// binding .cpp. They are defined in cuda_kernels.cu, which CMakeLists.txt
// compiles with nvcc when the harness has CUDA and a CUDA compiler is
// found; it then defines HARNESS_HAS_CUDA_KERNELS, and only then may a
// scenario call them. No CUDA type here: the scenarios compile without the
// CUDA headers. Each launcher runs on the current CUDA device, and all but
// fill_unchecked check their launch with C10_CUDA_KERNEL_LAUNCH_CHECK().
#pragma once

#include <cstdint>

namespace harness {
namespace kernels {

// One thread spins for about `ms` milliseconds (clock64() against the
// device's peak clock), then sets p[0..n) to value. On PyTorch's current
// stream: the "long-running producer" of the stream scenarios.
void spin_then_fill(float *p, int64_t n, float value, double ms);

// out[i] = in[i], on PyTorch's current stream (getCurrentCUDAStream()).
void copy(const float *in, float *out, int64_t n);
// The same kernel, launched without a stream: on CUDA's legacy default
// stream. torch-kernel-default-stream flags this launch.
void copy_on_legacy_stream(const float *in, float *out, int64_t n);

// p[i] = value, with `threads` threads per block, on the current stream.
// Nothing reads the launch's error: torch-unchecked-kernel-launch flags it.
void fill_unchecked(float *p, int64_t n, float value, int threads);
// The same, with C10_CUDA_KERNEL_LAUNCH_CHECK() right after the launch.
void fill_checked(float *p, int64_t n, float value, int threads);

// cudaDevAttrPageableMemoryAccess of the current device: 1 when its kernels
// can read pageable host memory (HMM or ATS).
int pageable_memory_access();
// cudaDeviceCanAccessPeer(device, peer): 1 when `device` can map `peer`'s
// memory (it still has to be enabled).
int can_access_peer(int device, int peer);

} // namespace kernels
} // namespace harness

#ifdef HARNESS_HAS_CUDA_KERNELS
#include "../child.h"

#include <string>

namespace harness {
namespace kernels {
// What a child that ran a kernel on memory it should not reach reported
// (keys error, message, correct, context_ok, later_message): it crashed,
// threw, or read `right` or `wrong` values; and whether CUDA still worked.
inline std::string describe_kernel_child(const ChildResult &c,
                                         const std::string &right,
                                         const std::string &wrong) {
  std::string s;
  if (c.value("error").empty())
    s = "child " + c.describe();
  else if (c.value("error") == "1")
    s = "threw '" + c.value("message") + "'";
  else
    s = c.value("correct") == "1" ? right : wrong;
  if (c.value("context_ok") == "0")
    s += "; later CUDA calls fail: '" + c.value("later_message") + "'";
  return s;
}
} // namespace kernels
} // namespace harness
#endif

// A scenario's function that calls these kernels, or, in a harness built
// without them, one that reports SKIPPED: use as cuda_only(check, ctx, why,
// HARNESS_KERNELS_ONLY(check, fn)). Expand it after "../scenario.h".
#define HARNESS_NO_KERNELS_REASON                                              \
  "needs CUDA kernels compiled by nvcc: this harness was built without a "     \
  "CUDA compiler (scenarios/cuda_kernels.cu not compiled)"
#ifdef HARNESS_HAS_CUDA_KERNELS
#define HARNESS_KERNELS_ONLY(check, fn) ::harness::ScenarioFn(fn)
#else
#define HARNESS_KERNELS_ONLY(check, fn)                                        \
  ::harness::ScenarioFn([](const ::harness::Context &kernels_ctx) {            \
    return ::harness::skipped(check, kernels_ctx, HARNESS_NO_KERNELS_REASON);  \
  })
#endif
