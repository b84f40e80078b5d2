// torch-async-copy-read: a non_blocking copy from the device to pinned host
// memory is only queued on the stream; host code that reads the result
// before a synchronization reads memory the copy has not filled yet.
//   bad:   auto h = g.to(torch::kCPU, /*non_blocking=*/true);  read h
//          pinned.copy_(g, /*non_blocking=*/true);              read pinned
//   fixed: the same, with torch::cuda::synchronize() before the read
// Each trial first queues about 30 ms of matmuls (queue_gpu_work), so the
// copy waits behind them, as it does behind a training step. g holds
// 0..n-1 plus the trial number (a different content every trial); the
// pinned target of copy_ is set to -1 first. Measured: the elements read
// that differ from a blocking copy of g, over 5 trials.
// CPU: a copy to the host is done when to()/copy_() returns: SKIPPED.
#include "../measure.h"
#include "../scenario.h"

namespace harness {
namespace {

constexpr const char *kCheck = "torch-async-copy-read";

#ifdef HARNESS_HAS_CUDA
constexpr int64_t kN = int64_t{1} << 22; // 16 MiB of float
constexpr int kTrials = 5;
int64_t wrong(const torch::Tensor &host, const torch::Tensor &expected) {
  const float *p = host.data_ptr<float>(); // the read under test
  const float *e = expected.data_ptr<float>();
  int64_t n = 0;
  for (int64_t i = 0; i < kN; ++i)
    n += p[i] != e[i];
  return n;
}

struct Reads {
  int64_t to = 0, copy = 0;           // wrong elements, all trials
  int to_trials = 0, copy_trials = 0; // trials with a wrong element
  int64_t later_wrong = 0;            // wrong after a synchronize, bad only
};

Reads read_copies(const torch::Device &device, bool synchronize) {
  Reads out;
  auto pinned = torch::empty({kN}, torch::TensorOptions().pinned_memory(true));
  for (int trial = 0; trial < kTrials; ++trial) {
    auto g =
        torch::arange(
            kN, torch::TensorOptions().dtype(torch::kFloat32).device(device)) +
        trial;
    const auto expected = g.to(torch::kCPU); // blocking
    pinned.fill_(-1);

    queue_gpu_work(device, 30);
    auto h = g.to(torch::kCPU, /*non_blocking=*/true);
    if (synchronize)
      torch::cuda::synchronize();
    const int64_t to_wrong = wrong(h, expected);

    queue_gpu_work(device, 30);
    pinned.copy_(g, /*non_blocking=*/true);
    if (synchronize)
      torch::cuda::synchronize();
    const int64_t copy_wrong = wrong(pinned, expected);

    torch::cuda::synchronize();
    out.later_wrong += wrong(h, expected) + wrong(pinned, expected);
    out.to += to_wrong;
    out.copy += copy_wrong;
    out.to_trials += to_wrong > 0;
    out.copy_trials += copy_wrong > 0;
  }
  return out;
}

std::string shown(const Reads &r) {
  return "to(): " + std::to_string(r.to_trials) + "/" +
         std::to_string(kTrials) + " trials wrong (" + std::to_string(r.to) +
         " elements), copy_(): " + std::to_string(r.copy_trials) + "/" +
         std::to_string(kTrials) + " (" + std::to_string(r.copy) + ")";
}

Result run(const Context &ctx) {
  Result r;
  read_copies(ctx.device, true); // warm-up: pinned blocks, cuBLAS
  const Reads bad = read_copies(ctx.device, false);
  const Reads fixed = read_copies(ctx.device, true);
  r.metric("trials", kTrials);
  r.metric("elements", static_cast<double>(kN));
  r.metric("bad_to_wrong_elements", static_cast<double>(bad.to));
  r.metric("bad_copy_wrong_elements", static_cast<double>(bad.copy));
  r.metric("bad_wrong_after_sync", static_cast<double>(bad.later_wrong));
  r.metric("fixed_to_wrong_elements", static_cast<double>(fixed.to));
  r.metric("fixed_copy_wrong_elements", static_cast<double>(fixed.copy));
  r.bad_effect = shown(bad);
  r.fixed_effect = shown(fixed);
  if (bad.later_wrong)
    r.reason = "bad copies still wrong after a synchronize";
  return decide(r, bad.to_trials + bad.copy_trials > 0 && !bad.later_wrong,
                fixed.to + fixed.copy > 0);
}
#endif

Result run_on(const Context &ctx) {
  return cuda_only(kCheck, ctx,
                   "a copy to the CPU is complete when to() or "
                   "copy_() returns",
                   HARNESS_CUDA_ONLY(run));
}

} // namespace
HARNESS_REGISTER(kCheck,
                 "a non_blocking copy to the host is only queued: reading it "
                 "before a synchronize reads memory not yet filled",
                 run_on);
} // namespace harness
