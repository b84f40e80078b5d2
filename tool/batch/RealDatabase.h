//===- RealDatabase.h - compile databases as projects write them --*- C++
//-*-===//
// Answers: what can the analysis run on, of a compile_commands.json as real
// LibTorch projects write it? CMake with CUDA sources, ccache or sccache
// launchers, response files (`@flags.rsp`), relative paths from hand-written
// or generated databases, and GCC-only flags that clang rejects. CUDA
// entries (nvcc, `.cu`, clang -x cuda) become clang commands that parse
// their host side (CudaCommand.h), and are counted; launchers are stripped;
// response files expanded; relative `directory` and `file` resolved (a
// relative directory against the database's folder); arguments clang's
// driver does not know, and nvcc's that have no host-side meaning, are
// dropped (and named). What remains is written as a new database for the
// batch workers.
//===----------------------------------------------------------------------===//
#ifndef TORCH_TIDY_TOOL_REALDATABASE_H
#define TORCH_TIDY_TOOL_REALDATABASE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <map>
#include <set>
#include <string>

namespace torch_tidy {

struct DatabaseRewrite {
  /// The database to analyse, as JSON; empty when the original needs no
  /// change.
  std::string Json;
  /// CUDA entries, analysed on their host side.
  unsigned CudaUnits = 0;
  std::set<std::string> CudaFiles; ///< their files, absolute
  /// Each argument dropped because clang does not know it, or because it
  /// only concerns device code or nvcc, and in how many entries.
  std::map<std::string, unsigned> DroppedFlags;
  /// Units that cannot be analysed, and why (a CUDA unit without a CUDA
  /// toolkit). They stay in the database, so that they are reported.
  std::map<std::string, std::string> UnitErrors;
};

/// Reads the compile_commands.json \p File and rewrites what clang cannot
/// use as it is; \p CudaPath is torch-tidy's --cuda-path (or empty). CUDA
/// units include the nvcc host prelude (NvccHostPrelude.h) written into
/// \p PreludeDir (the temporary folder when empty). Fails on unreadable or
/// malformed JSON, an unreadable response or options file, or a prelude
/// that cannot be written.
llvm::Expected<DatabaseRewrite>
rewriteDatabase(llvm::StringRef File, llvm::StringRef CudaPath,
                llvm::StringRef PreludeDir = "");

/// Writes what rewriteDatabase(\p File, \p CudaPath) gives (the original,
/// when nothing needs rewriting) to \p Dir/compile_commands.json, for clangd
/// and other tools that read clang's commands: `--export-database DIR`.
/// Returns the units that cannot be analysed (kept as written), and why.
llvm::Expected<std::map<std::string, std::string>>
exportDatabase(llvm::StringRef File, llvm::StringRef CudaPath,
               llvm::StringRef Dir);

} // namespace torch_tidy

#endif // TORCH_TIDY_TOOL_REALDATABASE_H
