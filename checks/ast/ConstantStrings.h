//===- ConstantStrings.h - strings the program fixes in its source -------===//
// Answers: which text does a string expression hold when the source fixes
// it (a literal, or a local std::string initialised with one and only read
// afterwards), and is a comparison of two such strings true or false? A
// program that writes `std::string mode = "cpu";` and then picks its device
// with `mode == "cuda" ? kCUDA : kCPU` runs on the CPU.
#ifndef TORCH_TIDY_AST_CONSTANTSTRINGS_H
#define TORCH_TIDY_AST_CONSTANTSTRINGS_H

#include "clang/AST/Expr.h"
#include "llvm/ADT/StringRef.h"
#include <optional>

namespace clang::tidy::torch::ast {

/// The text of \p E when the source fixes it: a narrow string literal (also
/// inside a std::string built from it), or a local std::string or
/// std::string_view variable initialised from one whose every later use
/// only reads it (compared, copied, passed by value or const reference,
/// const member calls). Otherwise nullopt.
std::optional<llvm::StringRef> constantString(const Expr *E);

/// True for std::string and std::string_view (any basic_string), also
/// through a reference.
bool isStdStringType(QualType T);

/// Whether \p Cond, a `==` or `!=` of two strings that constantString
/// knows, is true; nullopt for any other condition.
std::optional<bool> constantStringComparison(const Expr *Cond);

} // namespace clang::tidy::torch::ast

#endif // TORCH_TIDY_AST_CONSTANTSTRINGS_H
