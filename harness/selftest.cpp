// --self-test: checks the harness's own logic without running a scenario:
// the verdict rule, exception containment, device skipping, and the
// diagnostics parsers. Used by the ctest test harness-selftest.
#include <iostream>
#include <stdexcept>

#include "diagnostics.h"
#include "json.h"
#include "measure.h"
#include "scenario.h"

namespace harness {

namespace {
int failures = 0;
void expect(bool ok, const std::string& what) {
  std::cout << (ok ? "ok   " : "FAIL ") << what << "\n";
  if (!ok) ++failures;
}
Result fake(bool bad, bool fixed) {
  Result r;
  r.check = "fake";
  return decide(r, bad, fixed);
}
}  // namespace

int run_self_test() {
  // The verdict rule: CONFIRMED only for (effect, no effect).
  expect(fake(true, false).verdict == Verdict::Confirmed, "bad effect only -> CONFIRMED");
  expect(fake(false, false).verdict == Verdict::Refuted, "no effect in bad -> REFUTED");
  expect(fake(true, true).verdict == Verdict::Refuted, "effect in fixed too -> REFUTED");
  expect(fake(false, true).verdict == Verdict::Refuted, "inverted -> REFUTED");
  expect(fake(false, false).reason.find("showed no effect") != std::string::npos,
         "REFUTED carries a reason");

  // Exceptions are contained; absent devices skip.
  Scenario throws{"fake-throws", "", [](const Context&) -> Result {
                    throw std::runtime_error("boom");
                  }};
  Context cpu;
  Result r = run_scenario(throws, cpu);
  expect(r.verdict == Verdict::Refuted && r.reason.find("boom") != std::string::npos,
         "an escaping exception -> REFUTED with its message");
  Scenario c10_throws{"fake-c10", "", [](const Context&) -> Result {
                        torch::ones({2}).view({3});  // c10::Error
                        return {};
                      }};
  expect(run_scenario(c10_throws, cpu).verdict == Verdict::Refuted,
         "a c10::Error -> REFUTED");
  if (!cuda_usable()) {
    Context cuda;
    cuda.device = torch::Device(torch::kCUDA, 0);
    expect(run_scenario(throws, cuda).verdict == Verdict::Skipped,
           "cuda requested without CUDA -> SKIPPED");
  }

  // Diagnostics parsers.
  auto yaml = parse_diagnostics(
      "---\nDiagnostics:\n  - DiagnosticName:  torch-discarded-to\n"
      "    DiagnosticMessage:\n      Message:  'it''s discarded'\n"
      "      FilePath:  '/a b/x.cpp'\n      FileOffset:  42\n");
  expect(yaml.format == "export-fixes YAML" && yaml.diagnostics.size() == 1 &&
             yaml.diagnostics[0].check == "torch-discarded-to" &&
             yaml.diagnostics[0].file == "/a b/x.cpp" &&
             yaml.diagnostics[0].offset == 42 &&
             yaml.diagnostics[0].message == "it's discarded",
         "YAML: name, quoted path, offset, '' escape");
  auto json = parse_diagnostics(
      "[{\"check\":\"torch-stale-optimizer\",\"file\":\"t.cpp\",\"line\":7},"
      " {\"check\":\"x\",\"file\":\"u\\\"v.cpp\",\"line\":1}]");
  expect(json.format == "JSON" && json.diagnostics.size() == 2 &&
             json.diagnostics[0].line == 7 && json.diagnostics[1].file == "u\"v.cpp",
         "JSON: array of findings, escapes");
  auto sarif = parse_diagnostics(
      "{\"version\":\"2.1.0\",\"runs\":[{\"results\":[{\"ruleId\":\"torch-sync-in-loop\","
      "\"locations\":[{\"physicalLocation\":{\"artifactLocation\":{\"uri\":\"s.cpp\"},"
      "\"region\":{\"startLine\":3}}}]}]}]}");
  expect(sarif.format == "SARIF" && sarif.diagnostics.size() == 1 &&
             sarif.diagnostics[0].check == "torch-sync-in-loop" &&
             sarif.diagnostics[0].location() == "s.cpp:3",
         "SARIF: ruleId and location");
  bool rejected = false;
  try {
    parse_diagnostics("hello world");
  } catch (const std::runtime_error&) {
    rejected = true;
  }
  expect(rejected, "unknown format rejected");
  expect(parse_json(json_quote("a\"b\\c\n\x01")).string == "a\"b\\c\n\x01",
         "json_quote round-trips");

  std::cout << (failures ? "self-test FAILED\n" : "self-test passed\n");
  return failures ? 1 : 0;
}

}  // namespace harness
