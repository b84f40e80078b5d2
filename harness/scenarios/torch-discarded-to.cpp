// torch-discarded-to: Tensor::to() returns a new tensor; calling it as a
// statement leaves the original tensor where (and what) it was.
//   bad:   x.to(device);        fixed: x = x.to(device);
// CUDA: the model's weights are on the GPU, x stays on the CPU, forward()
//       throws "Expected all tensors to be on the same device".
// CPU:  the same with a dtype: x.to(kFloat64) in front of a float64 model
//       leaves x float32 and forward() throws a dtype mismatch.
#include "../measure.h"
#include "../scenario.h"

namespace harness {
namespace {

Result run(const Context& ctx) {
  Result r;
  torch::nn::Linear model(8, 4);
  const bool cuda = ctx.is_cuda();
  // What the call should have changed: the device on CUDA, the dtype on CPU.
  auto convert = [&](const torch::Tensor& t) {
    return cuda ? t.to(ctx.device) : t.to(torch::kFloat64);
  };
  if (cuda)
    model->to(ctx.device);
  else
    model->to(torch::kFloat64);
  auto effect_seen = [&](const Outcome& o) {
    if (!o.threw) return false;
    return cuda ? contains_ci(o.message, "same device")
                : (contains_ci(o.message, "dtype") ||
                   contains_ci(o.message, "scalar type"));
  };

  // bad: the converted tensor is discarded
  torch::Tensor x = torch::randn({2, 8});
  convert(x);  // the flagged pattern: result of to() discarded
  if (cuda)
    r.metric("bad_input_on_cuda", x.is_cuda());
  else
    r.metric("bad_input_is_float64", x.scalar_type() == torch::kFloat64);
  Outcome bad = capture([&] { model->forward(x); });

  // fixed: the result is assigned back
  torch::Tensor y = torch::randn({2, 8});
  y = convert(y);
  torch::Tensor out;
  Outcome fixed = capture([&] { out = model->forward(y); });
  const bool fixed_ok = !fixed.threw && out.defined() &&
                        (cuda ? out.is_cuda()
                              : out.scalar_type() == torch::kFloat64);

  const std::string what = cuda ? "device" : "dtype";
  r.bad_effect = bad.threw ? "forward threw: " + first_line(bad.message, 60)
                           : "forward ran (no " + what + " error)";
  r.fixed_effect = fixed.threw
                       ? "forward threw: " + first_line(fixed.message, 60)
                       : (fixed_ok ? "forward ran, output " +
                                         (cuda ? out.device().str()
                                               : std::string("float64"))
                                   : "forward ran, wrong output " + what);
  r.metric("bad_threw_" + what + "_error", effect_seen(bad));
  r.metric("fixed_ran", fixed_ok);
  if (bad.threw && !effect_seen(bad))
    r.reason = "bad threw, but not a " + what + " error: " +
               first_line(bad.message, 120);
  return decide(r, effect_seen(bad), !fixed_ok);
}

}  // namespace
HARNESS_REGISTER("torch-discarded-to",
                 "Tensor::to() does not convert in place: a discarded result "
                 "leaves the tensor on its old device/dtype",
                 run);
}  // namespace harness
