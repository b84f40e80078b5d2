//===- CachedRun.h - a single-file run through the result cache ----------===//
// Answers: can this single-file run be answered from the result cache? On a
// hit it prints exactly what the analysis printed (standard output, standard
// error, the --export-fixes file, the exit status); on a miss it runs the
// analysis in a child process, prints what it printed and stores it.
#ifndef TORCH_TIDY_TOOL_CACHEDRUN_H
#define TORCH_TIDY_TOOL_CACHEDRUN_H

#include "tool/CommandLine.h"
#include "clang/Tooling/CompilationDatabase.h"
#include <string>
#include <vector>

namespace torch_tidy {

/// True when --cache-dir (or TORCH_TIDY_CACHE_DIR) is set and the run is
/// one file whose result can be replayed: not --fix (it edits files) and
/// not a profile (timings differ from run to run).
bool cacheApplies(const CommandLine &C);

/// Runs \p Self as a worker with \p Args (argv[1..] without torch-tidy's own
/// flags) through the cache.
int runCached(const CommandLine &C,
              const clang::tooling::CompilationDatabase *DB,
              llvm::StringRef Self, const std::vector<std::string> &Args);

} // namespace torch_tidy

#endif // TORCH_TIDY_TOOL_CACHEDRUN_H
