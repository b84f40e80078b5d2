#include "TorchTypes.h"
#include "clang/AST/DeclCXX.h"

namespace clang::tidy::torch::utils {

bool isTensorRecord(const CXXRecordDecl *RD) {
  if (!RD)
    return false;
  std::string Name = RD->getQualifiedNameAsString();
  return Name == "at::Tensor" || Name == "at::TensorBase";
}

bool isTensorType(QualType T) {
  return !T.isNull() &&
         isTensorRecord(T.getNonReferenceType()->getAsCXXRecordDecl());
}

const Expr *stripImplicit(const Expr *E) {
  while (E) {
    const Expr *Next = E->IgnoreImplicit()->IgnoreParens();
    if (Next == E)
      return E;
    E = Next;
  }
  return E;
}

const Expr *receiverOf(const CXXMemberCallExpr *Call) {
  return stripImplicit(Call->getImplicitObjectArgument());
}

bool isInPlaceTensorMethod(const CXXMethodDecl *Method) {
  if (!Method || !Method->getDeclName().isIdentifier())
    return false;
  StringRef Name = Method->getName();
  return Name.size() > 1 && Name.ends_with("_") && !Name.starts_with("_") &&
         isTensorRecord(Method->getParent());
}

bool isOrDerivesFrom(const CXXRecordDecl *RD, StringRef QualifiedName) {
  if (!RD)
    return false;
  if (RD->getQualifiedNameAsString() == QualifiedName)
    return true;
  RD = RD->getDefinition();
  if (!RD)
    return false;
  return llvm::any_of(RD->bases(), [&](const CXXBaseSpecifier &B) {
    return isOrDerivesFrom(B.getType()->getAsCXXRecordDecl(), QualifiedName);
  });
}

StringRef outermostNamespace(const Decl *D) {
  const NamespaceDecl *Outer = nullptr;
  for (const DeclContext *DC = D->getDeclContext(); DC; DC = DC->getParent())
    if (const auto *NS = dyn_cast<NamespaceDecl>(DC))
      Outer = NS;
  return Outer && Outer->getIdentifier() ? Outer->getName() : StringRef();
}

} // namespace clang::tidy::torch::utils
