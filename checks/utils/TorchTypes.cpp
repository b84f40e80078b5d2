#include "TorchTypes.h"
#include "clang/AST/DeclCXX.h"

namespace clang::tidy::torch::utils {

static bool isTensorRecord(const CXXRecordDecl *RD) {
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

} // namespace clang::tidy::torch::utils
