#include "ASTWalk.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"

namespace clang::tidy::torch::utils {

const FunctionDecl *enclosingFunction(ASTContext &Ctx, const Stmt *S) {
  DynTypedNodeList Parents = Ctx.getParents(*S);
  while (!Parents.empty()) {
    const DynTypedNode &P = Parents[0];
    if (const auto *FD = P.get<FunctionDecl>())
      return FD;
    if (const auto *LE = P.get<LambdaExpr>())
      return LE->getCallOperator();
    Parents = Ctx.getParents(P);
  }
  return nullptr;
}

static bool isInstantiatedContext(const DeclContext *DC) {
  for (; DC; DC = DC->getParent()) {
    if (const auto *FD = dyn_cast<FunctionDecl>(DC))
      if (FD->isTemplateInstantiation())
        return true;
    if (isa<ClassTemplateSpecializationDecl>(DC))
      return true;
  }
  return false;
}

bool isInTemplateInstantiation(ASTContext &Ctx, const Stmt *S) {
  const FunctionDecl *FD = enclosingFunction(Ctx, S);
  return FD && isInstantiatedContext(FD);
}

} // namespace clang::tidy::torch::utils
