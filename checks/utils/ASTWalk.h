//===- ASTWalk.h - where a matched node sits -----------------------------===//
// Matchers with hasParent/hasAncestor build the parent map of the whole
// translation unit up front. Checks instead bind the enclosing function or
// loop top-down and ask questions of it here.
#ifndef TORCH_TIDY_UTILS_ASTWALK_H
#define TORCH_TIDY_UTILS_ASTWALK_H

#include "clang/AST/DeclBase.h"

namespace clang::tidy::torch::utils {

/// True for code that belongs to a template: a dependent context, a
/// function template instantiation, or a member of a class template
/// specialization. A fix-it there would edit the source every instance
/// shares, so checks report once and offer a note instead.
bool isTemplateCode(const DeclContext *DC);

} // namespace clang::tidy::torch::utils

#endif
