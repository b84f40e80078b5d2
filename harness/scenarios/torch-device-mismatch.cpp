// torch-device-mismatch: an op whose operands are a CPU tensor and a tensor
// on the GPU throws "Expected all tensors to be on the same device".
//   bad:   auto noise = torch::randn({n});          x_cuda + noise
//          model->to(device); model->forward(cpu_batch)
//   fixed: auto noise = torch::randn({n}, x.options());
//          model->forward(cpu_batch.to(device))
// Each variant runs in a child process (harness/child.h), so that whatever
// happens there is a measured outcome. The allowed mix (a 0-dim CPU tensor
// with a CUDA tensor) runs too: it must not throw, or the check's
// exemption would be wrong.
// CPU: every tensor is on the CPU, so the mismatch cannot happen: SKIPPED.
#include "../child.h"
#include "../measure.h"
#include "../scenario.h"

namespace harness {
namespace {

constexpr const char* kCheck = "torch-device-mismatch";

// The flagged patterns: a factory without a device meets a device tensor,
// and a module on the device is fed a CPU batch.
int bad(const torch::Device& device) {
  auto x = torch::randn({64, 16}, torch::TensorOptions().device(device));
  auto noise = torch::randn({64, 16});
  Outcome op = capture([&] { (x + noise).sum().item<float>(); });
  torch::nn::Linear model(16, 4);
  model->to(device);
  auto batch = torch::randn({8, 16});
  Outcome fwd = capture([&] { model->forward(batch).sum().item<float>(); });
  std::cout << "op_threw=" << op.threw << "\nop_message="
            << first_line(op.message, 200) << "\nforward_threw=" << fwd.threw
            << "\nforward_message=" << first_line(fwd.message, 200) << "\n";
  return 0;
}

// The fixes, and the mix ATen allows.
int fixed(const torch::Device& device) {
  auto x = torch::randn({64, 16}, torch::TensorOptions().device(device));
  auto noise = torch::randn({64, 16}, x.options());
  auto y = x + noise;
  torch::nn::Linear model(16, 4);
  model->to(device);
  auto batch = torch::randn({8, 16});
  auto out = model->forward(batch.to(device));
  auto scaled = x * torch::tensor(2.0);  // a 0-dim CPU tensor is a scalar
  std::cout << "op_device=" << y.device().str()
            << "\nforward_device=" << out.device().str()
            << "\nscalar_device=" << scaled.device().str() << "\n";
  return 0;
}

HARNESS_REGISTER_CHILD("torch-device-mismatch/bad", bad);
HARNESS_REGISTER_CHILD("torch-device-mismatch/fixed", fixed);

Result run(const Context& ctx) {
  if (!ctx.is_cuda())
    return skipped(kCheck, ctx,
                   "needs CUDA: on the CPU every tensor is on one device, so "
                   "the mismatch cannot happen");
  Result r;
  ChildResult b = run_child("torch-device-mismatch/bad", ctx.device);
  ChildResult f = run_child("torch-device-mismatch/fixed", ctx.device);
  auto mismatch = [](const std::string& msg) {
    return contains_ci(msg, "same device");
  };
  const bool op_err = b.value("op_threw") == "1" &&
                      mismatch(b.value("op_message"));
  const bool fwd_err = b.value("forward_threw") == "1" &&
                       mismatch(b.value("forward_message"));
  const bool fixed_ok = f.exited && f.exit_code == 0 &&
                        f.value("op_device").rfind("cuda", 0) == 0 &&
                        f.value("forward_device").rfind("cuda", 0) == 0 &&
                        f.value("scalar_device").rfind("cuda", 0) == 0;
  r.metric("bad_op_threw_mismatch", op_err);
  r.metric("bad_forward_threw_mismatch", fwd_err);
  r.metric("fixed_ran_on_device", fixed_ok);
  r.bad_effect = b.exited ? (op_err && fwd_err
                                 ? "op and forward threw: " +
                                       first_line(b.value("op_message"), 50)
                                 : "op threw: " + b.value("op_threw") +
                                       ", forward threw: " +
                                       b.value("forward_threw"))
                          : "child " + b.describe();
  r.fixed_effect = fixed_ok ? "ran on " + f.value("op_device") +
                                  " (0-dim CPU scalar accepted)"
                            : "child " + f.describe() + " " +
                                  f.value("message");
  return decide(r, op_err && fwd_err, !fixed_ok);
}

}  // namespace
HARNESS_REGISTER(kCheck,
                 "a CPU tensor (not 0-dim) meeting a CUDA tensor, or fed to a "
                 "module on the GPU, throws 'Expected all tensors to be on "
                 "the same device'",
                 run);
}  // namespace harness
