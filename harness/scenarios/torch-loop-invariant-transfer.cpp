// torch-loop-invariant-transfer: w.to(device) (or w.cuda()) inside a
// training loop, of a host tensor the loop never changes, copies the same
// data from the host to the device on every step.
//   bad:   for (...) step(w.to(device));
//   fixed: auto w_dev = w.to(device); for (...) step(w_dev);
// The host-to-device copies are counted (aten::copy_ calls and their bytes,
// CopyCounter) in the loop; steps are timed with CUDA events. The verdict
// rests on the bytes per step; the timing is reported.
// CPU: to(kCPU) of a CPU tensor returns the tensor itself, nothing is
// copied: SKIPPED.
#include "../measure.h"
#include "../scenario.h"

namespace harness {
namespace {

constexpr const char *kCheck = "torch-loop-invariant-transfer";

#ifdef HARNESS_HAS_CUDA
struct Loop {
  torch::Device device;
  torch::nn::Linear model{2048, 64};
  std::unique_ptr<torch::optim::SGD> opt;
  torch::Tensor x;
  torch::Tensor w = torch::randn({2048, 2048}) / 45.0; // 16 MiB, on the host

  explicit Loop(const torch::Device &dev) : device(dev) {
    model->to(dev);
    opt = std::make_unique<torch::optim::SGD>(model->parameters(),
                                              torch::optim::SGDOptions(0.01));
    x = torch::randn({256, 2048}, torch::TensorOptions().device(dev));
  }
  void step(const torch::Tensor &w_dev) {
    opt->zero_grad();
    auto loss = model->forward(x.mm(w_dev)).pow(2).mean();
    loss.backward();
    opt->step();
  }
  // bad: the same host tensor crosses to the device on every step
  void run_bad(int steps) {
    for (int i = 0; i < steps; ++i)
      step(w.to(device));
  }
  // fixed: hoisted; w_dev is made once, before the loop
  void run_fixed(const torch::Tensor &w_dev, int steps) {
    for (int i = 0; i < steps; ++i)
      step(w_dev);
  }
};

Result run(const Context &ctx) {
  Result r;
  const int steps = ctx.steps;
  Loop loop(ctx.device);
  const double w_bytes = static_cast<double>(loop.w.nbytes());
  CopyTally hoist, bad, fixed;
  torch::Tensor w_dev;
  {
    CopyCounter copies;
    w_dev = loop.w.to(ctx.device);
    hoist = copies.host_to_device();
  }
  loop.run_bad(2); // warm-up (cuBLAS handles, allocator)
  loop.run_fixed(w_dev, 2);
  {
    CopyCounter copies;
    loop.run_bad(steps);
    bad = copies.host_to_device();
  }
  {
    CopyCounter copies;
    loop.run_fixed(w_dev, steps);
    fixed = copies.host_to_device();
  }

  std::vector<double> bad_ms, fixed_ms;
  for (int rep = 0; rep < 5; ++rep) {
    bad_ms.push_back(cuda_time_ms([&] { loop.run_bad(steps); }) / steps);
    fixed_ms.push_back(cuda_time_ms([&] { loop.run_fixed(w_dev, steps); }) /
                       steps);
  }
  const double bad_step = median(bad_ms), fixed_step = median(fixed_ms);
  const double bad_per_step = static_cast<double>(bad.bytes) / steps;
  const double fixed_per_step = static_cast<double>(fixed.bytes) / steps;

  r.metric("steps", steps);
  r.metric("w_bytes", w_bytes);
  r.metric("bad_h2d_copies", static_cast<double>(bad.copies));
  r.metric("bad_h2d_bytes_per_step", bad_per_step);
  r.metric("fixed_h2d_copies", static_cast<double>(fixed.copies));
  r.metric("fixed_h2d_bytes_per_step", fixed_per_step);
  r.metric("hoisted_h2d_bytes", static_cast<double>(hoist.bytes));
  r.metric("bad_ms_per_step", bad_step);
  r.metric("fixed_ms_per_step", fixed_step);
  r.bad_effect = std::to_string(bad.copies) + " H2D copies / " +
                 std::to_string(steps) + " steps, " + fmt_bytes(bad_per_step) +
                 "/step, " + fmt(bad_step) + " ms/step";
  r.fixed_effect = fmt_bytes(fixed_per_step) + "/step (" +
                   fmt_bytes(static_cast<double>(hoist.bytes)) +
                   " once before the loop), " + fmt(fixed_step) + " ms/step";
  return decide(r, bad.copies >= steps && bad_per_step >= w_bytes,
                fixed_per_step >= w_bytes / 2);
}
#endif

Result run_on(const Context &ctx) {
  return cuda_only(kCheck, ctx,
                   "to(kCPU) of a CPU tensor returns the tensor "
                   "itself, nothing crosses to a device",
                   HARNESS_CUDA_ONLY(run));
}

} // namespace
HARNESS_REGISTER(kCheck,
                 "to(device) of a tensor the loop never changes copies the "
                 "same bytes from host to device on every iteration",
                 run_on);
} // namespace harness
