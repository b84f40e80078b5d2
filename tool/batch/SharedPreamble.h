//===- SharedPreamble.h - one precompiled preamble for many units --------===//
// Answers: where does a source file's LibTorch preamble end, which units can
// share one precompiled preamble, and how is it built? A unit that shares
// one is analysed with `-include-pch P -Xclang -preamble-bytes=N,1`: clang
// skips the first N bytes of the file and takes their declarations and
// macros from P, as clangd does with its own preamble. See
// docs/performance.md.
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

struct Preamble {
  std::string Directives; ///< the directives alone, one per line
  unsigned Bytes = 0;     ///< its length in the file, up to a line start
};

/// The start of \p Source up to and including the line of its last include
/// of a torch header (<torch/...>), when everything before that line is
/// blank, a comment, or an #include, #define, #undef or #pragma directive.
std::optional<Preamble> scanPreamble(llvm::StringRef Source);

/// The clang command line that builds \p Header into \p Pch for units
/// compiled by \p Cmd under \p Options: the unit's own command as
/// clang-tidy would run it, minus the source and outputs, plus torch-tidy's
/// and the configuration's extra arguments.
std::vector<std::string>
preambleCommand(const CommandLine &C, const clang::tooling::CompileCommand &Cmd,
                const clang::tidy::ClangTidyOptions &Options,
                llvm::StringRef Header, llvm::StringRef Pch);

/// The part of a unit's compile command that decides its preamble; units
/// with equal keys and equal directives share one.
std::string preambleGroupKey(const clang::tooling::CompileCommand &Cmd);

/// True when \p Cmd already uses a precompiled header or a forced include,
/// which a shared preamble cannot stack on.
bool hasForcedInclude(const clang::tooling::CompileCommand &Cmd);

/// Runs the clang command line \p Args (from preambleCommand) in this
/// process; the reason when it fails or reports any diagnostic at all (a
/// preamble whose parse says anything could change what units report).
std::optional<std::string> buildPreamble(llvm::ArrayRef<std::string> Args);

/// Units that share one preamble: their directives, the command and
/// configuration it is built with, and the units' indices, in order.
struct PreambleGroup {
  std::string Directives;
  clang::tooling::CompileCommand Command; ///< its first unit's
  clang::tidy::ClangTidyOptions Options;  ///< its first unit's
  std::vector<size_t> Units;
};

/// The groups of at least \p MinUnits among \p Units (indices into
/// \p Files, absolute paths, and \p Inputs, what each is analysed with)
/// that can share a preamble; \p Bytes receives each grouped unit's
/// preamble length (0 for the others).
std::vector<PreambleGroup> planPreambles(llvm::ArrayRef<std::string> Files,
                                         llvm::ArrayRef<UnitInputs> Inputs,
                                         llvm::ArrayRef<size_t> Units,
                                         size_t MinUnits,
                                         std::vector<unsigned> &Bytes);

} // namespace torch_tidy

#endif // TORCH_TIDY_TOOL_SHAREDPREAMBLE_H
