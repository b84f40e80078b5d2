// torch-sync-in-loop: reading a CUDA tensor on the host (item(), to(kCPU),
// printing) inside a training loop forces a host-device synchronization on
// every iteration.
//   bad:   sum += loss.item<float>();          (every step)
//   fixed: total += loss.detach(); ... total.item<float>() once at the end
// Synchronizations are counted with c10's sync debug mode (L_WARN) and a
// warning handler; steps are timed with CUDA events. The verdict rests on
// the sync count; the timing is reported.
#include "../measure.h"
#include "../scenario.h"

namespace harness {
namespace {

#ifdef HARNESS_HAS_CUDA
struct Loop {
  torch::nn::Sequential model;
  std::unique_ptr<torch::optim::SGD> opt;
  torch::Tensor x, y;

  explicit Loop(const torch::Device& dev)
      : model(torch::nn::Linear(64, 64), torch::nn::ReLU(),
              torch::nn::Linear(64, 1)) {
    model->to(dev);
    opt = std::make_unique<torch::optim::SGD>(model->parameters(),
                                              torch::optim::SGDOptions(0.01));
    x = torch::randn({256, 64}, torch::TensorOptions().device(dev));
    y = torch::randn({256, 1}, torch::TensorOptions().device(dev));
  }
  torch::Tensor step() {
    opt->zero_grad();
    auto loss = torch::mse_loss(model->forward(x), y);
    loss.backward();
    opt->step();
    return loss;
  }
  // bad: one host read per step
  float run_bad(int steps) {
    float sum = 0;
    for (int i = 0; i < steps; ++i) sum += step().item<float>();
    return sum;
  }
  // fixed: accumulate on the device, read once
  float run_fixed(int steps) {
    auto total = torch::zeros({}, x.options());
    for (int i = 0; i < steps; ++i) total += step().detach();
    return total.item<float>();
  }
};

Result run(const Context& ctx) {
  Result r;
  const int steps = ctx.steps;
  Loop loop(ctx.device);
  loop.run_bad(2);  // warm-up (cuBLAS handles, allocator)
  loop.run_fixed(2);

  int64_t bad_syncs = 0, fixed_syncs = 0;
  {
    SyncCounter counter;
    loop.run_bad(steps);
    bad_syncs = counter.count();
  }
  {
    SyncCounter counter;
    loop.run_fixed(steps);
    fixed_syncs = counter.count();
  }

  // Timing (outside the sync debug mode): median over repetitions of the
  // GPU-timeline time of a whole loop, divided by the number of steps.
  std::vector<double> bad_ms, fixed_ms;
  for (int rep = 0; rep < 5; ++rep) {
    bad_ms.push_back(cuda_time_ms([&] { loop.run_bad(steps); }) / steps);
    fixed_ms.push_back(cuda_time_ms([&] { loop.run_fixed(steps); }) / steps);
  }
  const double bad_step = median(bad_ms), fixed_step = median(fixed_ms);
  const double slowdown = fixed_step > 0 ? bad_step / fixed_step : 0;

  r.metric("steps", steps);
  r.metric("bad_syncs", static_cast<double>(bad_syncs));
  r.metric("fixed_syncs", static_cast<double>(fixed_syncs));
  r.metric("bad_ms_per_step", bad_step);
  r.metric("fixed_ms_per_step", fixed_step);
  r.metric("slowdown", slowdown);
  r.bad_effect = std::to_string(bad_syncs) + " syncs / " +
                 std::to_string(steps) + " steps, " + fmt(bad_step) +
                 " ms/step";
  r.fixed_effect = std::to_string(fixed_syncs) + " sync(s), " +
                   fmt(fixed_step) + " ms/step (x" + fmt(slowdown, 2) + ")";
  return decide(r, bad_syncs >= steps, fixed_syncs > 1);
}
#endif

Result run_on(const Context& ctx) {
  return cuda_only("torch-sync-in-loop", ctx,
                   "host-device synchronization does not exist "
                   "on CPU",
                   HARNESS_CUDA_ONLY(run));
}

}  // namespace
HARNESS_REGISTER("torch-sync-in-loop",
                 "item()/host reads of CUDA tensors in a loop synchronize "
                 "host and device on every iteration",
                 run_on);
}  // namespace harness
