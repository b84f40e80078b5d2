//===- InputValidation.h - reading and checking torch-tidy's argv --------===//
// clang-tidy recovers from bad input (a missing file, a broken compilation
// database, a misspelt check) with warnings and carries on. torch-tidy is
// used as a CI gate, so it rejects such input up front with one line.
#ifndef TORCH_TIDY_TOOL_INPUTVALIDATION_H
#define TORCH_TIDY_TOOL_INPUTVALIDATION_H

#include "CommandLine.h"
#include "clang/Tooling/CompilationDatabase.h"
#include <memory>
#include <optional>
#include <string>

namespace torch_tidy {

/// Why \p Path cannot be analysed (missing, a directory, a symlink loop...),
/// in one line; nothing when it is a readable file.
std::optional<std::string> checkSourceFile(llvm::StringRef Path);

/// A one-line description of what is wrong with the input, if anything.
/// The compilation database named by -p is loaded once; when \p DB is given
/// it receives it, so the caller need not load it again.
std::optional<std::string> validateInputs(
    const CommandLine &C,
    std::unique_ptr<clang::tooling::CompilationDatabase> *DB = nullptr);

/// True when some .clang-tidy above the inputs (or the working directory)
/// sets 'Checks', so that torch-tidy must not impose its default.
bool configFileSetsChecks(const CommandLine &C);

} // namespace torch_tidy

#endif // TORCH_TIDY_TOOL_INPUTVALIDATION_H
