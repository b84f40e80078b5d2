//===- CheckOptions.h - strict option parsing -------------------*- C++ -*-===//
//
// Answers what a torch-* check's options say. clang-tidy falls back to the
// default on a malformed option value and only warns. torch-* checks report
// it as an error instead, so a misconfigured CI gate fails (non-zero exit)
// rather than passing silently. Lists are split and joined by clang-tidy's
// own utils/OptionsUtils.h.
//
//===----------------------------------------------------------------------===//
#ifndef TORCH_TIDY_AST_CHECKOPTIONS_H
#define TORCH_TIDY_AST_CHECKOPTIONS_H

#include "clang-tidy/ClangTidyCheck.h"
#include "llvm/ADT/StringRef.h"
#include <string>
#include <vector>

namespace clang::tidy::torch::ast {

/// Reads boolean option \p Name of \p Check; a bad value is an error.
bool getBoolOption(const ClangTidyCheck &Check,
                   const ClangTidyCheck::OptionsView &Options, StringRef Name,
                   bool Default);

/// The default of a check's Verbose option: true when the environment sets
/// TORCH_TIDY_VERBOSE (torch-tidy --verbose does) to anything but "0".
bool verboseByDefault();

/// Reads a ';'-separated list of identifiers; a malformed entry is an error.
std::vector<std::string>
getListOption(const ClangTidyCheck &Check,
              const ClangTidyCheck::OptionsView &Options, StringRef Name,
              StringRef Default);

/// Joins a list back into its ';'-separated option form.
std::string joinList(const std::vector<std::string> &Items);

} // namespace clang::tidy::torch::ast

#endif // TORCH_TIDY_AST_CHECKOPTIONS_H
