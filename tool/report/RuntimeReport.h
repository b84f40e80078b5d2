//===- RuntimeReport.h - torch-tidy-probe's counts joined with findings --===//
// `torch-tidy --runtime-report run.json`: reads what libtorch-tidy-probe.so
// counted in a run of the user's program (syncs and transfers per call
// stack, unsymbolised), places each on the first source line outside
// LibTorch, c10 and the C++ library (LLVM's symbolizer, DWARF: programs
// built with -g), and joins the lines with the findings. See
// docs/runtime-report.md.
#ifndef TORCH_TIDY_TOOL_RUNTIMEREPORT_H
#define TORCH_TIDY_TOOL_RUNTIMEREPORT_H

#include "tool/report/Findings.h"
#include "llvm/Support/Error.h"
#include <string>
#include <vector>

namespace torch_tidy {

/// Where the program synced or moved data, and how often.
struct RuntimeSite {
  std::string Op; ///< "item", "copy-to-device", "sync-warning", ...
  uint64_t Count = 0, Bytes = 0;
  std::string File; ///< absolute; empty when no debug information placed it
  unsigned Line = 0;
  std::string Where; ///< without debug information: "module!function+0x1f"
  /// Every line of the program the event's stack passes through, innermost
  /// first (File/Line is the first): a wait inside a helper also passes
  /// through the helper's call.
  std::vector<std::pair<std::string, unsigned>> Lines;
};

/// The join, for the summary and the reports.
struct RuntimeResult {
  std::string Report;                      ///< the path given
  std::vector<RuntimeSite> WithoutFinding; ///< by count, then place
  unsigned FindingsSeen = 0;
  /// Findings of checks about syncs and transfers whose line never synced
  /// or moved data in the run.
  unsigned FindingsNotSeen = 0;
  unsigned Unplaced = 0; ///< sites with no debug information
};

/// Reads and symbolises the probe's report at \p Path.
llvm::Expected<std::vector<RuntimeSite>>
readRuntimeReport(llvm::StringRef Path);

/// Attaches the run-time counts to \p Findings (Finding::Runtime and a
/// note) and returns the sites on no finding's line. Join before the
/// baseline and the diff hide findings, so that a hidden finding's line is
/// not listed as a site with no finding; count again after (countRuntime).
RuntimeResult joinRuntime(std::vector<Finding> &Findings,
                          const std::vector<RuntimeSite> &Sites,
                          llvm::StringRef ReportPath);

/// Sets R's counts of findings seen and not seen to those of \p Findings.
void countRuntime(const std::vector<Finding> &Findings, RuntimeResult &R);

/// "7 times", "3 times, 1.5 MiB".
std::string describeRuntime(uint64_t Count, uint64_t Bytes);

} // namespace torch_tidy

#endif // TORCH_TIDY_TOOL_RUNTIMEREPORT_H
