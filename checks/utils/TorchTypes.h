//===- TorchTypes.h - recognising LibTorch types and calls ---------------===//
#ifndef TORCH_TIDY_UTILS_TORCHTYPES_H
#define TORCH_TIDY_UTILS_TORCHTYPES_H

#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/ASTMatchers/ASTMatchers.h"

namespace clang::tidy::torch::utils {

/// Fully qualified names of the tensor classes (at::Tensor is torch::Tensor).
inline constexpr llvm::StringLiteral TensorClasses[] = {"::at::Tensor",
                                                        "::at::TensorBase"};

/// Matches a method declared in at::Tensor or at::TensorBase.
inline ast_matchers::DeclarationMatcher tensorMethod() {
  using namespace ast_matchers;
  return cxxMethodDecl(ofClass(hasAnyName("::at::Tensor", "::at::TensorBase")));
}

/// True if \p T (after references and typedefs) is at::Tensor or TensorBase.
bool isTensorType(QualType T);

/// \p E without implicit nodes (temporaries, casts, cleanups) and parens.
const Expr *stripImplicit(const Expr *E);

/// The object a member call is made on, without implicit nodes and parens.
const Expr *receiverOf(const CXXMemberCallExpr *Call);

/// In-place tensor methods follow the trailing-underscore naming convention.
bool isInPlaceTensorMethod(const CXXMethodDecl *Method);

/// True if \p RD is at::Tensor or at::TensorBase.
bool isTensorRecord(const CXXRecordDecl *RD);

/// True if \p RD is, or derives from, the class named \p QualifiedName
/// ("torch::optim::Optimizer"); for templates, any specialization matches.
bool isOrDerivesFrom(const CXXRecordDecl *RD, StringRef QualifiedName);

/// The outermost namespace around \p D ("at", "std"), or "" if none.
StringRef outermostNamespace(const Decl *D);

} // namespace clang::tidy::torch::utils

#endif
