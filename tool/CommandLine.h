//===- CommandLine.h - torch-tidy's command line, parsed once ------------===//
// One pass over argv gives everything torch-tidy decides on before clang-tidy
// parses the same arguments with llvm::cl: the batch driver's own flags, the
// clang-tidy options it inspects, and the arguments each worker receives.
#ifndef TORCH_TIDY_TOOL_COMMANDLINE_H
#define TORCH_TIDY_TOOL_COMMANDLINE_H

#include "llvm/ADT/StringRef.h"
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace torch_tidy {

/// Internal flag the batch driver passes to its workers: the parent already
/// validated the input, so the worker goes straight to clang-tidy.
inline constexpr llvm::StringLiteral WorkerFlag = "--torch-tidy-worker";
/// Where a batch worker writes its unit's facts (device::ProgramFacts).
inline constexpr llvm::StringLiteral UnitFactsFlag = "torch-tidy-unit-facts";
/// Internal flag: `torch-tidy --torch-tidy-build-preamble -- CLANG ARGS...`
/// builds one shared preamble (SharedPreamble.h) for the batch driver.
inline constexpr llvm::StringLiteral BuildPreambleFlag =
    "--torch-tidy-build-preamble";

struct CommandLine {
  // Batch mode's own flags.
  std::optional<unsigned> Jobs;
  std::string Format = "text";
  std::optional<std::string> Output, Baseline, WriteBaseline, DiffRef, DiffFile,
      Shard, SourceRoot, RuntimeReport;
  std::string DocBaseUrl =
      "https://github.com/torch-tidy/torch-tidy/blob/main/docs/checks/";
  bool MergeSarif = false;
  bool Quiet = false;
  bool Verbose = false; ///< --verbose: the device checks' skip remarks

  // Speed, in every mode (docs/performance.md).
  std::optional<std::string> CacheDir; ///< --cache-dir or TORCH_TIDY_CACHE_DIR
  /// A batch worker's facts file (--torch-tidy-unit-facts, set by the driver).
  std::optional<std::string> UnitFacts;
  uint64_t CacheMaxBytes = 1ull << 30; ///< --cache-max-size
  bool SharedPreamble = true;          ///< --shared-preamble=on|off (batch)
  bool BuildsPreamble = false;         ///< internal: BuildPreambleFlag

  /// --cuda-path: the CUDA toolkit for CUDA units (batch/CudaCommand.h).
  std::optional<std::string> CudaPath;
  /// --export-database DIR: write the database the analysis would use
  /// (CUDA entries as clang's host-side commands) for clangd, and stop.
  std::optional<std::string> ExportDatabase;

  // The clang-tidy options torch-tidy looks at.
  std::vector<std::string> Sources; ///< positional arguments before "--"
  std::optional<std::string> BuildPath, Checks, Config, ConfigFile,
      WarningsAsErrors;
  bool HasResourceDir = false;
  bool HasFixed = false;          ///< "--" given: no compilation database
  std::vector<std::string> Fixed; ///< arguments after "--"
  bool WantsVersion = false;

  /// clang-tidy options before "--", as given, for the workers.
  std::vector<std::string> TidyArgs;

  // What the parse saw.
  bool IsWorker = false;
  bool SawBatchFlag = false, SawInfoFlag = false;
  std::optional<std::string> Unsupported; ///< e.g. "--fix", not in batch mode
  std::optional<std::string> Error;       ///< a malformed driver flag

  /// Batch mode: any batch-only flag, or `-p DIR` with no sources.
  bool isBatch() const {
    if (IsWorker || SawInfoFlag)
      return false;
    return SawBatchFlag || Error || (Sources.empty() && BuildPath && !HasFixed);
  }
};

/// How many arguments torch-tidy's own flag \p A takes from argv (1, or 2
/// when its value follows), or 0 when it is not one. They are never passed
/// on to clang-tidy: the internal flags, --verbose, --cache-dir,
/// --cache-max-size, --shared-preamble, --cuda-path and --export-database.
unsigned ownFlagArity(llvm::StringRef A);

/// True for a clang-tidy option that takes a value ("-p build", "-p=build").
bool tidyOptionTakesValue(llvm::StringRef Name);

CommandLine parseCommandLine(const std::vector<std::string> &Args);

} // namespace torch_tidy

#endif // TORCH_TIDY_TOOL_COMMANDLINE_H
