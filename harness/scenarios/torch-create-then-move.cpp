// torch-create-then-move: torch::zeros({n}).to(device) and
// torch::randn({n}).cuda() allocate and fill the tensor in host memory,
// then copy all of it to the device; created with the device in its
// options, it is allocated and filled on the device and nothing crosses.
//   bad:   torch::zeros({n}).to(device);  torch::randn({n}).cuda();
//   fixed: torch::zeros({n}, torch::device(device));
//          torch::randn({n}, torch::device(device));
// The host-to-device copies are counted (aten::copy_ calls and their bytes,
// CopyCounter) per created tensor; each creation is timed on the wall clock
// up to a device synchronization. The verdict rests on the bytes; the
// timing is reported.
// CPU: there is no device to copy to: SKIPPED.
#include <chrono>

#include "../measure.h"
#include "../scenario.h"

namespace harness {
namespace {

constexpr const char *kCheck = "torch-create-then-move";

#ifdef HARNESS_HAS_CUDA
constexpr int64_t kN = int64_t{1} << 22; // 16 MiB of float per tensor
// Two tensors per call: zeros and randn.
void create_bad(const torch::Device &device) {
  auto z = torch::zeros({kN}).to(device);
  auto g = torch::randn({kN}).cuda(); // the current CUDA device
}
void create_fixed(const torch::Device &device) {
  auto z = torch::zeros({kN}, torch::device(device));
  auto g = torch::randn({kN}, torch::device(device));
}

// Wall-clock milliseconds per created tensor, median of 5 runs of `reps`
// calls, each run ending with a device synchronization.
double ms_per_tensor(const std::function<void()> &create, int reps) {
  std::vector<double> ms;
  for (int run = 0; run < 5; ++run) {
    torch::cuda::synchronize();
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < reps; ++i)
      create();
    torch::cuda::synchronize();
    const auto t1 = std::chrono::steady_clock::now();
    ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count() /
                 (2.0 * reps));
  }
  return median(ms);
}

Result run(const Context &ctx) {
  Result r;
  const torch::Device device = ctx.device;
  const int reps = ctx.steps;
  const double n_bytes = static_cast<double>(kN * sizeof(float));
  create_bad(device); // warm-up (allocator, generators)
  create_fixed(device);
  CopyTally bad, fixed;
  {
    CopyCounter copies;
    for (int i = 0; i < reps; ++i)
      create_bad(device);
    bad = copies.host_to_device();
  }
  {
    CopyCounter copies;
    for (int i = 0; i < reps; ++i)
      create_fixed(device);
    fixed = copies.host_to_device();
  }
  const double bad_ms = ms_per_tensor([&] { create_bad(device); }, reps);
  const double fixed_ms = ms_per_tensor([&] { create_fixed(device); }, reps);
  const double created = 2.0 * reps;
  const double bad_per = bad.bytes / created, fixed_per = fixed.bytes / created;

  r.metric("tensors", created);
  r.metric("tensor_bytes", n_bytes);
  r.metric("bad_h2d_copies", static_cast<double>(bad.copies));
  r.metric("bad_h2d_bytes_per_tensor", bad_per);
  r.metric("fixed_h2d_copies", static_cast<double>(fixed.copies));
  r.metric("fixed_h2d_bytes_per_tensor", fixed_per);
  r.metric("bad_ms_per_tensor", bad_ms);
  r.metric("fixed_ms_per_tensor", fixed_ms);
  r.bad_effect = std::to_string(bad.copies) + " H2D copies / " + fmt(created) +
                 " tensors, " + fmt_bytes(bad_per) + "/tensor, " + fmt(bad_ms) +
                 " ms/tensor";
  r.fixed_effect = std::to_string(fixed.copies) + " H2D copies, " +
                   fmt_bytes(fixed_per) + "/tensor, " + fmt(fixed_ms) +
                   " ms/tensor";
  return decide(r, bad.copies >= created && bad_per >= n_bytes,
                fixed_per >= n_bytes / 2);
}
#endif

Result run_on(const Context &ctx) {
  return cuda_only(kCheck, ctx,
                   "on the CPU the tensor is created where it "
                   "lives, nothing is copied",
                   HARNESS_CUDA_ONLY(run));
}

} // namespace
HARNESS_REGISTER(kCheck,
                 "a factory without the device fills the tensor on the host "
                 "and to(device) then copies all of it across",
                 run_on);
} // namespace harness
