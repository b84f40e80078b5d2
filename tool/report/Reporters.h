//===- Reporters.h - batch-mode output: text, JSON, SARIF 2.1.0 ----------===//
#ifndef TORCH_TIDY_TOOL_REPORTERS_H
#define TORCH_TIDY_TOOL_REPORTERS_H

#include "tool/report/Findings.h"
#include "tool/report/RuntimeReport.h"
#include "llvm/Support/raw_ostream.h"
#include <atomic>
#include <cstdint>
#include <map>

namespace torch_tidy {

struct Failure {
  std::string File;     ///< the translation unit, absolute
  std::string Reason;   ///< its first error, one line
  bool Crashed = false; ///< the analysis died of a signal
};

struct RunSummary {
  std::vector<std::string> Files; ///< translation units analysed, absolute
  std::vector<Failure> Failures;
  /// Units whose .clang-tidy disables the torch-* checks (-torch-*).
  std::vector<std::string> TorchChecksDisabled;
  unsigned SuppressedByBaseline = 0, OutsideDiff = 0;
  /// Findings left out because, across the units, the tensor they read
  /// is on the CPU (device::ProgramFacts).
  unsigned OnCPUAcrossUnits = 0;
  /// Findings in loops bounded by a tensor's size, left out because no
  /// unit passes a tensor that may be on a device to the function.
  unsigned NoDeviceAcrossUnits = 0;
  /// Findings left out because, across the units, every caller guards the
  /// device or checks the tensors they need (device::ProgramFacts).
  unsigned ProvenByCallersAcrossUnits = 0;
  /// Findings of headers analysed as units of their own that do not
  /// compile alone, left to the source files that include them.
  unsigned BrokenHeaderFindings = 0;
  /// CUDA units (analysed on their host side), and arguments dropped
  /// because clang does not know them or because they only concern device
  /// code or nvcc, with their counts.
  unsigned CudaUnits = 0;
  /// CUDA units analysed although their device code did not compile.
  unsigned DeviceCodeErrorUnits = 0;
  std::map<std::string, unsigned> DroppedFlags;
  unsigned Jobs = 1;
  double Seconds = 0;
  uint64_t PeakKiB = 0, MeanPeakKiB = 0; ///< per-worker peak resident memory
  /// They depend on what earlier runs left, so they are stats, not report.
  std::atomic<unsigned> PreambleUnits{0}; ///< units that shared a preamble
  unsigned CacheHits = 0, CacheMisses = 0;
  std::optional<RuntimeResult> Runtime; ///< --runtime-report
  bool Cached = false;                  ///< a result cache was used
};

struct ReportOptions {
  std::string Root;       ///< paths are shown relative to it (SARIF %SRCROOT%)
  std::string DocBaseUrl; ///< helpUri of torch-* rules: base + check + ".md"
};

void writeText(llvm::raw_ostream &OS, const std::vector<Finding> &Findings,
               const ReportOptions &Opts);
/// Findings per check, files analysed, files that failed to compile or
/// crashed. Deterministic: the same input gives the same summary.
void writeSummary(llvm::raw_ostream &OS, const std::vector<Finding> &Findings,
                  const RunSummary &S, const ReportOptions &Opts);
/// Jobs, wall time and peak memory: they vary between runs, so they are
/// kept out of the report.
void writeStats(llvm::raw_ostream &OS, const RunSummary &S);
void writeJson(llvm::raw_ostream &OS, const std::vector<Finding> &Findings,
               const RunSummary &S, const ReportOptions &Opts);
void writeSarif(llvm::raw_ostream &OS, const std::vector<Finding> &Findings,
                const RunSummary &S, const ReportOptions &Opts);
/// One SARIF log with one run holding the rules and results of \p Inputs
/// (e.g. one per shard); a result reported by two inputs appears once.
llvm::Error mergeSarif(const std::vector<std::string> &Inputs,
                       llvm::raw_ostream &OS);

} // namespace torch_tidy

#endif // TORCH_TIDY_TOOL_REPORTERS_H
