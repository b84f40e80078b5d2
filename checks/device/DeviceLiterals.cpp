//===- DeviceLiterals.cpp - what LibTorch constants say, in the lattice --===//
#include "device/DeviceLiterals.h"
#include "ast/ASTHelpers.h"
#include "libtorch/DeviceRules.h"
#include "libtorch/TorchTypes.h"
#include "clang/AST/ExprCXX.h"

namespace clang::tidy::torch::device {

TensorRank
sizesRank(const Expr *Sizes,
          llvm::function_ref<TensorRank(const Expr *)> RankOfTensor) {
  Sizes = ast::stripImplicit(Sizes);
  if (!Sizes || isa<CXXDefaultArgExpr>(Sizes))
    return TensorRank::unknown();
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Sizes)) {
    const CXXMethodDecl *MD = MC->getMethodDecl();
    if (MD && MD->getIdentifier() && MD->getName() == "sizes" &&
        libtorch::isTensorRecord(MD->getParent()))
      return RankOfTensor(MC->getImplicitObjectArgument());
    return TensorRank::unknown();
  }
  const auto *CE = dyn_cast<CXXConstructExpr>(Sizes);
  if (!CE)
    return TensorRank::unknown();
  if (CE->isListInitialization() || CE->isStdInitListInitialization()) {
    if (const InitListExpr *IL = libtorch::initListOf(Sizes))
      return TensorRank::exactly(IL->getNumInits());
    if (CE->getNumArgs() == 0)
      return TensorRank::exactly(0);
  }
  if (CE->getNumArgs() == 1) {
    QualType P = CE->getConstructor()->getParamDecl(0)->getType();
    if (P.getNonReferenceType()->isIntegerType())
      return TensorRank::exactly(1); // ArrayRef from one element
    if (const InitListExpr *IL = libtorch::initListOf(CE->getArg(0)))
      return TensorRank::exactly(IL->getNumInits());
    return sizesRank(CE->getArg(0), RankOfTensor);
  }
  return TensorRank::unknown();
}

TensorRank tensorDataRank(const Expr *Data) {
  Data = ast::stripImplicit(Data);
  while (const auto *B = dyn_cast_or_null<CXXBindTemporaryExpr>(Data))
    Data = ast::stripImplicit(B->getSubExpr());
  const auto *CE = dyn_cast_or_null<CXXConstructExpr>(Data);
  if (!CE || CE->getNumArgs() != 1)
    return TensorRank::unknown();
  QualType P =
      CE->getConstructor()->getParamDecl(0)->getType().getNonReferenceType();
  if (P->isArithmeticType())
    return TensorRank::exactly(0);
  const CXXRecordDecl *RD = P->getAsCXXRecordDecl();
  if (!RD || !RD->getIdentifier())
    return TensorRank::unknown();
  StringRef N = RD->getName();
  if (N == "initializer_list")
    return TensorRank::nonScalar();
  if (N == "ArrayRef" || N == "vector")
    return TensorRank::exactly(1);
  if (N == "complex" || N == "Half" || N == "BFloat16" || N == "Scalar")
    return TensorRank::exactly(0);
  return TensorRank::unknown();
}

std::optional<DeviceValue> constantDeviceType(const Expr *E,
                                              const ASTContext &Ctx) {
  E = ast::stripImplicit(E);
  const auto *ET = E ? E->getType()->getAs<EnumType>() : nullptr;
  if (!ET || E->isValueDependent())
    return std::nullopt;
  Expr::EvalResult R;
  if (!E->EvaluateAsInt(R, Ctx))
    return std::nullopt;
  for (const EnumConstantDecl *C : ET->getDecl()->enumerators()) {
    if (!llvm::APSInt::isSameValue(C->getInitVal(), R.Val.getInt()))
      continue;
    if (C->getName() == "CPU")
      return DeviceValue::cpu();
    if (C->getName() == "CUDA")
      return DeviceValue::cuda();
    return DeviceValue::unknown();
  }
  return DeviceValue::unknown();
}

DeviceValue parseDeviceString(StringRef S) {
  if (S == "cpu" || S.starts_with("cpu:"))
    return DeviceValue::cpu();
  if (S == "cuda")
    return DeviceValue::cuda();
  int Index = 0;
  if (S.consume_front("cuda:") && !S.getAsInteger(10, Index))
    return DeviceValue::cuda(Index);
  return DeviceValue::unknown();
}

} // namespace clang::tidy::torch::device
