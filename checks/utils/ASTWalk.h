//===- ASTWalk.h - walking outward from a matched node -------------------===//
// Matchers with hasParent/hasAncestor build the parent map of the whole
// translation unit up front. Checks instead match narrowly and walk outward
// here, so the map is built only for translation units with a candidate.
#ifndef TORCH_TIDY_UTILS_ASTWALK_H
#define TORCH_TIDY_UTILS_ASTWALK_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Stmt.h"

namespace clang::tidy::torch::utils {

/// The function, method or lambda body that contains \p S, or null.
const FunctionDecl *enclosingFunction(ASTContext &Ctx, const Stmt *S);

/// True when \p S belongs to a template instantiation (a function template
/// specialization, or a member of a class template specialization).
bool isInTemplateInstantiation(ASTContext &Ctx, const Stmt *S);

} // namespace clang::tidy::torch::utils

#endif
