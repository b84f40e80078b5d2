//===- RealDatabase.h - compile databases as projects write them --*- C++
//-*-===//
// Answers: what can the analysis run on, of a compile_commands.json as real
// LibTorch projects write it? CMake with CUDA sources, ccache or sccache
// launchers, response files (`@flags.rsp`), relative paths from hand-written
// or generated databases, and GCC-only flags that clang rejects. Entries
// for `.cu` files or nvcc are left out (and counted); launchers are
// stripped; response files expanded; relative `directory` and `file`
// resolved (a relative directory against the database's folder); arguments
// clang's driver does not know are dropped (and named). What remains is
// written as a new database for the batch workers.
//===----------------------------------------------------------------------===//
#ifndef TORCH_TIDY_TOOL_REALDATABASE_H
#define TORCH_TIDY_TOOL_REALDATABASE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <map>
#include <string>

namespace torch_tidy {

struct DatabaseRewrite {
  /// The database to analyse, as JSON; empty when the original needs no
  /// change.
  std::string Json;
  unsigned CudaSkipped = 0;
  /// Each argument dropped because clang does not know it, and in how many
  /// entries.
  std::map<std::string, unsigned> DroppedFlags;
};

/// Reads the compile_commands.json \p File and rewrites what clang cannot
/// use as it is. Fails on unreadable or malformed JSON, or an unreadable
/// response file.
llvm::Expected<DatabaseRewrite> rewriteDatabase(llvm::StringRef File);

} // namespace torch_tidy

#endif // TORCH_TIDY_TOOL_REALDATABASE_H
