#include <algorithm>

#include "measure.h"
#include "scenario.h"

namespace harness {

namespace {
std::vector<Scenario>& storage() {
  static std::vector<Scenario> all;
  return all;
}
}  // namespace

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::Confirmed: return "CONFIRMED";
    case Verdict::Refuted: return "REFUTED";
    case Verdict::Skipped: return "SKIPPED";
  }
  return "?";
}

bool register_scenario(Scenario s) {
  auto& all = storage();
  all.push_back(std::move(s));
  std::sort(all.begin(), all.end(), [](const Scenario& a, const Scenario& b) {
    return a.check < b.check;
  });
  return true;
}

const std::vector<Scenario>& scenarios() { return storage(); }

const Scenario* find_scenario(const std::string& check) {
  for (const auto& s : storage())
    if (s.check == check) return &s;
  return nullptr;
}

Result decide(Result r, bool bad_shows_effect, bool fixed_shows_effect) {
  if (bad_shows_effect && !fixed_shows_effect) {
    r.verdict = Verdict::Confirmed;
  } else {
    r.verdict = Verdict::Refuted;
    std::string why;
    if (!bad_shows_effect) why = "the flagged pattern showed no effect";
    if (fixed_shows_effect)
      why += std::string(why.empty() ? "" : "; ") + "the fix shows the effect too";
    r.reason = r.reason.empty() ? why : why + " (" + r.reason + ")";
  }
  return r;
}

Result skipped(const std::string& check, const Context& ctx,
               const std::string& reason) {
  Result r;
  r.check = check;
  r.device = ctx.device.str();
  r.bad_effect = "-";
  r.fixed_effect = "-";
  r.verdict = Verdict::Skipped;
  r.reason = reason;
  return r;
}

Result cuda_only(const std::string& check, const Context& ctx,
                 const std::string& why_not_on_cpu, const ScenarioFn& run) {
  if (!ctx.is_cuda())
    return skipped(check, ctx, "needs CUDA: " + why_not_on_cpu);
  if (!run)
    return skipped(check, ctx, "needs CUDA: harness built without CUDA");
  return run(ctx);
}

Result run_scenario(const Scenario& s, const Context& ctx) {
  if (ctx.is_cuda() && !built_with_cuda())
    return skipped(s.check, ctx,
                   "needs CUDA: this harness was built against a LibTorch "
                   "without CUDA");
  if (ctx.is_cuda() && !torch::cuda::is_available())
    return skipped(s.check, ctx,
                   "needs CUDA: torch::cuda::is_available() is false");
  torch::manual_seed(0);
  Result r;
  Outcome o = capture([&] { r = s.run(ctx); });
  if (o.threw) {
    r = Result{};
    r.bad_effect = r.fixed_effect = "-";
    r.verdict = Verdict::Refuted;
    r.reason = "scenario failed unexpectedly: " + first_line(o.message, 200);
  }
  r.check = s.check;
  if (r.device.empty()) r.device = ctx.device.str();
  return r;
}

}  // namespace harness
