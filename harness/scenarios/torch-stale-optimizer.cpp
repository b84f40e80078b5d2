// torch-stale-optimizer: an optimizer holds the parameter tensors it was
// built from. Replacing the model afterwards (model = Net(), loading a
// clone) leaves the optimizer stepping the old, unused tensors.
//   bad:   opt built from model->parameters(); model = Net(); train
//   fixed: model = Net(); opt rebuilt from the new model->parameters(); train
// Measured: norm of the change of the parameters forward() uses after K
// optimizer steps -- 0 in bad, > 0 in fixed. Same on CPU and CUDA.
#include "../measure.h"
#include "../scenario.h"

namespace harness {
namespace {

// Trains `model` with `opt` for `steps` steps; returns how far the
// parameters the model's forward() uses moved.
double train(torch::nn::Linear& model, torch::optim::Optimizer& opt,
             const torch::Device& dev, int steps) {
  auto x = torch::randn({16, 8}, torch::TensorOptions().device(dev));
  auto y = torch::randn({16, 1}, torch::TensorOptions().device(dev));
  auto before = snapshot(model->parameters());
  for (int i = 0; i < steps; ++i) {
    opt.zero_grad();
    torch::mse_loss(model->forward(x), y).backward();
    opt.step();
  }
  return diff_norm(model->parameters(), before);
}

Result run(const Context& ctx) {
  Result r;
  const auto dev = ctx.device;
  const auto sgd = torch::optim::SGDOptions(0.1);

  // bad: optimizer built, then the model replaced
  torch::nn::Linear bad_model(8, 1);
  bad_model->to(dev);
  torch::optim::SGD bad_opt(bad_model->parameters(), sgd);
  bad_model = torch::nn::Linear(8, 1);  // replaced after the optimizer
  bad_model->to(dev);
  const double bad = train(bad_model, bad_opt, dev, ctx.steps);

  // fixed: optimizer (re)built from the model that is actually used
  torch::nn::Linear fixed_model(8, 1);
  fixed_model->to(dev);
  fixed_model = torch::nn::Linear(8, 1);
  fixed_model->to(dev);
  torch::optim::SGD fixed_opt(fixed_model->parameters(), sgd);
  const double fixed = train(fixed_model, fixed_opt, dev, ctx.steps);

  r.metric("steps", ctx.steps);
  r.metric("bad_param_change", bad);
  r.metric("fixed_param_change", fixed);
  r.bad_effect = "used params moved " + fmt(bad) + " in " +
                 std::to_string(ctx.steps) + " steps";
  r.fixed_effect = "used params moved " + fmt(fixed);
  return decide(r, bad == 0.0, fixed == 0.0);
}

}  // namespace
HARNESS_REGISTER("torch-stale-optimizer",
                 "an optimizer keeps the parameter tensors it was built from; "
                 "a replaced model is never updated",
                 run);
}  // namespace harness
