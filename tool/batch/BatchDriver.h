//===- BatchDriver.h - whole-codebase runs of torch-tidy -----------------===//
// Batch mode: `torch-tidy -p build` with no files, or any batch-only flag
// (-j, --format, --output, --baseline, --write-baseline, --diff, --diff-file,
// --shard, --doc-base-url, --source-root, --merge-sarif). The driver runs one
// torch-tidy subprocess per translation unit in parallel, collects their
// --export-fixes YAML, dedupes header findings, filters by baseline and diff,
// and reports text, JSON or SARIF with a summary. See docs/ci.md.
#ifndef TORCH_TIDY_TOOL_BATCHDRIVER_H
#define TORCH_TIDY_TOOL_BATCHDRIVER_H

#include "tool/CommandLine.h"
#include "llvm/ADT/StringRef.h"

namespace torch_tidy {

/// Runs batch mode for \p C (C.isBatch()); \p Argv0 finds this executable,
/// which the workers run. Exit status: 0 clean, 1 findings at level error
/// (--warnings-as-errors), 2 a file failed to compile or crashed, or the
/// input is bad.
int runBatch(const CommandLine &C, llvm::StringRef Argv0);

} // namespace torch_tidy

#endif // TORCH_TIDY_TOOL_BATCHDRIVER_H
