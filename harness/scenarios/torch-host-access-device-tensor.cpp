// torch-host-access-device-tensor: host code that reads a CUDA tensor's
// memory through data_ptr() or accessor() reads device addresses: it
// crashes, or reads values that are not the tensor's.
//   bad:   const float *p = t_cuda.data_ptr<float>();  sum += p[i];
//          auto a = t_cuda.accessor<float, 1>();       sum += a[i];
//   fixed: auto host = t_cuda.cpu(); const float *p = host.data_ptr<float>();
// Each read runs in a child process (harness/child.h): a segmentation fault
// there is the measured effect, and the harness goes on.
// CPU: a CPU tensor's data_ptr() is host memory: SKIPPED.
#include "../child.h"
#include "../measure.h"
#include "../scenario.h"

namespace harness {
namespace {

constexpr const char* kCheck = "torch-host-access-device-tensor";
constexpr int64_t kN = 1 << 16;
// sum of 0 .. kN-1
constexpr double kExpected = static_cast<double>(kN) * (kN - 1) / 2;

torch::Tensor ramp(const torch::Device& device) {
  return torch::arange(kN, torch::TensorOptions().dtype(torch::kFloat64)
                               .device(device));
}

int bad_pointer(const torch::Device& device) {
  auto t = ramp(device);
  torch::cuda::synchronize();
  const double* p = t.data_ptr<double>();  // the flagged pattern
  std::cout << "started=1" << std::endl;
  double sum = 0;
  for (int64_t i = 0; i < kN; ++i) sum += p[i];
  std::cout << "sum=" << fmt(sum, 15) << "\ncorrect=" << (sum == kExpected)
            << "\n";
  return 0;
}

int bad_accessor(const torch::Device& device) {
  auto t = ramp(device);
  torch::cuda::synchronize();
  auto a = t.accessor<double, 1>();  // the flagged pattern
  std::cout << "started=1" << std::endl;
  double sum = 0;
  for (int64_t i = 0; i < kN; ++i) sum += a[i];
  std::cout << "sum=" << fmt(sum, 15) << "\ncorrect=" << (sum == kExpected)
            << "\n";
  return 0;
}

int fixed(const torch::Device& device) {
  auto host = ramp(device).cpu();
  const double* p = host.data_ptr<double>();
  double sum = 0;
  for (int64_t i = 0; i < kN; ++i) sum += p[i];
  std::cout << "sum=" << fmt(sum, 15) << "\ncorrect=" << (sum == kExpected)
            << "\n";
  return 0;
}

HARNESS_REGISTER_CHILD("torch-host-access-device-tensor/bad-pointer",
                       bad_pointer);
HARNESS_REGISTER_CHILD("torch-host-access-device-tensor/bad-accessor",
                       bad_accessor);
HARNESS_REGISTER_CHILD("torch-host-access-device-tensor/fixed", fixed);

// The effect: the child crashed, or it read something other than the sum.
bool wrong_read(const ChildResult& c) {
  if (c.signal || c.timed_out) return true;
  if (!c.exited || c.exit_code != 0) return c.value("started") == "1";
  return c.value("correct") != "1";
}

std::string shown(const ChildResult& c) {
  if (c.exited && c.exit_code == 0) return "sum " + c.value("sum");
  return c.describe();
}

Result run(const Context& ctx) {
  if (!ctx.is_cuda())
    return skipped(kCheck, ctx,
                   "needs CUDA: a CPU tensor's data_ptr() is host memory, "
                   "reading it is correct");
  Result r;
  ChildResult ptr = run_child(std::string(kCheck) + "/bad-pointer", ctx.device);
  ChildResult acc = run_child(std::string(kCheck) + "/bad-accessor", ctx.device);
  ChildResult fix = run_child(std::string(kCheck) + "/fixed", ctx.device);
  const bool bad = wrong_read(ptr) && wrong_read(acc);
  const bool fixed_wrong =
      !fix.exited || fix.exit_code != 0 || fix.value("correct") != "1";
  r.metric("bad_pointer_signal", ptr.signal);
  r.metric("bad_accessor_signal", acc.signal);
  r.metric("fixed_correct", !fixed_wrong);
  r.bad_effect = "data_ptr: " + shown(ptr) + ", accessor: " + shown(acc) +
                 " (expected " + fmt(kExpected, 15) + ")";
  r.fixed_effect = ".cpu() copy: " + shown(fix);
  if (!ptr.error.empty()) r.reason = ptr.error;
  return decide(r, bad, fixed_wrong);
}

}  // namespace
HARNESS_REGISTER(kCheck,
                 "host code reading a CUDA tensor through data_ptr()/"
                 "accessor() crashes or reads wrong values",
                 run);
}  // namespace harness
