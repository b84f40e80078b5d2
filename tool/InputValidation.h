//===- InputValidation.h - reading and checking torch-tidy's argv --------===//
// clang-tidy recovers from bad input (a missing file, a broken compilation
// database, a misspelt check) with warnings and carries on. torch-tidy is
// used as a CI gate, so it rejects such input up front with one line.
#ifndef TORCH_TIDY_TOOL_INPUTVALIDATION_H
#define TORCH_TIDY_TOOL_INPUTVALIDATION_H

#include "tool/CommandLine.h"
#include "clang/Tooling/CompilationDatabase.h"
#include <memory>
#include <optional>
#include <string>

namespace torch_tidy {

/// Why \p Path cannot be analysed (missing, a directory, a symlink loop...),
/// in one line; nothing when it is a readable file.
std::optional<std::string> checkSourceFile(llvm::StringRef Path);

/// The compile_commands.json that `-p \p Path` names: Path itself, or the
/// file of that name in it when Path is a folder.
std::string databaseFile(llvm::StringRef Path);

/// The compile_commands.json clang-tidy would find for \p Source, if any:
/// the nearest one in its folder or above.
std::optional<std::string> findDatabase(llvm::StringRef Source);

/// A one-line description of what is wrong with the input, if anything.
/// The compilation database named by -p is loaded once; when \p DB is given
/// it receives it, so the caller need not load it again.
std::optional<std::string> validateInputs(
    const CommandLine &C,
    std::unique_ptr<clang::tooling::CompilationDatabase> *DB = nullptr);

/// What the nearest .clang-tidy above \p Source (or the working directory,
/// for "") that sets 'Checks' says of the torch-* checks.
enum class TorchChecksInConfig : unsigned char {
  NoConfig,     ///< none sets Checks: torch-tidy's default, -*,torch-*
  Enabled,      ///< it enables some torch-* check
  NotMentioned, ///< it enables none and does not name them (-*,bugprone-*):
                ///< torch-tidy adds torch-*
  Disabled,     ///< it disables them explicitly (-torch-*): respected
};
TorchChecksInConfig torchChecksInConfig(llvm::StringRef Source);

} // namespace torch_tidy

#endif // TORCH_TIDY_TOOL_INPUTVALIDATION_H
