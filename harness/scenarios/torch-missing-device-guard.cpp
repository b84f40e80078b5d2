// torch-missing-device-guard: a launch runs on the current CUDA device, and
// getCurrentCUDAStream() is that device's stream, whatever the device of
// the tensors passed in. With the inputs on cuda:1 while cuda:0 is current
// (the default in any thread that has not chosen), the kernel runs on GPU 0
// and reads GPU 1's memory: an illegal memory access, or, where GPU 0 can
// reach GPU 1's memory, a read unordered with GPU 1's stream.
//   bad:   auto out = torch::empty_like(a);  kernels::copy(a.., out.., n);
//   fixed: const at::cuda::OptionalCUDAGuard device_guard(device_of(a));
//          then the same
// Both run in a child process (harness/child.h): a fault would break every
// later CUDA call of the harness. In each, cuda:0 is current, and `a` on
// cuda:1 is written by a kernel on cuda:1's stream that spins about 50 ms
// first (as the output of the operator before would be). Measured: the
// CUDA error each variant reports, whether the copy read the written
// values, whether CUDA still works afterwards, and whether cuda:0 can map
// cuda:1's memory (cudaDeviceCanAccessPeer).
// CPU: SKIPPED. Fewer than two GPUs: SKIPPED ("needs two GPUs"). Built
// without nvcc: SKIPPED.
#include "../scenario.h"
#include "cuda_kernels.h"

#ifdef HARNESS_HAS_CUDA_KERNELS
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAGuard.h>

#include "../child.h"
#include "../measure.h"
#endif

namespace harness {
namespace {

constexpr const char *kCheck = "torch-missing-device-guard";

#ifdef HARNESS_HAS_CUDA_KERNELS
constexpr int64_t kN = 1 << 16;
constexpr float kValue = 42;
constexpr double kSpinMs = 50;

// The flagged function: launches on the current device, not on a's.
torch::Tensor copy_unguarded(const torch::Tensor &a) {
  auto out = torch::empty_like(a);
  kernels::copy(a.data_ptr<float>(), out.data_ptr<float>(), a.numel());
  return out;
}

// The fix: a's device is current for the launch and its stream.
torch::Tensor copy_guarded(const torch::Tensor &a) {
  const at::cuda::OptionalCUDAGuard device_guard(device_of(a));
  auto out = torch::empty_like(a);
  kernels::copy(a.data_ptr<float>(), out.data_ptr<float>(), a.numel());
  return out;
}

int child(bool guarded) {
  c10::cuda::set_device(0); // cuda:0 current, as in any thread by default
  std::cout << "peer_capable=" << kernels::can_access_peer(0, 1) << std::endl;
  const torch::Device gpu1(torch::kCUDA, 1);
  auto a = torch::zeros({kN}, gpu1);
  torch::cuda::synchronize(1);
  {
    const at::cuda::CUDAGuard on_gpu1(1); // the producer of a, on cuda:1
    kernels::spin_then_fill(a.data_ptr<float>(), kN, kValue, kSpinMs);
  }
  bool correct = false;
  Outcome o = capture([&] {
    auto out = guarded ? copy_guarded(a) : copy_unguarded(a);
    torch::cuda::synchronize(0);
    torch::cuda::synchronize(1);
    correct = (out == kValue).all().item<bool>();
  });
  std::cout << "error=" << o.threw << "\nmessage=" << first_line(o.message, 160)
            << "\ncorrect=" << correct << std::endl;
  Outcome later = capture([&] {
    torch::ones({4}, gpu1).sum().item<float>();
    torch::cuda::synchronize(0);
  });
  std::cout << "context_ok=" << !later.threw
            << "\nlater_message=" << first_line(later.message, 160)
            << std::endl;
  return 0;
}

HARNESS_REGISTER_CHILD("torch-missing-device-guard/bad",
                       [](const torch::Device &) { return child(false); });
HARNESS_REGISTER_CHILD("torch-missing-device-guard/fixed",
                       [](const torch::Device &) { return child(true); });

// The effect: a fault (a CUDA error, a crash) or values read too early.
bool faulted_or_wrong(const ChildResult &c) {
  if (c.value("error").empty())
    return true; // died before reporting
  return c.value("error") == "1" || c.value("correct") != "1" ||
         c.value("context_ok") != "1";
}

std::string shown(const ChildResult &c) {
  return kernels::describe_kernel_child(c, "read the written values",
                                        "read a before cuda:1 wrote it");
}

Result run(const Context &ctx) {
  const auto gpus = torch::cuda::device_count();
  if (gpus < 2) // inputs on cuda:1 while cuda:0 is current
    return skipped(kCheck, ctx,
                   "needs two GPUs (" + std::to_string(gpus) + " visible)");
  Result r;
  const ChildResult bad =
      run_child(std::string(kCheck) + "/bad", ctx.device, 60);
  const ChildResult fixed =
      run_child(std::string(kCheck) + "/fixed", ctx.device, 60);
  r.metric("gpus", static_cast<double>(gpus));
  r.metric("peer_capable", bad.value("peer_capable") == "1");
  r.metric("bad_error", bad.value("error") == "1");
  r.metric("bad_correct", bad.value("correct") == "1");
  r.metric("bad_context_ok", bad.value("context_ok") == "1");
  r.metric("bad_signal", bad.signal);
  r.metric("fixed_error", fixed.value("error") == "1");
  r.metric("fixed_correct", fixed.value("correct") == "1");
  r.bad_effect = shown(bad);
  r.fixed_effect = shown(fixed);
  const bool bad_effect = faulted_or_wrong(bad);
  if (!bad_effect)
    r.reason = "the kernel on cuda:0 read cuda:1's memory after cuda:1's "
               "write (peer access " +
               std::string(bad.value("peer_capable") == "1" ? "possible"
                                                            : "impossible") +
               ")";
  return decide(r, bad_effect, faulted_or_wrong(fixed));
}
#endif

Result run_on(const Context &ctx) {
  return cuda_only(
      kCheck, ctx,
      "the CPU is one device: there is no current device to get wrong",
      HARNESS_KERNELS_ONLY(kCheck, run));
}

} // namespace
HARNESS_REGISTER(kCheck,
                 "a kernel launched without a guard runs on the current "
                 "device, not on its tensors' device: with inputs on cuda:1 "
                 "it reads another GPU's memory",
                 run_on);
} // namespace harness
