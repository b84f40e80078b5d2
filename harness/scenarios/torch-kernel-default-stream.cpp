// torch-kernel-default-stream: a kernel launched without a stream runs on
// CUDA's legacy default stream, not on PyTorch's current stream. Under a
// stream guard on a pool stream the two are unordered (pool streams are
// created non-blocking: the legacy stream does not wait for them), and a
// CUDA graph captured on the side stream does not contain the launch.
//   bad:   copy_kernel<<<blocks, 256>>>(in, out, n);
//   fixed: copy_kernel<<<blocks, 256, 0,
//                       at::cuda::getCurrentCUDAStream()>>>(in, out, n);
// (cuda_kernels.cu: copy_on_legacy_stream and copy.)
// Ordering: under at::cuda::CUDAStreamGuard(getStreamFromPool()), a
// one-thread kernel spins about 50 ms on the side stream and then writes
// `in`; the copy is launched right after it. Measured over 3 trials: the
// copies that read `in` before the write (stale).
// Graph: in a child process (a capture left open would break the harness's
// later scenarios), at::cuda::CUDAGraph captures the copy on a side stream.
// Measured: whether the capture fails, whether the copy already ran during
// the capture, and whether a replay runs it.
// CPU: no streams: SKIPPED. Built without nvcc: SKIPPED.
#include "../scenario.h"
#include "cuda_kernels.h"

#ifdef HARNESS_HAS_CUDA_KERNELS
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>

#include "../child.h"
#include "../measure.h"
#endif

namespace harness {
namespace {

constexpr const char *kCheck = "torch-kernel-default-stream";

#ifdef HARNESS_HAS_CUDA_KERNELS
constexpr int64_t kN = 1024;
constexpr int kTrials = 3;
constexpr double kSpinMs = 50;
constexpr float kValue = 7;

void launch(bool legacy, const torch::Tensor &in, const torch::Tensor &out) {
  if (legacy)
    kernels::copy_on_legacy_stream(in.data_ptr<float>(), out.data_ptr<float>(),
                                   kN);
  else
    kernels::copy(in.data_ptr<float>(), out.data_ptr<float>(), kN);
}

bool all_equal(const torch::Tensor &t, float value) {
  return (t == value).all().item<bool>();
}

// Trials in which the copy read `in` before the side stream wrote it.
int stale_copies(const torch::Device &device, bool legacy) {
  const auto opts =
      torch::TensorOptions().dtype(torch::kFloat32).device(device);
  auto in = torch::zeros({kN}, opts);
  auto out = torch::zeros({kN}, opts);
  int stale = 0;
  for (int trial = 0; trial < kTrials; ++trial) {
    const float value = 100 + trial;
    in.zero_();
    out.fill_(-1);
    torch::cuda::synchronize();
    {
      at::cuda::CUDAStreamGuard guard(at::cuda::getStreamFromPool());
      kernels::spin_then_fill(in.data_ptr<float>(), kN, value, kSpinMs);
      launch(legacy, in, out);
    }
    torch::cuda::synchronize(); // the whole device: both streams
    stale += !all_equal(out, value);
  }
  return stale;
}

// Child: captures the copy in a CUDA graph on a side stream, then replays it.
int graph_child(const torch::Device &device, bool legacy) {
  const auto opts =
      torch::TensorOptions().dtype(torch::kFloat32).device(device);
  auto in = torch::full({kN}, kValue, opts);
  auto out = torch::zeros({kN}, opts);
  launch(false, in, out); // loads the kernel (lazy loading) before capture
  out.zero_();
  torch::cuda::synchronize();
  at::cuda::CUDAGraph graph;
  Outcome began, launched, ended;
  {
    at::cuda::CUDAStreamGuard guard(at::cuda::getStreamFromPool());
    began = capture([&] { graph.capture_begin(); });
    if (!began.threw) {
      launched = capture([&] { launch(legacy, in, out); });
      ended = capture([&] { graph.capture_end(); }); // even after a failure
    }
  }
  const Outcome &failed = began.threw      ? began
                          : launched.threw ? launched
                                           : ended;
  std::cout << "capture_failed=" << failed.threw
            << "\ncapture_error=" << first_line(failed.message, 160)
            << std::endl;
  torch::cuda::synchronize();
  std::cout << "ran_during_capture=" << all_equal(out, kValue) << std::endl;
  if (failed.threw)
    return 0;
  out.zero_();
  torch::cuda::synchronize();
  graph.replay();
  torch::cuda::synchronize();
  std::cout << "replay_ran=" << all_equal(out, kValue) << std::endl;
  return 0;
}

HARNESS_REGISTER_CHILD("torch-kernel-default-stream/graph-bad",
                       [](const torch::Device &d) {
                         return graph_child(d, true);
                       });
HARNESS_REGISTER_CHILD("torch-kernel-default-stream/graph-fixed",
                       [](const torch::Device &d) {
                         return graph_child(d, false);
                       });

struct Graph {
  bool wrong = true; // failed, ran outside the graph, or missing from it
  std::string shown;
};

Graph graph_result(const ChildResult &c) {
  Graph g;
  if (c.value("capture_failed") == "1") {
    g.shown = "capture failed: " + c.value("capture_error");
  } else if (c.value("replay_ran").empty()) {
    g.shown = "child " + c.describe();
  } else {
    const bool during = c.value("ran_during_capture") == "1";
    const bool replayed = c.value("replay_ran") == "1";
    g.wrong = during || !replayed;
    g.shown = std::string(during ? "ran during capture" : "captured") +
              (replayed ? ", ran in replay" : ", not in replay");
  }
  return g;
}

std::string shown(int stale, const Graph &g) {
  return std::to_string(stale) + "/" + std::to_string(kTrials) +
         " copies read stale input; graph: " + g.shown;
}

Result run(const Context &ctx) {
  Result r;
  stale_copies(ctx.device, false); // warm-up: the pool streams, the kernels
  const int bad = stale_copies(ctx.device, true);
  const int fixed = stale_copies(ctx.device, false);
  const ChildResult bad_child =
      run_child(std::string(kCheck) + "/graph-bad", ctx.device, 60);
  const ChildResult fixed_child =
      run_child(std::string(kCheck) + "/graph-fixed", ctx.device, 60);
  const Graph bad_graph = graph_result(bad_child);
  const Graph fixed_graph = graph_result(fixed_child);
  r.metric("trials", kTrials);
  r.metric("spin_ms", kSpinMs);
  r.metric("bad_stale_copies", bad);
  r.metric("fixed_stale_copies", fixed);
  r.metric("bad_graph_capture_failed",
           bad_child.value("capture_failed") == "1");
  r.metric("bad_graph_ran_during_capture",
           bad_child.value("ran_during_capture") == "1");
  r.metric("bad_graph_replay_ran", bad_child.value("replay_ran") == "1");
  r.metric("fixed_graph_replay_ran", fixed_child.value("replay_ran") == "1");
  r.bad_effect = shown(bad, bad_graph);
  r.fixed_effect = shown(fixed, fixed_graph);
  return decide(r, bad > 0 || bad_graph.wrong, fixed > 0 || fixed_graph.wrong);
}
#endif

Result run_on(const Context &ctx) {
  return cuda_only(kCheck, ctx,
                   "a CPU has no streams: every operation runs in order",
                   HARNESS_KERNELS_ONLY(kCheck, run));
}

} // namespace
HARNESS_REGISTER(kCheck,
                 "a kernel launched without a stream runs on the legacy "
                 "default stream, unordered with PyTorch's current stream "
                 "and outside a graph captured on it",
                 run_on);
} // namespace harness
