//===- LeadingIncludes.h - the library headers a unit starts with --------===//
// Answers, with the preprocessor and before any parse: which library headers
// (LibTorch's, the standard library's, any system header) does a unit
// include before anything of its own, and which files do they read under its
// flags? "Before anything of its own" follows the unit's first includes into
// its own headers: `#include "detector.h"` whose first line includes
// <torch/torch.h> starts the unit with <torch/torch.h>. Before and between
// those includes the unit's own files may hold include guards, `#pragma
// once`, comments, conditionals (#if, #ifdef, ... #endif), macros it
// defines or undefines, and diagnostic pragmas that a pop of their own
// undoes (`#pragma clang diagnostic push`, `ignored ...`, `pop`); any code,
// other pragma or computed include ends the leading part.
//
// Such a unit is unchanged by a precompiled header of those includes put in
// front of it: the headers are read in the same order with the same macros,
// and the unit's own includes of them then do nothing (each is guarded).
// Its own macros and conditionals are then processed after the headers
// instead of among them, which changes nothing as long as no header read
// after an own #define or #undef names that macro (any word of the file),
// and no header read after an own test defines or undefines a macro it
// reads; the leading part ends before the first test that fails
// (`#ifndef C10_MACROS_MACROS_H_`). When a header does name an own macro
// (`#define NDEBUG`), the list repeats the unit's own #defines and #undefs
// among its includes, where the unit has them, and the unit's own copies
// then redefine them identically; the leading part then ends before an own
// #define or #undef that an own test of the macro precedes, or that a
// header read after it redefines. The diagnostic pragmas are repeated too,
// and the list is cut only where no push is open.
// Two units can share that header when the includes and the files they read
// are the same; SharedPreamble.h groups them. The files of library headers
// are read as dependency directives only (as clang-scan-deps does), so a scan
// costs a fraction of a parse.
#ifndef TORCH_TIDY_TOOL_LEADINGINCLUDES_H
#define TORCH_TIDY_TOOL_LEADINGINCLUDES_H

#include "llvm/ADT/ArrayRef.h"
#include <optional>
#include <string>
#include <vector>

namespace torch_tidy {

struct LeadingIncludes {
  /// The directives, in order, up to the last include of a LibTorch header:
  /// the includes as spelled ("#include <torch/torch.h>"), and the own
  /// directives repeated among them ("#define NDEBUG", "#pragma clang
  /// diagnostic push").
  std::vector<std::string> Spelled;
  /// Every file they read, in the order first read (absolute paths).
  std::vector<std::string> Files;
  /// Where the list may end instead: after each LibTorch header (and the
  /// pops that follow it) where no diagnostic push is open, the number of
  /// directives and of files up to there. Any of these prefixes
  /// starts the unit as well (the rest are the unit's own includes); the
  /// last is the whole list.
  struct Cut {
    size_t Lines, Files;
  };
  std::vector<Cut> Cuts;
};

/// The leading includes of the unit compiled by the clang command line
/// \p Args (the source file included) in \p Directory; none when it does
/// not start with a LibTorch header, is not C++, or does not preprocess.
std::optional<LeadingIncludes>
scanLeadingIncludes(llvm::ArrayRef<std::string> Args,
                    llvm::StringRef Directory);

} // namespace torch_tidy

#endif // TORCH_TIDY_TOOL_LEADINGINCLUDES_H
