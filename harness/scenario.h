// Shared types of torch-tidy-harness: a scenario runs a check's flagged
// pattern ("bad") and its fix ("fixed") on one device and reports what it
// measured. Scenarios register themselves (see HARNESS_REGISTER below).
#pragma once

#include <torch/torch.h>

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace harness {

enum class Verdict { Confirmed, Refuted, Skipped };
const char* verdict_name(Verdict v);

struct Result {
  std::string check;
  std::string device;        // "cpu" or "cuda"
  std::string bad_effect;    // what the flagged pattern did, measured
  std::string fixed_effect;  // what the fix did, measured
  Verdict verdict = Verdict::Refuted;
  std::string reason;        // why REFUTED / SKIPPED, or a short note
  std::vector<std::pair<std::string, double>> metrics;

  void metric(const std::string& name, double value) {
    metrics.emplace_back(name, value);
  }
};

// Where and how long a scenario runs.
struct Context {
  torch::Device device = torch::kCPU;
  int steps = 10;
  bool is_cuda() const { return device.is_cuda(); }
};

using ScenarioFn = std::function<Result(const Context&)>;

struct Scenario {
  std::string check;    // the torch-tidy check it confirms
  std::string summary;  // one line: the runtime fact behind the check
  ScenarioFn run;
};

// Registry (registry.cpp); scenarios come back sorted by check name.
bool register_scenario(Scenario s);
const std::vector<Scenario>& scenarios();
const Scenario* find_scenario(const std::string& check);

// The one place a verdict is decided from measured facts:
// CONFIRMED iff the bad variant shows the effect and the fixed one does not.
Result decide(Result r, bool bad_shows_effect, bool fixed_shows_effect);
Result skipped(const std::string& check, const Context& ctx,
               const std::string& reason);
// For a scenario whose effect exists only on CUDA: SKIPPED with "needs CUDA:
// " + why_not_on_cpu on a CPU, or when the harness was built without CUDA
// (run is then empty: pass HARNESS_CUDA_ONLY(fn)); otherwise run(ctx).
Result cuda_only(const std::string& check, const Context& ctx,
                 const std::string& why_not_on_cpu, const ScenarioFn& run);

// Runs a scenario with exceptions contained (-> REFUTED) and the device
// availability checked first (-> SKIPPED).
Result run_scenario(const Scenario& s, const Context& ctx);

}  // namespace harness

// A scenario's CUDA-only function, or nothing in a build without CUDA.
#ifdef HARNESS_HAS_CUDA
#define HARNESS_CUDA_ONLY(fn) ::harness::ScenarioFn(fn)
#else
#define HARNESS_CUDA_ONLY(fn) ::harness::ScenarioFn()
#endif

#define HARNESS_CONCAT2(a, b) a##b
#define HARNESS_CONCAT(a, b) HARNESS_CONCAT2(a, b)
// Registers a scenario from its own translation unit.
#define HARNESS_REGISTER(check, summary, fn)                      \
  static const bool HARNESS_CONCAT(harness_registered_, __LINE__) = \
      ::harness::register_scenario({check, summary, fn})
