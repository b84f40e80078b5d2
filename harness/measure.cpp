#include "measure.h"

#include <ATen/record_function.h>
#include <torch/version.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <unordered_set>

#ifdef HARNESS_HAS_CUDA
// Only c10/cuda headers and the CUDA runtime API: their names are the same
// in LibTorch 1.13 and 2.x (ATen's CUDAEvent moved to c10 in 2.x).
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAStream.h>
#include <c10/util/Exception.h>
#include <cuda_runtime_api.h>
#endif

namespace harness {

Outcome capture(const std::function<void()>& fn) {
  try {
    fn();
    return {};
  } catch (const c10::Error& e) {
    return {true, e.what_without_backtrace()};
  } catch (const std::exception& e) {
    return {true, e.what()};
  }
}

bool contains_ci(const std::string& haystack, const std::string& needle) {
  auto lower = [](std::string s) {
    std::transform(s.begin(), s.end(), s.begin(),
                   [](unsigned char c) { return std::tolower(c); });
    return s;
  };
  return lower(haystack).find(lower(needle)) != std::string::npos;
}

std::string first_line(const std::string& msg, size_t max_len) {
  std::string line = msg.substr(0, msg.find('\n'));
  if (line.size() > max_len) line = line.substr(0, max_len - 3) + "...";
  return line;
}

std::vector<torch::Tensor> snapshot(const std::vector<torch::Tensor>& params) {
  std::vector<torch::Tensor> out;
  for (const auto& p : params) out.push_back(p.detach().clone());
  return out;
}

double diff_norm(const std::vector<torch::Tensor>& params,
                 const std::vector<torch::Tensor>& before) {
  double sq = 0;
  for (size_t i = 0; i < params.size() && i < before.size(); ++i) {
    double n = (params[i].detach() - before[i]).norm().item<double>();
    sq += n * n;
  }
  return std::sqrt(sq);
}

size_t count_graph_nodes(const std::vector<torch::Tensor>& roots) {
  std::unordered_set<const torch::autograd::Node*> seen;
  std::vector<torch::autograd::Node*> stack;
  for (const auto& t : roots)
    if (t.defined() && t.grad_fn()) stack.push_back(t.grad_fn().get());
  size_t counted = 0;
  while (!stack.empty()) {
    torch::autograd::Node* n = stack.back();
    stack.pop_back();
    if (!seen.insert(n).second) continue;
    if (n->name().find("AccumulateGrad") == std::string::npos) ++counted;
    for (const auto& edge : n->next_edges())
      if (edge.function) stack.push_back(edge.function.get());
  }
  return counted;
}

bool built_with_cuda() {
#ifdef HARNESS_HAS_CUDA
  return true;
#else
  return false;
#endif
}

bool cuda_usable() { return built_with_cuda() && torch::cuda::is_available(); }

std::string cpu_name() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      auto colon = line.find(':');
      if (colon != std::string::npos) {
        std::string name = line.substr(colon + 1);
        name.erase(0, name.find_first_not_of(" \t"));
        return name;
      }
    }
  }
  return "unknown CPU";
}

std::string device_name(const torch::Device& d) {
#ifdef HARNESS_HAS_CUDA
  if (d.is_cuda() && cuda_usable()) {
    int idx = d.has_index() ? d.index() : 0;
    cudaDeviceProp prop{};
    C10_CUDA_CHECK(cudaGetDeviceProperties(&prop, idx));
    return prop.name;
  }
#endif
  if (d.is_cuda()) return "no usable CUDA device";
  return cpu_name();
}

std::string fmt(double v, int precision) {
  std::ostringstream os;
  os.precision(precision);
  os << v;
  return os.str();
}

