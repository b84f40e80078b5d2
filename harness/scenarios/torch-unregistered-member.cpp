// torch-unregistered-member: a tensor member of a torch::nn::Module that is
// not passed to register_parameter()/register_buffer() is invisible to the
// module: parameters(), to(), state_dict() and optimizers all skip it.
// CUDA: after module->to(cuda) the member is still on the CPU and forward()
//       throws "Expected all tensors to be on the same device"; the
//       registered version runs.
// CPU:  parameters() misses the member, so the optimizer never updates it:
//       bad member unchanged after K steps, registered member changed.
#include "../measure.h"
#include "../scenario.h"

namespace harness {
namespace {

struct ScaleImpl : torch::nn::Module {
  explicit ScaleImpl(bool registered) {
    bias = register_parameter("bias", torch::zeros({4}));
    auto init = torch::ones({4});
    if (registered)
      scale = register_parameter("scale", init);  // fixed
    else
      scale = init.requires_grad_();  // bad: a plain member
  }
  torch::Tensor forward(const torch::Tensor& x) { return x * scale + bias; }
  torch::Tensor scale, bias;
};
TORCH_MODULE(Scale);

struct Variant {
  bool threw = false;
  std::string message;
  std::string member_device;
  double change = 0;   // CPU: how far `scale` moved in training
  size_t params = 0;   // parameters() size
};

Variant run_variant(bool registered, const Context& ctx) {
  Variant v;
  Scale m(registered);
  m->to(ctx.device);
  v.member_device = m->scale.device().str();
  v.params = m->parameters().size();
  auto opts = torch::TensorOptions().device(ctx.device);
  auto x = torch::randn({8, 4}, opts), y = torch::randn({8, 4}, opts);
  if (ctx.is_cuda()) {
    Outcome o = capture([&] { m->forward(x); });
    v.threw = o.threw;
    v.message = o.message;
    return v;
  }
  auto before = m->scale.detach().clone();
  std::vector<torch::Tensor> params = m->parameters();
  // An optimizer gets what parameters() returns -- nothing, in bad.
  torch::optim::SGD opt(params, torch::optim::SGDOptions(0.1));
  for (int i = 0; i < ctx.steps; ++i) {
    opt.zero_grad();
    torch::mse_loss(m->forward(x), y).backward();
    opt.step();
  }
  v.change = (m->scale.detach() - before).norm().item<double>();
  return v;
}

Result run(const Context& ctx) {
  Result r;
  Variant bad = run_variant(false, ctx);
  Variant fixed = run_variant(true, ctx);
  r.metric("bad_parameters", static_cast<double>(bad.params));
  r.metric("fixed_parameters", static_cast<double>(fixed.params));
  if (ctx.is_cuda()) {
    const bool bad_effect = bad.threw && contains_ci(bad.message, "same device");
    r.metric("bad_threw_device_error", bad_effect);
    r.metric("fixed_ran", !fixed.threw);
    r.bad_effect = "member on " + bad.member_device + "; forward " +
                   (bad.threw ? "threw: " + first_line(bad.message, 50)
                              : std::string("ran"));
    r.fixed_effect = "member on " + fixed.member_device + "; forward " +
                     (fixed.threw ? "threw: " + first_line(fixed.message, 50)
                                  : std::string("ran"));
    return decide(r, bad_effect, fixed.threw);
  }
  r.metric("bad_member_change", bad.change);
  r.metric("fixed_member_change", fixed.change);
  r.bad_effect = std::to_string(bad.params) + " params; member moved " +
                 fmt(bad.change) + " in " + std::to_string(ctx.steps) +
                 " steps";
  r.fixed_effect = std::to_string(fixed.params) + " params; member moved " +
                   fmt(fixed.change);
  return decide(r, bad.change == 0.0, fixed.change == 0.0);
}

}  // namespace
HARNESS_REGISTER("torch-unregistered-member",
                 "an unregistered tensor member is skipped by parameters() "
                 "and Module::to()",
                 run);
}  // namespace harness
