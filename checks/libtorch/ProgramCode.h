//===- ProgramCode.h - is this the program's code or a library's? -*- C++
//-*-===//
//
// Answers whether a location, declaration or function belongs to the
// program under analysis or to a library: a system header, or LibTorch's
// own headers however they were included. LibTorch is recognised by its
// files (a folder of its include tree holds c10/macros/Macros.h) and by the
// namespaces at and c10, never by -isystem alone: CMake's imported `torch`
// target gives -isystem, include_directories(${TORCH_INCLUDE_DIRS}) gives -I,
// and both must give the same findings.
//
//===----------------------------------------------------------------------===//
#ifndef TORCH_TIDY_LIBTORCH_PROGRAMCODE_H
#define TORCH_TIDY_LIBTORCH_PROGRAMCODE_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include <vector>

namespace clang::tidy::torch::libtorch {

/// True if the file at \p Path (absolute) lies in LibTorch's include tree.
bool isLibTorchFile(llvm::StringRef Path);

/// True if \p Loc (its expansion) lies in a system header or in a file of
/// LibTorch's include tree.
bool isLibraryLocation(const SourceManager &SM, SourceLocation Loc);

/// True if \p D is a library's: declared in a library file
/// (isLibraryLocation), or in namespace at, c10 or std (ATen's kernels are
/// LibTorch's wherever they are written). A program's own code in namespace
/// torch is the program's.
bool isLibraryDecl(const Decl *D);

/// Matches a declaration for which isLibraryDecl holds; the checks'
/// matchers use `unless(libtorch::isLibraryCode())`.
AST_MATCHER(Decl, isLibraryCode) {
  (void)Finder;
  (void)Builder;
  return isLibraryDecl(&Node);
}

/// The function definitions of the program's own code (outside library
/// files; template instantiations included, dependent code and lambdas
/// excluded), in source order. \p WithPatterns adds template code that
/// nothing in the unit instantiates (ast::isUninstantiatedPattern).
std::vector<const FunctionDecl *>
programFunctionDefinitions(ASTContext &Ctx, bool WithPatterns = false);

} // namespace clang::tidy::torch::libtorch

#endif
