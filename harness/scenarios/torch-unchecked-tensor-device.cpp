// torch-unchecked-tensor-device: a host function that hands a tensor's
// data_ptr() to a kernel without checking that the tensor is on a CUDA
// device. Given a CPU tensor, the kernel dereferences a host address: an
// illegal memory access, reported at a later call, after which the CUDA
// context is unusable. Where the GPU can read pageable host memory (HMM,
// ATS) it may instead read the right values.
//   bad:   kernels::copy(a.data_ptr<float>(), out.data_ptr<float>(), n);
//   fixed: TORCH_CHECK(a.is_cuda(), "a must be a CUDA tensor", ...);
//          then the same
// Both run in a child process (harness/child.h) with a CPU tensor of 0..n-1:
// the bad kernel's fault would break every later CUDA call of the harness.
// Measured: the error each variant reports (a CUDA error or the
// TORCH_CHECK's c10::Error), whether the copy read the right values,
// whether a CUDA operation still works afterwards, and the device's
// cudaDevAttrPageableMemoryAccess.
// CPU: no kernel, no device memory: SKIPPED. Built without nvcc: SKIPPED.
#include "../scenario.h"
#include "cuda_kernels.h"

#ifdef HARNESS_HAS_CUDA_KERNELS
#include "../child.h"
#include "../measure.h"
#endif

namespace harness {
namespace {

constexpr const char *kCheck = "torch-unchecked-tensor-device";

#ifdef HARNESS_HAS_CUDA_KERNELS
constexpr int64_t kN = 1 << 16;
constexpr const char *kCheckMessage = "a must be a CUDA tensor";

// The flagged function: a's memory goes to the kernel, its device unchecked.
torch::Tensor copy_unchecked(const torch::Tensor &a,
                             const torch::Device &device) {
  auto out = torch::empty({a.numel()}, a.options().device(device));
  kernels::copy(a.data_ptr<float>(), out.data_ptr<float>(), a.numel());
  return out;
}

// The fix: the device is checked before the memory is handed out.
torch::Tensor copy_checked(const torch::Tensor &a,
                           const torch::Device &device) {
  TORCH_CHECK(a.is_cuda(), kCheckMessage, ", got a tensor on ", a.device());
  auto out = torch::empty({a.numel()}, a.options().device(device));
  kernels::copy(a.data_ptr<float>(), out.data_ptr<float>(), a.numel());
  return out;
}

int child(const torch::Device &device, bool checked) {
  std::cout << "pageable_access=" << kernels::pageable_memory_access()
            << std::endl;
  const auto a = torch::arange(kN, torch::kFloat32); // on the CPU, by mistake
  bool correct = false;
  Outcome o = capture([&] {
    auto out = checked ? copy_checked(a, device) : copy_unchecked(a, device);
    correct = torch::equal(out.cpu(), a); // waits for the kernel
  });
  std::cout << "error=" << o.threw << "\nmessage=" << first_line(o.message, 160)
            << "\ncorrect=" << correct << std::endl;
  Outcome later = capture([&] {
    torch::ones({4}, device).sum().item<float>();
    torch::cuda::synchronize();
  });
  std::cout << "context_ok=" << !later.threw
            << "\nlater_message=" << first_line(later.message, 160)
            << std::endl;
  return 0;
}

HARNESS_REGISTER_CHILD("torch-unchecked-tensor-device/bad",
                       [](const torch::Device &d) { return child(d, false); });
HARNESS_REGISTER_CHILD("torch-unchecked-tensor-device/fixed",
                       [](const torch::Device &d) { return child(d, true); });

bool cuda_error(const ChildResult &c) {
  return c.value("error") == "1" &&
         contains_ci(c.value("message"), "CUDA error");
}

// The effect: a fault (a CUDA error, a crash) or wrong values.
bool faulted_or_wrong(const ChildResult &c) {
  if (c.value("error").empty())
    return true; // died before reporting
  return cuda_error(c) || c.value("context_ok") != "1" ||
         (c.value("error") == "0" && c.value("correct") != "1");
}

std::string shown(const ChildResult &c) {
  return kernels::describe_kernel_child(c, "read the right values",
                                        "read wrong values");
}

Result run(const Context &ctx) {
  Result r;
  const ChildResult bad =
      run_child(std::string(kCheck) + "/bad", ctx.device, 60);
  const ChildResult fixed =
      run_child(std::string(kCheck) + "/fixed", ctx.device, 60);
  const bool fixed_clean = fixed.value("error") == "1" &&
                           contains_ci(fixed.value("message"), kCheckMessage) &&
                           fixed.value("context_ok") == "1";
  const std::string pageable = bad.value("pageable_access");
  r.metric("pageable_memory_access", pageable == "1");
  r.metric("bad_cuda_error", cuda_error(bad));
  r.metric("bad_correct", bad.value("correct") == "1");
  r.metric("bad_context_ok", bad.value("context_ok") == "1");
  r.metric("bad_signal", bad.signal);
  r.metric("fixed_cuda_error", cuda_error(fixed));
  r.metric("fixed_context_ok", fixed.value("context_ok") == "1");
  r.bad_effect = shown(bad);
  r.fixed_effect = shown(fixed);
  const bool bad_effect = faulted_or_wrong(bad);
  if (!bad_effect && pageable == "1")
    r.reason = "the GPU read the CPU tensor's pageable host memory: "
               "cudaDevAttrPageableMemoryAccess is 1 (HMM or ATS)";
  return decide(r, bad_effect, !fixed_clean);
}
#endif

Result run_on(const Context &ctx) {
  return cuda_only(kCheck, ctx,
                   "on a CPU every tensor's data_ptr() is host memory, "
                   "and there is no kernel to hand it to",
                   HARNESS_KERNELS_ONLY(kCheck, run));
}

} // namespace
HARNESS_REGISTER(kCheck,
                 "a kernel handed a CPU tensor's data_ptr() reads a host "
                 "address: an illegal memory access that breaks the CUDA "
                 "context",
                 run_on);
} // namespace harness
