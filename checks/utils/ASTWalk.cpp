#include "ASTWalk.h"
#include "clang/AST/Decl.h"
#include "clang/AST/DeclTemplate.h"

namespace clang::tidy::torch::utils {

bool isTemplateCode(const DeclContext *DC) {
  if (!DC)
    return false;
  if (DC->isDependentContext())
    return true;
  for (; DC; DC = DC->getParent()) {
    if (const auto *F = dyn_cast<FunctionDecl>(DC))
      if (F->isTemplateInstantiation())
        return true;
    if (isa<ClassTemplateSpecializationDecl>(DC))
      return true;
  }
  return false;
}

} // namespace clang::tidy::torch::utils
