//===- UnitKey.h - what decides one translation unit's analysis ----------===//
// Answers, before any parse: which compile command and which effective
// clang-tidy configuration will a unit be analysed with, and what key covers
// everything known up front that can change its findings (the build of
// torch-tidy, the unit's content, arguments and configuration)? The files it
// includes are known only after a parse; ResultCache checks those.
#ifndef TORCH_TIDY_TOOL_UNITKEY_H
#define TORCH_TIDY_TOOL_UNITKEY_H

#include "clang-tidy/ClangTidyOptions.h"
#include "tool/CommandLine.h"
#include "tool/cache/ResultCache.h"
#include "clang/Tooling/CompilationDatabase.h"
#include <optional>
#include <string>

namespace torch_tidy {

/// The --checks torch-tidy adds for \p Source when none are given: "-*,torch-*"
/// without a configuration, "torch-*" when the project's .clang-tidy does
/// not name the torch checks, nothing otherwise.
std::optional<std::string> addedChecks(const CommandLine &C,
                                       llvm::StringRef Source);

/// The configuration clang-tidy will use for \p Source: its .clang-tidy
/// files (or --config / --config-file) with the command line's checks on top.
clang::tidy::ClangTidyOptions effectiveOptions(const CommandLine &C,
                                               llvm::StringRef Source);

/// True when every check enabled for \p Source is a torch-* check. Such
/// checks do not look at preprocessor events, so a unit can share a
/// precompiled preamble without changing what is reported.
bool onlyTorchChecks(const clang::tidy::ClangTidyOptions &Options);

/// The compile command clang-tidy will use for \p Source: from \p DB, from
/// the arguments after "--", or from the compilation database found above
/// the file.
std::optional<clang::tooling::CompileCommand>
compileCommandFor(const CommandLine &C,
                  const clang::tooling::CompilationDatabase *DB,
                  llvm::StringRef Source);

/// This build of torch-tidy: its version, LLVM's, and the executable's
/// size and modification time (a rebuild changes them).
std::string buildIdentity();

/// What a unit is analysed with, looked up once per unit.
struct UnitInputs {
  std::optional<clang::tooling::CompileCommand> Command;
  clang::tidy::ClangTidyOptions Options;
  /// Where relative paths of the unit resolve: the command's directory.
  llvm::StringRef directory() const {
    return Command ? llvm::StringRef(Command->Directory) : ".";
  }
};
UnitInputs unitInputs(const CommandLine &C,
                      const clang::tooling::CompilationDatabase *DB,
                      llvm::StringRef Source);

/// The cache key of \p Source: the build of torch-tidy, \p Mode (how the
/// result will be printed), the arguments, the effective configuration, the
/// compile command and the unit's content. Empty when the unit cannot be
/// read.
std::string unitKey(const CommandLine &C, llvm::StringRef Source,
                    const UnitInputs &U, llvm::StringRef Mode,
                    FileHashes &Hashes);

} // namespace torch_tidy

#endif // TORCH_TIDY_TOOL_UNITKEY_H
