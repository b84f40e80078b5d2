// --self-test: checks the harness's own logic without running a scenario:
// the verdict rule, exception containment, device skipping, and the
// diagnostics parsers and the --json writer. Used by the ctest test
// harness-selftest.
#include <cmath>
#include <iostream>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "diagnostics.h"
#include "measure.h"
#include "report.h"
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
// The message parse_diagnostics throws, "" when it does not.
std::string error_of(const std::string& text) {
  try {
    parse_diagnostics(text);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}
bool one_line(const std::string& s) {
  return !s.empty() && s.find('\n') == std::string::npos;
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

  // CopyCounter (the transfer scenarios' byte count): a conversion that
  // copies is counted with its bytes, to() onto the tensor's own device
  // and dtype is not (it returns the tensor itself).
  {
    auto t = torch::ones({1000});
    CopyCounter copies;
    auto same = t.to(torch::kCPU);
    auto wide = t.to(torch::kFloat64);
    expect(copies.host_to_host().copies == 1 &&
               copies.host_to_host().bytes == 4000 &&
               copies.host_to_device().copies == 0 && same.is_same(t),
           "CopyCounter: counts the float64 copy (4000 B), not to(kCPU)");
  }
  expect(fmt_bytes(16 << 20) == "16 MiB" && fmt_bytes(512) == "512 B",
         "fmt_bytes");

  // Diagnostics parsers: export-fixes YAML.
  const std::string yaml_text =
      "---\nMainSourceFile: '/a b/x.cpp'\nDiagnostics:\n"
      "  - DiagnosticName:  torch-discarded-to\n"
      "    DiagnosticMessage:\n      Message:  'it''s discarded'\n"
      "      FilePath:  '/a b/x.cpp'\n      FileOffset:  42\n"
      "      Replacements: []\n"
      "    Notes:\n      - Message: 'a note'\n        FilePath: 'n.cpp'\n"
      "        FileOffset: 7\n"
      "  - DiagnosticName: torch-sync-in-loop\n"
      "    Message: \"old \\\"layout\\\"\"\n    FilePath: y.cpp\n"
      "    FileOffset: 9\n...\n";
  if (yaml_supported()) {
    auto yaml = parse_diagnostics(yaml_text);
    expect(yaml.format == "export-fixes YAML" && yaml.diagnostics.size() == 2 &&
               yaml.diagnostics[0].check == "torch-discarded-to" &&
               yaml.diagnostics[0].file == "/a b/x.cpp" &&
               yaml.diagnostics[0].offset == 42 &&
               yaml.diagnostics[0].message == "it's discarded",
           "YAML: name, quoted path, offset, '' escape; notes ignored");
    expect(yaml.diagnostics.size() == 2 &&
               yaml.diagnostics[1].check == "torch-sync-in-loop" &&
               yaml.diagnostics[1].message == "old \"layout\"" &&
               yaml.diagnostics[1].location() == "y.cpp@9",
           "YAML: clang-tidy <= 8 layout, double-quoted escapes");
    auto none = parse_diagnostics("---\nMainSourceFile: ''\nDiagnostics: []\n...\n");
    expect(none.format == "export-fixes YAML" && none.diagnostics.empty(),
           "YAML: no findings");
    const std::string bad = error_of("Diagnostics:\n  - DiagnosticName: [x\n");
    expect(one_line(bad) && bad.find("malformed YAML at line") != std::string::npos,
           "YAML: malformed -> one-line error with its line (" + bad + ")");
    const std::string deep = error_of("Diagnostics: " + std::string(100000, '['));
    expect(one_line(deep), "YAML: deep nesting -> one-line error, no crash");
    expect(one_line(error_of("Diagnostics: 3\n")), "YAML: Diagnostics not a list");
  } else {
    const std::string off = error_of(yaml_text);
    expect(one_line(off) && off.find("without yaml-cpp") != std::string::npos,
           "YAML without yaml-cpp -> one-line error saying so");
  }

  // torch-tidy JSON.
  auto json = parse_diagnostics(
      "{\"findings\": [{\"check\":\"torch-stale-optimizer\",\"file\":\"t.cpp\","
      "\"line\":7}, {\"nested\": {\"check\":\"x\",\"path\":\"u\\\"v\\u00e9.cpp\","
      "\"line\":1.0, \"message\": \"m\"}}], \"summary\": {\"files\": 1}}");
  expect(json.format == "JSON" && json.diagnostics.size() == 2 &&
             json.diagnostics[0].check == "torch-stale-optimizer" &&
             json.diagnostics[0].location() == "t.cpp:7" &&
             json.diagnostics[1].file == "u\"v\xC3\xA9.cpp" &&
             json.diagnostics[1].line == 1 && json.diagnostics[1].message == "m",
         "JSON: findings in document order, nested, path, escapes");
  const std::string bad_json = error_of("[{\"check\": }]");
  expect(one_line(bad_json) && bad_json.find("malformed JSON") != std::string::npos &&
             bad_json.find("line 1, column") != std::string::npos,
         "JSON: malformed -> one-line error with its position (" + bad_json + ")");
  expect(one_line(error_of("[{\"check\": \"x\"}] trailing")), "JSON: trailing text");
  expect(one_line(error_of(std::string(100000, '['))),
         "JSON: deep unterminated nesting -> one-line error");
  expect(parse_diagnostics(std::string(100000, '[') + std::string(100000, ']'))
             .diagnostics.empty(),
         "JSON: deep nesting walked without recursion");

  // SARIF.
  auto sarif = parse_diagnostics(
      "{\"version\":\"2.1.0\",\"runs\":[{\"results\":[{\"ruleId\":\"torch-sync-in-loop\","
      "\"message\":{\"text\":\"hot\"},"
      "\"locations\":[{\"physicalLocation\":{\"artifactLocation\":{\"uri\":\"s.cpp\"},"
      "\"region\":{\"startLine\":3}}}]}, {\"rule\":{\"id\":\"torch-discarded-to\"}}]}]}");
  expect(sarif.format == "SARIF" && sarif.diagnostics.size() == 2 &&
             sarif.diagnostics[0].check == "torch-sync-in-loop" &&
             sarif.diagnostics[0].message == "hot" &&
             sarif.diagnostics[0].location() == "s.cpp:3" &&
             sarif.diagnostics[1].check == "torch-discarded-to" &&
             sarif.diagnostics[1].location() == "(no location)",
         "SARIF: ruleId or rule.id, message and location");

  const std::string unknown = error_of("hello world");
  expect(one_line(unknown) && unknown.find("unrecognised") != std::string::npos,
         "unknown format rejected");

  // --json writer: escapes, NaN as null, non-UTF-8 bytes replaced.
  RunInfo info;
  info.device_name = "GPU \"0\"\n";
  Result res;
  res.check = "c";
  res.metric("nan", std::nan(""));
  res.metric("x", 1.5);
  DiagnosticVerdict dv{Diagnostic{}, "", "no scenario"};
  dv.diagnostic.file = "bad\xFF.cpp";
  dv.diagnostic.offset = 5;
  std::ostringstream written;
  write_json(written, info, {res}, {dv});
  try {
    auto doc = nlohmann::json::parse(written.str());
    expect(doc["device_name"] == "GPU \"0\"\n" &&
               doc["results"][0]["metrics"]["nan"].is_null() &&
               doc["results"][0]["metrics"]["x"] == 1.5 &&
               doc["diagnostics"][0]["line"].is_null() &&
               doc["diagnostics"][0]["offset"] == 5,
           "--json output parses back with its values");
  } catch (const std::exception& e) {
    expect(false, std::string("--json output parses back: ") + e.what());
  }

  std::cout << (failures ? "self-test FAILED\n" : "self-test passed\n");
  return failures ? 1 : 0;
}

}  // namespace harness
