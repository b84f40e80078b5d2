//===- Baseline.h - --write-baseline / --baseline ------------------------===//
// A baseline is a JSON file listing the fingerprints of known findings, so a
// CI gate fails only on new ones. Matching is by fingerprint and counts: a
// baseline entry suppresses one finding.
#ifndef TORCH_TIDY_TOOL_BASELINE_H
#define TORCH_TIDY_TOOL_BASELINE_H

#include "tool/report/Findings.h"
#include "llvm/ADT/StringMap.h"

namespace torch_tidy {

using Baseline = llvm::StringMap<unsigned>; ///< fingerprint -> count

llvm::Error writeBaseline(llvm::StringRef Path,
                          const std::vector<Finding> &Findings,
                          llvm::StringRef Root);
llvm::Expected<Baseline> readBaseline(llvm::StringRef Path);
/// Drops the findings \p B accounts for; returns how many.
unsigned applyBaseline(std::vector<Finding> &Findings, Baseline B);

} // namespace torch_tidy

#endif // TORCH_TIDY_TOOL_BASELINE_H
