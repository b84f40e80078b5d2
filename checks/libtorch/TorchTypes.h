//===- TorchTypes.h - is this LibTorch? -------------------------*- C++ -*-===//
//
// Answers whether a type, class, method or function belongs to LibTorch and
// which one it is: the tensor classes (at::Tensor, at::TensorBase), types
// that hold tensors (IValue, tuples and containers of tensors), in-place
// tensor methods, classes derived from a named LibTorch base, and code
// declared in LibTorch's namespaces (at::, torch::, c10::). Modules and
// optimizers have their own file, TorchModules.h.
//
//===----------------------------------------------------------------------===//
#ifndef TORCH_TIDY_LIBTORCH_TORCHTYPES_H
#define TORCH_TIDY_LIBTORCH_TORCHTYPES_H

#include "clang/AST/DeclCXX.h"
#include "clang/AST/Type.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "llvm/ADT/StringRef.h"

namespace clang::tidy::torch::libtorch {

/// Matches a method declared in at::Tensor or at::TensorBase.
inline ast_matchers::DeclarationMatcher tensorMethod() {
  using namespace ast_matchers;
  return cxxMethodDecl(ofClass(hasAnyName("::at::Tensor", "::at::TensorBase")));
}

/// True if \p RD is at::Tensor or at::TensorBase.
bool isTensorRecord(const CXXRecordDecl *RD);

/// True if \p T (after references and typedefs) is at::Tensor or TensorBase.
bool isTensorType(QualType T);

/// True for a tensor, IValue, or a class template (tuple, vector, pair, ...)
/// with such an argument.
bool isTensorLikeType(QualType T);

/// True for std::vector<at::Tensor> and std::deque<at::Tensor> (references
/// and cv-qualifiers ignored): a container whose elements are tensors.
bool isTensorSequenceType(QualType T);

/// True for a tensor-like type (isTensorLikeType), or a struct with a
/// tensor-like member (`struct Output { torch::Tensor action, value; }`).
bool holdsTensors(QualType T);

/// In-place tensor methods follow the trailing-underscore naming convention.
bool isInPlaceTensorMethod(const CXXMethodDecl *Method);

/// True if \p RD is, or derives from, the class named \p QualifiedName
/// ("torch::optim::Optimizer"); for templates, any specialization matches.
bool isOrDerivesFrom(const CXXRecordDecl *RD, llvm::StringRef QualifiedName);

/// The outermost named namespace around \p D, looking through inline and
/// anonymous ones ("at", "std"), or "" if none.
llvm::StringRef outermostNamespace(const Decl *D);

/// True if \p D is declared in LibTorch: in namespace at, torch or c10.
bool isLibTorchDecl(const Decl *D);

} // namespace clang::tidy::torch::libtorch

#endif // TORCH_TIDY_LIBTORCH_TORCHTYPES_H
