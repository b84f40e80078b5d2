//===- HotLoops.cpp - loops that run a training or inference step ---------===//
#include "HotLoops.h"
#include "ASTHelpers.h"
#include "TorchModules.h"
#include "TorchTypes.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"

namespace clang::tidy::torch::utils {

StringRef HotMarker::loopKind() const {
  switch (Kind) {
  case HotMarkerKind::Backward:
  case HotMarkerKind::OptimizerStep:
    return "training";
  case HotMarkerKind::Forward:
    return "inference";
  case HotMarkerKind::DataLoader:
    return "data-loading";
  }
  return "";
}

std::string HotMarker::describe() const {
  switch (Kind) {
  case HotMarkerKind::Backward:
  case HotMarkerKind::OptimizerStep:
    return "this loop runs a training step: '" + Name + "' is called here";
  case HotMarkerKind::Forward:
    if (Name == "operator()")
      return "this loop runs the model: the module is called here";
    return "this loop runs the model: '" + Name + "' is called here";
  case HotMarkerKind::DataLoader:
    return "this loop fetches a batch from a data loader on every iteration";
  }
  return "";
}

/// If \p E is itself a hot marker, describes it.
static HotMarker asHotMarker(const Expr *E) {
  HotMarker M;
  const auto *Call = dyn_cast_or_null<CallExpr>(E);
  if (!Call)
    return M;
  const auto *FD = dyn_cast_or_null<FunctionDecl>(Call->getCalleeDecl());
  if (!FD)
    return M;
  auto Found = [&](HotMarkerKind K, std::string Name) {
    M.E = E;
    M.Kind = K;
    M.Name = std::move(Name);
    return M;
  };
  if (const auto *MD = dyn_cast<CXXMethodDecl>(FD)) {
    const CXXRecordDecl *RD = MD->getParent();
    if (MD->getOverloadedOperator() == OO_Call)
      return isForwardableModuleClass(RD)
                 ? Found(HotMarkerKind::Forward, "operator()")
                 : M;
    if (!MD->getDeclName().isIdentifier())
      return M;
    StringRef Name = MD->getName();
    if (Name == "backward" && isTensorRecord(RD))
      return Found(HotMarkerKind::Backward, "backward");
    if ((Name == "step" || Name == "zero_grad") && isOptimizerClass(RD))
      return Found(HotMarkerKind::OptimizerStep, Name.str());
    if ((Name == "forward" || Name == "any_forward") &&
        isForwardableModuleClass(RD))
      return Found(HotMarkerKind::Forward, Name.str());
    return M;
  }
  if (!FD->getDeclName().isIdentifier())
    return M;
  StringRef Name = FD->getName();
  if ((Name == "backward" || Name == "grad") &&
      FD->getQualifiedNameAsString() == ("torch::autograd::" + Name).str())
    return Found(HotMarkerKind::Backward, "torch::autograd::" + Name.str());
  return M;
}

/// The data loader \p Loop iterates over, if it is a range-for over one.
static const Expr *dataLoaderRange(const Stmt *Loop) {
  const auto *R = dyn_cast<CXXForRangeStmt>(Loop);
  if (!R || !R->getRangeInit())
    return nullptr;
  QualType T = R->getRangeInit()->getType().getNonReferenceType();
  return isOrDerivesFrom(T->getAsCXXRecordDecl(), "torch::data::DataLoaderBase")
             ? R->getRangeInit()
             : nullptr;
}

/// Searches \p S, not entering nested loops or lambdas, for the first marker
/// of each kind; stops at a backward pass.
static bool searchMarkers(const Stmt *S, HotMarker (&First)[4]) {
  if (!S || isLoop(S) || isa<LambdaExpr>(S))
    return false;
  if (const auto *E = dyn_cast<Expr>(S)) {
    if (HotMarker M = asHotMarker(E)) {
      HotMarker &Slot = First[static_cast<unsigned>(M.Kind)];
      if (!Slot)
        Slot = std::move(M);
      if (Slot.Kind == HotMarkerKind::Backward)
        return true;
    }
  }
  return llvm::any_of(S->children(), [&](const Stmt *Child) {
    return searchMarkers(Child, First);
  });
}

HotMarker findHotMarker(const Stmt *Loop) {
  HotMarker First[4];
  for (const Stmt *Part : iterationParts(Loop))
    if (searchMarkers(Part, First))
      break;
  if (const Expr *Range = dataLoaderRange(Loop)) {
    HotMarker &Slot = First[static_cast<unsigned>(HotMarkerKind::DataLoader)];
    Slot.E = Range;
    Slot.Kind = HotMarkerKind::DataLoader;
    Slot.Name = "data loader";
  }
  // The enumerators are in order of preference.
  for (HotMarker &M : First)
    if (M)
      return std::move(M);
  return {};
}

} // namespace clang::tidy::torch::utils