std::string fmt_bytes(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB"};
  int u = 0;
  while (std::fabs(bytes) >= 1024 && u < 3) {
    bytes /= 1024;
    ++u;
  }
  return fmt(bytes) + " " + units[u];
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

namespace {
struct CopyTallies {
  struct Tally {
    std::atomic<int64_t> copies{0}, bytes{0};
    CopyTally get() const { return {copies.load(), bytes.load()}; }
  };
  Tally h2d, d2h, h2h;
};
std::atomic<CopyTallies*> active_copy_tallies{nullptr};

std::unique_ptr<at::ObserverContext> on_op(const at::RecordFunction& fn) {
  CopyTallies* tallies = active_copy_tallies.load();
  if (!tallies || std::strcmp(fn.name(), "aten::copy_") != 0) return nullptr;
  const auto inputs = fn.inputs();  // copy_(self, src, non_blocking)
  if (inputs.size() < 2 || !inputs[0].isTensor() || !inputs[1].isTensor())
    return nullptr;
  const at::Tensor& dst = inputs[0].toTensor();
  const at::Tensor& src = inputs[1].toTensor();
  const bool from_host = src.device().is_cpu(), to_host = dst.device().is_cpu();
  CopyTallies::Tally* t = from_host && to_host ? &tallies->h2h
                          : from_host           ? &tallies->h2d
                          : to_host             ? &tallies->d2h
                                                : nullptr;
  if (t) {
    ++t->copies;
    t->bytes += static_cast<int64_t>(src.numel() * src.element_size());
  }
  return nullptr;
}
}  // namespace

struct CopyCounter::Impl {
  CopyTallies tallies;
  at::CallbackHandle handle = 0;
};

CopyCounter::CopyCounter() : impl_(new Impl) {
  CopyTallies* none = nullptr;
  if (!active_copy_tallies.compare_exchange_strong(none, &impl_->tallies)) {
    delete impl_;
    throw std::logic_error("CopyCounter: one at a time");
  }
  impl_->handle = at::addThreadLocalCallback(
      at::RecordFunctionCallback(&on_op).needsInputs(true).scopes(
          {at::RecordScope::FUNCTION}));
}

CopyCounter::~CopyCounter() {
  at::removeCallback(impl_->handle);
  active_copy_tallies.store(nullptr);
  delete impl_;
}

CopyTally CopyCounter::host_to_device() const {
  return impl_->tallies.h2d.get();
}
CopyTally CopyCounter::device_to_host() const {
  return impl_->tallies.d2h.get();
}
CopyTally CopyCounter::host_to_host() const {
  return impl_->tallies.h2h.get();
}

#ifdef HARNESS_HAS_CUDA
int64_t cuda_allocated_bytes(const torch::Device& d) {
  int idx = d.has_index() ? d.index() : 0;
  torch::cuda::synchronize(idx);
  const auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(
      static_cast<c10::DeviceIndex>(idx));
  return stats.allocated_bytes[0].current;  // StatType::AGGREGATE
}

namespace {
// WarningHandler::process changed signature in LibTorch 2.1
// (c10::Warning became a class; the free functions moved to WarningUtils).
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 1)
#define HARNESS_WARNING_UTILS 1
#endif

class CountingHandler : public c10::WarningHandler {
 public:
#ifdef HARNESS_WARNING_UTILS
  void process(const c10::Warning& w) override { see(w.msg()); }
#else
  void process(const c10::SourceLocation&, const std::string& msg,
               const bool) override {
    see(msg);
  }
#endif
  int64_t count = 0;

 private:
  void see(const std::string& msg) {
    if (contains_ci(msg, "synchroniz")) ++count;
  }
};
}  // namespace

struct SyncCounter::Impl {
  CountingHandler handler;
#ifdef HARNESS_WARNING_UTILS
  c10::WarningUtils::WarningHandlerGuard guard{&handler};
#else
  c10::Warning::WarningHandlerGuard guard{&handler};
#endif
  c10::cuda::SyncDebugMode previous =
      c10::cuda::warning_state().get_sync_debug_mode();
};

SyncCounter::SyncCounter() : impl_(new Impl) {
  c10::cuda::warning_state().set_sync_debug_mode(
      c10::cuda::SyncDebugMode::L_WARN);
}

SyncCounter::~SyncCounter() {
  c10::cuda::warning_state().set_sync_debug_mode(impl_->previous);
  delete impl_;
}

int64_t SyncCounter::count() const { return impl_->handler.count; }

double cuda_time_ms(const std::function<void()>& fn) {
  cudaEvent_t start = nullptr, stop = nullptr;
  C10_CUDA_CHECK(cudaEventCreate(&start));
  C10_CUDA_CHECK(cudaEventCreate(&stop));
  const cudaStream_t stream = c10::cuda::getCurrentCUDAStream().stream();
  float ms = 0;
  Outcome o = capture([&] {
    C10_CUDA_CHECK(cudaEventRecord(start, stream));
    fn();
    C10_CUDA_CHECK(cudaEventRecord(stop, stream));
    C10_CUDA_CHECK(cudaEventSynchronize(stop));
    C10_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
  });
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  if (o.threw) throw std::runtime_error("CUDA event timing: " + o.message);
  return ms;
}

void queue_gpu_work(const torch::Device& d, double ms) {
  // The tensors are made per call (the caching allocator keeps the memory):
  // CUDA tensors in statics would be freed after the driver shut down.
  const auto opts = torch::TensorOptions().device(d);
  auto x = torch::randn({4096, 4096}, opts);
  auto w = torch::randn({4096, 4096}, opts) / 64.0;  // keeps the chain's scale
  static double ms_per_matmul = 0;
  if (ms_per_matmul <= 0) {
    x.mm(w);  // warm-up: cuBLAS handle and workspace
    ms_per_matmul = cuda_time_ms([&] {
                      for (int i = 0; i < 4; ++i) x.mm(w);
                    }) / 4;
  }
  // At most 512 launches: a full launch queue would block the host.
  const double n = std::ceil(ms / std::max(ms_per_matmul, 1e-3));
  for (int i = 0; i < static_cast<int>(std::min(n, 512.0)); ++i) x = x.mm(w);
}
#endif

}  // namespace harness
