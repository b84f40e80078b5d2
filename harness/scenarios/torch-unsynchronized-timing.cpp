// torch-unsynchronized-timing: CUDA ops only queue kernels and return, so a
// host clock read right after them measures the launches, not the work.
//   bad:   t0 = now(); y = work(x); t1 = now();
//   fixed: t0 = now(); y = work(x); torch::cuda::synchronize(); t1 = now();
// Both synchronize before t0, so earlier work does not leak in. The work is
// a chain of 4096x4096 matmuls that takes about 20 ms on the device
// (queue_gpu_work). Measured: both wall-clock readings and the work's
// device time from CUDA events, median of 5 runs each. The bad reading
// shows the effect when it is under half the synchronized one; the fixed
// reading when it is not within 0.5x-2x of the CUDA-event time.
// CPU: CPU ops return when their work is done, the clock already covers
// it: SKIPPED.
#include <chrono>

#include "../measure.h"
#include "../scenario.h"

namespace harness {
namespace {

constexpr const char *kCheck = "torch-unsynchronized-timing";

#ifdef HARNESS_HAS_CUDA
constexpr double kWorkMs = 20;
double since_ms(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now() - t0)
      .count();
}

// bad: the clock stops while the kernels are still queued
double time_bad(const torch::Device &device) {
  torch::cuda::synchronize();
  const auto t0 = std::chrono::steady_clock::now();
  queue_gpu_work(device, kWorkMs);
  const double ms = since_ms(t0);
  torch::cuda::synchronize(); // drain, outside the measurement
  return ms;
}

// fixed: wait for the device before reading the clock
double time_fixed(const torch::Device &device) {
  torch::cuda::synchronize();
  const auto t0 = std::chrono::steady_clock::now();
  queue_gpu_work(device, kWorkMs);
  torch::cuda::synchronize();
  return since_ms(t0);
}

Result run(const Context &ctx) {
  Result r;
  queue_gpu_work(ctx.device, kWorkMs); // warm-up and calibration
  torch::cuda::synchronize();
  std::vector<double> bad, fixed, events;
  for (int rep = 0; rep < 5; ++rep) {
    bad.push_back(time_bad(ctx.device));
    fixed.push_back(time_fixed(ctx.device));
    torch::cuda::synchronize();
    events.push_back(
        cuda_time_ms([&] { queue_gpu_work(ctx.device, kWorkMs); }));
  }
  const double bad_ms = median(bad), fixed_ms = median(fixed);
  const double event_ms = median(events);
  const double fixed_ratio = event_ms > 0 ? fixed_ms / event_ms : 0;

  r.metric("bad_wall_ms", bad_ms);
  r.metric("fixed_wall_ms", fixed_ms);
  r.metric("cuda_event_ms", event_ms);
  r.metric("bad_over_fixed", fixed_ms > 0 ? bad_ms / fixed_ms : 0);
  r.metric("fixed_over_events", fixed_ratio);
  r.bad_effect = "clock says " + fmt(bad_ms) + " ms (x" +
                 fmt(fixed_ms > 0 ? bad_ms / fixed_ms : 0, 2) +
                 " of the synchronized reading)";
  r.fixed_effect = "clock says " + fmt(fixed_ms) + " ms, CUDA events " +
                   fmt(event_ms) + " ms";
  return decide(r, bad_ms < 0.5 * fixed_ms,
                fixed_ratio < 0.5 || fixed_ratio > 2.0);
}
#endif

Result run_on(const Context &ctx) {
  return cuda_only(kCheck, ctx,
                   "CPU ops return when their work is done, an "
                   "unsynchronized clock already covers it",
                   HARNESS_CUDA_ONLY(run));
}

} // namespace
HARNESS_REGISTER(kCheck,
                 "a host clock read after CUDA ops without synchronize() "
                 "times the kernel launches, not the work",
                 run_on);
} // namespace harness
