//===- SharedPreamble.h - one precompiled header for many units ----------===//
// Answers: which units can share one precompiled header of the library
// headers they start with (LeadingIncludes.h), and how is it built? A unit
// that shares one is analysed with `-include-pch P`: the header's
// declarations and macros come from P, and the unit's own includes of those
// headers then do nothing. Units share when their flags are the same but
// for the folders they search for their own headers (-I, -iquote), and
// their leading includes read the same files under those flags, which the
// preprocessor shows. See docs/performance.md.
#ifndef TORCH_TIDY_TOOL_SHAREDPREAMBLE_H
#define TORCH_TIDY_TOOL_SHAREDPREAMBLE_H

#include "clang-tidy/ClangTidyOptions.h"
#include "tool/CommandLine.h"
#include "tool/cache/UnitKey.h"
#include "clang/Tooling/CompilationDatabase.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include <optional>
#include <string>
#include <vector>

namespace torch_tidy {

/// The clang command line a worker parses a unit compiled by \p Cmd with
/// under \p Options, without the source file: the unit's own command minus
/// the source and outputs, plus torch-tidy's and the configuration's extra
/// arguments.
std::vector<std::string>
unitClangArgs(const CommandLine &C, const clang::tooling::CompileCommand &Cmd,
              const clang::tidy::ClangTidyOptions &Options);

/// The clang command line that builds \p Header into \p Pch for units with
/// \p UnitArgs (from unitClangArgs).
std::vector<std::string> preambleCommand(llvm::ArrayRef<std::string> UnitArgs,
                                         llvm::StringRef Header,
                                         llvm::StringRef Pch);

/// \p UnitArgs without the folders searched for the unit's own headers
/// (-I, -iquote): units whose leading includes read the same files under
/// their own folders and have equal keys can share a precompiled header.
std::string sharingKey(llvm::ArrayRef<std::string> UnitArgs);

/// True when \p Cmd already uses a precompiled header or a forced include,
/// which a shared preamble cannot stack on.
bool hasForcedInclude(const clang::tooling::CompileCommand &Cmd);

/// Runs the clang command line \p Args (from preambleCommand) in this
/// process; the reason when it fails or reports any diagnostic at all (a
/// preamble whose parse says anything could change what units report).
std::optional<std::string> buildPreamble(llvm::ArrayRef<std::string> Args);

/// Units that share one precompiled header: its directives, the command
/// line it is built with (its first unit's), the files it reads, a key over
/// all that, and the units' indices, in order.
struct PreambleGroup {
  std::string Directives;
  std::vector<std::string> UnitArgs; ///< the first unit's, without source
  std::string Directory;             ///< where the first unit compiles
  std::vector<std::string> Files;
  std::string Key;
  std::vector<size_t> Units;
};

/// The groups among \p Units (indices into \p Files, absolute paths, and
/// \p Inputs, what each is analysed with) that could share a precompiled
/// header, one per set of leading includes, in file order; the units are
/// scanned on \p Jobs threads.
std::vector<PreambleGroup> planPreambles(const CommandLine &C,
                                         llvm::ArrayRef<std::string> Files,
                                         llvm::ArrayRef<UnitInputs> Inputs,
                                         llvm::ArrayRef<size_t> Units,
                                         unsigned Jobs);

} // namespace torch_tidy

#endif // TORCH_TIDY_TOOL_SHAREDPREAMBLE_H
