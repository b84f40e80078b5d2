//===- TorchTypes.cpp - is this LibTorch? ---------------------------------===//
#include "libtorch/TorchTypes.h"
#include "clang/AST/DeclTemplate.h"

namespace clang::tidy::torch::libtorch {

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

static bool isTensorLike(QualType T, unsigned Depth) {
  if (T.isNull() || Depth > 4)
    return false;
  const auto *RD = T.getNonReferenceType()->getAsCXXRecordDecl();
  if (!RD)
    return false;
  if (isTensorType(T))
    return true;
  if (!RD->getIdentifier())
    return false;
  std::string Name = RD->getQualifiedNameAsString();
  if (Name == "c10::IValue" || Name == "c10::ivalue::Tuple")
    return true;
  const auto *Spec = dyn_cast<ClassTemplateSpecializationDecl>(RD);
  if (!Spec)
    return false;
  for (const TemplateArgument &A : Spec->getTemplateArgs().asArray()) {
    if (A.getKind() == TemplateArgument::Type &&
        isTensorLike(A.getAsType(), Depth + 1))
      return true;
    if (A.getKind() == TemplateArgument::Pack)
      for (const TemplateArgument &P : A.pack_elements())
        if (P.getKind() == TemplateArgument::Type &&
            isTensorLike(P.getAsType(), Depth + 1))
          return true;
  }
  return false;
}

bool isTensorLikeType(QualType T) { return isTensorLike(T, 0); }

bool isTensorSequenceType(QualType T) {
  if (T.isNull())
    return false;
  const auto *Spec = dyn_cast_or_null<ClassTemplateSpecializationDecl>(
      T.getNonReferenceType()->getAsCXXRecordDecl());
  if (!Spec || Spec->getTemplateArgs().size() < 1 ||
      Spec->getTemplateArgs()[0].getKind() != TemplateArgument::Type)
    return false;
  std::string Name = Spec->getQualifiedNameAsString();
  return (Name == "std::vector" || Name == "std::deque") &&
         isTensorType(Spec->getTemplateArgs()[0].getAsType());
}

bool holdsTensors(QualType T) {
  if (isTensorLikeType(T))
    return true;
  const auto *RD = T.getNonReferenceType()->getAsCXXRecordDecl();
  RD = RD ? RD->getDefinition() : nullptr;
  return RD && !isa<ClassTemplateSpecializationDecl>(RD) &&
         llvm::any_of(RD->fields(), [](const FieldDecl *F) {
           return isTensorLikeType(F->getType());
         });
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
  StringRef Outer;
  for (const DeclContext *DC = D->getDeclContext(); DC; DC = DC->getParent())
    if (const auto *NS = dyn_cast<NamespaceDecl>(DC))
      if (!NS->isInline() && NS->getIdentifier())
        Outer = NS->getName();
  return Outer;
}

bool isLibTorchDecl(const Decl *D) {
  StringRef NS = outermostNamespace(D);
  return NS == "at" || NS == "torch" || NS == "c10";
}

} // namespace clang::tidy::torch::libtorch
