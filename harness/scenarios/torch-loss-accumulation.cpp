// torch-loss-accumulation: storing a loss that requires grad across
// iterations (losses.push_back(loss), total = total + loss) keeps every
// step's autograd graph -- nodes and the activations they saved -- alive.
//   bad:   losses.push_back(loss);          fixed: losses.push_back(loss.detach());
// The loop is an evaluation/monitoring loop: the loss is computed but
// backward() is not run on it, so the graph would be freed right away
// unless something keeps the loss.
// CUDA: allocator bytes currently allocated grow per step in bad; in fixed
//       only the detached scalars stay (one 512-byte block each).
// CPU:  the autograd nodes reachable from the stored losses grow by the
//       nodes of one step per step in bad; fixed retains none.
#include "../measure.h"
#include "../scenario.h"

namespace harness {
namespace {

// A step keeps > this many bytes on the device beyond the stored scalar
// (a detached 0-dim loss costs one 512-byte allocator block).
#ifdef HARNESS_HAS_CUDA
constexpr double kRetainedBytesThreshold = 4096;
#endif

struct Eval {
  torch::nn::Sequential model;
  torch::Tensor x, y;
  explicit Eval(const torch::Device& dev)
      : model(torch::nn::Linear(256, 1024), torch::nn::ReLU(),
              torch::nn::Linear(1024, 1)) {
    model->to(dev);
    x = torch::randn({256, 256}, torch::TensorOptions().device(dev));
    y = torch::randn({256, 1}, torch::TensorOptions().device(dev));
  }
  torch::Tensor loss() { return torch::mse_loss(model->forward(x), y); }
};

// Runs `steps` steps storing the loss (detached or not); `probe` is called
// after steps/2 and after all steps with the stored losses.
template <typename Probe>
void run_loop(Eval& e, int steps, bool detach, Probe probe) {
  std::vector<torch::Tensor> losses;
  for (int i = 1; i <= steps; ++i) {
    auto loss = e.loss();
    losses.push_back(detach ? loss.detach() : loss);  // the flagged line
    if (i == steps / 2 || i == steps) probe(i, losses);
  }
}

// Growth per step between the two probes.
template <typename Measure>
double per_step(Eval& e, int steps, bool detach, Measure measure) {
  double at_half = 0, at_end = 0;
  int half = 0;
  run_loop(e, steps, detach, [&](int i, const std::vector<torch::Tensor>& l) {
    double v = measure(l);
    if (i == steps) {
      at_end = v;
    } else {
      at_half = v;
      half = i;
    }
  });
  return (at_end - at_half) / (steps - half);
}

Result run(const Context& ctx) {
  Result r;
  Eval e(ctx.device);
  const int steps = std::max(ctx.steps, 2);
  r.metric("steps", steps);
#ifdef HARNESS_HAS_CUDA
  if (ctx.is_cuda()) {
    per_step(e, 2, true, [&](const auto&) { return 0.0; });  // warm-up
    auto bytes = [&](const std::vector<torch::Tensor>&) {
      return static_cast<double>(cuda_allocated_bytes(ctx.device));
    };
    const double bad = per_step(e, steps, false, bytes);
    const double fixed = per_step(e, steps, true, bytes);
    r.metric("bad_bytes_per_step", bad);
    r.metric("fixed_bytes_per_step", fixed);
    r.bad_effect = "+" + fmt(bad, 6) + " bytes/step allocated";
    r.fixed_effect = "+" + fmt(fixed, 6) + " bytes/step allocated";
    return decide(r, bad > kRetainedBytesThreshold,
                  fixed > kRetainedBytesThreshold);
  }
#endif
  auto nodes = [](const std::vector<torch::Tensor>& l) {
    return static_cast<double>(count_graph_nodes(l));
  };
  const double bad = per_step(e, steps, false, nodes);
  const double fixed = per_step(e, steps, true, nodes);
  size_t bad_total = 0;
  run_loop(e, steps, false, [&](int i, const std::vector<torch::Tensor>& l) {
    if (i == steps) bad_total = count_graph_nodes(l);
  });
  r.metric("bad_nodes_per_step", bad);
  r.metric("fixed_nodes_per_step", fixed);
  r.metric("bad_nodes_retained", static_cast<double>(bad_total));
  r.bad_effect = std::to_string(bad_total) + " graph nodes kept, +" +
                 fmt(bad) + "/step";
  r.fixed_effect = "+" + fmt(fixed) + " graph nodes/step";
  return decide(r, bad >= 1, fixed >= 1);
}

}  // namespace
HARNESS_REGISTER("torch-loss-accumulation",
                 "a stored loss that requires grad keeps its step's autograd "
                 "graph (and saved activations) alive",
                 run);
}  // namespace harness
