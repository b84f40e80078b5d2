// torch-unchecked-kernel-launch: a kernel launch returns nothing. A launch
// that cannot start (here 2048 threads per block; the limit is 1024) only
// sets the thread's CUDA error and does nothing; the next call that reads
// the error reports it, far from the launch.
//   bad:   fill_kernel<<<blocks, 2048, 0, stream>>>(p, n, 1);
//   fixed: fill_kernel<<<blocks, 2048, 0, stream>>>(p, n, 1);
//          C10_CUDA_KERNEL_LAUNCH_CHECK();
// (cuda_kernels.cu: fill_unchecked and fill_checked.) Each variant makes
// the bad launch, then an unrelated valid launch on another tensor, checked
// (fill_checked with 256 threads), standing for the next operator.
// Measured: which of the two calls threw the "invalid configuration
// argument" error, and whether the bad launch wrote its output.
// CPU: no kernel launches: SKIPPED. Built without nvcc: SKIPPED.
#include "../scenario.h"
#include "cuda_kernels.h"

#ifdef HARNESS_HAS_CUDA_KERNELS
#include <cuda_runtime_api.h>

#include "../measure.h"
#endif

namespace harness {
namespace {

constexpr const char *kCheck = "torch-unchecked-kernel-launch";

#ifdef HARNESS_HAS_CUDA_KERNELS
constexpr int64_t kN = 1 << 16;
constexpr int kBadThreads = 2048;

struct Surfaced {
  Outcome at_launch; // the bad launch (and, fixed, its check)
  Outcome next_call; // the unrelated, valid, checked launch after it
  bool output_written = false;
};

bool config_error(const Outcome &o) {
  return o.threw && contains_ci(o.message, "invalid configuration");
}

Surfaced run_variant(const torch::Device &device, bool checked) {
  const auto opts =
      torch::TensorOptions().dtype(torch::kFloat32).device(device);
  auto out = torch::zeros({kN}, opts);
  auto other = torch::zeros({kN}, opts);
  torch::cuda::synchronize();
  (void)cudaGetLastError(); // start with no pending error
  Surfaced s;
  s.at_launch = capture([&] {
    if (checked)
      kernels::fill_checked(out.data_ptr<float>(), kN, 1, kBadThreads);
    else
      kernels::fill_unchecked(out.data_ptr<float>(), kN, 1, kBadThreads);
  });
  s.next_call = capture(
      [&] { kernels::fill_checked(other.data_ptr<float>(), kN, 2, 256); });
  torch::cuda::synchronize();
  s.output_written = (out == 1).all().item<bool>();
  return s;
}

std::string shown(const Surfaced &s) {
  auto one = [](const Outcome &o) {
    return o.threw ? "threw '" + first_line(o.message, 60) + "'"
                   : std::string("no error");
  };
  return "launch: " + one(s.at_launch) +
         "; next checked call: " + one(s.next_call) + "; output " +
         (s.output_written ? "written" : "not written");
}

Result run(const Context &ctx) {
  Result r;
  const Surfaced bad = run_variant(ctx.device, false);
  const Surfaced fixed = run_variant(ctx.device, true);
  r.metric("threads_per_block", kBadThreads);
  r.metric("bad_error_at_launch", bad.at_launch.threw);
  r.metric("bad_error_at_next_call", bad.next_call.threw);
  r.metric("bad_output_written", bad.output_written);
  r.metric("fixed_error_at_launch", fixed.at_launch.threw);
  r.metric("fixed_error_at_next_call", fixed.next_call.threw);
  r.bad_effect = shown(bad);
  r.fixed_effect = shown(fixed);
  // The effect: the launch's error is reported by another call, not by it.
  return decide(r, !bad.at_launch.threw && config_error(bad.next_call),
                !config_error(fixed.at_launch) || fixed.next_call.threw);
}
#endif

Result run_on(const Context &ctx) {
  return cuda_only(kCheck, ctx, "a CPU runs no kernel launches",
                   HARNESS_KERNELS_ONLY(kCheck, run));
}

} // namespace
HARNESS_REGISTER(kCheck,
                 "a launch that cannot start reports nothing: its error "
                 "surfaces at the next call that checks, not at the launch",
                 run_on);
} // namespace harness
