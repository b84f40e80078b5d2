// Output of torch-tidy-harness: the results table, the per-diagnostic
// verdicts, and the --json file.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "diagnostics.h"
#include "scenario.h"

namespace harness {

struct RunInfo {
  std::string libtorch;     // TORCH_VERSION
  std::string device;       // "cpu" / "cuda"
  std::string device_name;  // CPU model or GPU name
  std::string date;         // ISO 8601, UTC
  bool built_with_cuda = false;
};

struct DiagnosticVerdict {
  Diagnostic diagnostic;
  std::string scenario;  // "" when the check has no scenario
  std::string verdict;   // CONFIRMED / REFUTED / SKIPPED / "no scenario"
};

void print_table(std::ostream& os, const std::vector<Result>& results);
void print_diagnostics(std::ostream& os, const std::string& path,
                       const std::string& format,
                       const std::vector<DiagnosticVerdict>& verdicts);
void write_json(std::ostream& os, const RunInfo& info,
                const std::vector<Result>& results,
                const std::vector<DiagnosticVerdict>& verdicts);

}  // namespace harness
