//===- PrecompiledLibrary.h - what a unit can leave to its PCH --*- C++ -*-===//
//
// Answers what of a library's code a unit read with a precompiled header
// (the shared preamble, clangd's preamble, the tests' <torch/torch.h>) need
// not handle again, where "library" is ProgramCode.h's: a system header or
// LibTorch's files, however they were included.
// - The vtables the header's library code used: clang defines a used vtable
//   at the end of each unit, not in the header, so every unit instantiated
//   again the virtual members of LibTorch's templates
//   (Cloneable<LinearImpl>::clone, pretty_print, reset...), about 1.7 s of a
//   2 s parse, for bodies no check reads. A vtable the program's own code
//   uses is defined as before, and a member it calls is instantiated.
// - The library's top-level declarations, in the matchers' traversal:
//   clang-tidy already skips system headers there, but not LibTorch
//   included with -I, which cost about 1.5 s more per unit than -isystem.
// A unit parsed in full (no precompiled header) is read as before.
//
//===----------------------------------------------------------------------===//
#ifndef TORCH_TIDY_LIBTORCH_PRECOMPILEDLIBRARY_H
#define TORCH_TIDY_LIBTORCH_PRECOMPILEDLIBRARY_H

#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Preprocessor.h"

namespace clang::tidy::torch::libtorch {

/// Called as the unit \p PP preprocesses starts: once Sema has read the
/// unit's precompiled header, drops the vtables its library code used from
/// those Sema defines at the end of the unit, and marks the unit for
/// narrowTraversalToProgram. Does nothing without a precompiled header.
/// Calling it again for the same unit is harmless.
void skipPrecompiledLibrary(const SourceManager &SM, Preprocessor &PP);

/// Called as the matchers start on a unit: in a unit skipPrecompiledLibrary
/// marked, whose traversal nobody narrowed before (clangd narrows it to the
/// main file), the matchers traverse only the top-level declarations that
/// are not the library's. The first call of a unit does it.
void narrowTraversalToProgram();

} // namespace clang::tidy::torch::libtorch

#endif // TORCH_TIDY_LIBTORCH_PRECOMPILEDLIBRARY_H
