// Measurement helpers shared by the scenarios. CUDA-only helpers exist only
// when the LibTorch the harness was built against has CUDA
// (HARNESS_HAS_CUDA, set by CMakeLists.txt).
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace harness {

// --- exceptions -----------------------------------------------------------
struct Outcome {
  bool threw = false;
  std::string message;  // c10::Error without backtrace, or what()
};
// Runs fn; a c10::Error or std::exception becomes Outcome{true, message}.
Outcome capture(const std::function<void()>& fn);
bool contains_ci(const std::string& haystack, const std::string& needle);
// First line of an error message, trimmed to a table-friendly length.
std::string first_line(const std::string& msg, size_t max_len = 90);

// --- parameters -----------------------------------------------------------
std::vector<torch::Tensor> snapshot(const std::vector<torch::Tensor>& params);
// L2 norm of (params - before), summed over all tensors.
double diff_norm(const std::vector<torch::Tensor>& params,
                 const std::vector<torch::Tensor>& before);

// --- autograd graph -------------------------------------------------------
// Unique autograd nodes reachable from the roots' grad_fn() via
// next_edges(); AccumulateGrad nodes (owned by leaf tensors such as the
// parameters, not by a step) are not counted.
size_t count_graph_nodes(const std::vector<torch::Tensor>& roots);

// --- devices --------------------------------------------------------------
bool built_with_cuda();
bool cuda_usable();  // built_with_cuda() && torch::cuda::is_available()
std::string cpu_name();
std::string device_name(const torch::Device& d);

std::string fmt(double v, int precision = 3);
std::string fmt_bytes(double bytes);  // "16 MiB", "512 B"
double median(std::vector<double> v);

// --- copies ---------------------------------------------------------------
struct CopyTally {
  int64_t copies = 0;
  int64_t bytes = 0;  // bytes of the copies' sources
};
// While alive: counts the aten::copy_ calls (the op behind to(), cuda(),
// cpu() and copy_() whenever data moves) made on this thread, by
// direction, through a thread-local RecordFunction callback. One counter
// at a time.
class CopyCounter {
 public:
  CopyCounter();
  ~CopyCounter();
  CopyCounter(const CopyCounter&) = delete;
  CopyCounter& operator=(const CopyCounter&) = delete;
  CopyTally host_to_device() const;
  CopyTally device_to_host() const;
  CopyTally host_to_host() const;  // e.g. a dtype conversion on the CPU

 private:
  struct Impl;
  Impl* impl_;
};

#ifdef HARNESS_HAS_CUDA
// Allocator statistic: bytes currently allocated on the device
// (DeviceStats::allocated_bytes[AGGREGATE].current).
int64_t cuda_allocated_bytes(const torch::Device& d);

// While alive: sync debug mode is L_WARN and a warning handler counts the
// "called a synchronizing CUDA operation" warnings on this thread.
class SyncCounter {
 public:
  SyncCounter();
  ~SyncCounter();
  SyncCounter(const SyncCounter&) = delete;
  SyncCounter& operator=(const SyncCounter&) = delete;
  int64_t count() const;

 private:
  struct Impl;
  Impl* impl_;
};

// GPU-timeline milliseconds that fn() takes on the current stream,
// measured with a pair of CUDA events (includes idle gaps caused by the host).
double cuda_time_ms(const std::function<void()>& fn);

// Queues about `ms` milliseconds of work on the current stream (a chain of
// 4096x4096 float matmuls; their number comes from timing a few, once per
// process) and returns without waiting: the device is busy afterwards.
void queue_gpu_work(const torch::Device& d, double ms);
#endif

}  // namespace harness
