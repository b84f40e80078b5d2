//===- AutogradHistory.cpp - which values carry an autograd graph ---------===//
#include "program/AutogradHistory.h"
#include "ast/ASTHelpers.h"
#include "libtorch/TorchModules.h"
#include "libtorch/TorchTypes.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringSwitch.h"

namespace clang::tidy::torch::program {

/// Methods and functions whose result has no grad_fn.
static bool isNonDifferentiable(StringRef Name) {
  return llvm::StringSwitch<bool>(Name)
      .Cases({"detach", "data", "item", "argmax", "argmin", "argsort"}, true)
      .Cases({"eq", "ne", "lt", "le", "gt", "ge", "equal", "isnan"}, true)
      .Cases({"isinf", "isfinite", "nonzero", "sizes", "numel"}, true)
      .Cases({"zeros_like", "ones_like", "empty_like", "full_like"}, true)
      .Cases({"rand_like", "randn_like", "randint_like", "bucketize"}, true)
      .Cases({"multinomial", "randint", "randperm", "searchsorted"}, true)
      .Default(Name.starts_with("logical_"));
}

static bool isLossFunction(const FunctionDecl *FD) {
  if (!FD || isa<CXXMethodDecl>(FD) || !FD->getIdentifier())
    return false;
  StringRef N = FD->getName();
  bool Loss = N.ends_with("_loss") || N == "cross_entropy" ||
              N == "binary_cross_entropy" ||
              N == "binary_cross_entropy_with_logits" || N == "kl_div";
  return Loss && libtorch::isLibTorchDecl(FD);
}

/// `model->forward(x)`, `model(x)`, `seq->forward<T>(x)`, `jit.forward(in)`.
static bool isModuleCall(const Expr *E) {
  const CXXMethodDecl *M = nullptr;
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(E)) {
    M = MC->getMethodDecl();
    if (!M || !M->getIdentifier() || M->getName() != "forward")
      return false;
  } else if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(E)) {
    if (OC->getOperator() != OO_Call)
      return false;
    M = dyn_cast_or_null<CXXMethodDecl>(OC->getDirectCallee());
  }
  return M && libtorch::isForwardableModuleClass(M->getParent());
}

/// `std::get<1>(x.max(1))` and the like: the indices of a max/sort/topk,
/// also through a local tuple (`auto t = torch::max(p, 1); std::get<1>(t)`).
static bool isIndicesOfTuple(const CallExpr *C) {
  if (!ast::isStdCall(C, "get") || C->getNumArgs() != 1)
    return false;
  const auto *Args = C->getDirectCallee()->getTemplateSpecializationArgs();
  if (!Args || Args->size() == 0 ||
      Args->get(0).getKind() != TemplateArgument::Integral ||
      Args->get(0).getAsIntegral() != 1)
    return false;
  const Expr *Tuple = ast::stripCopiesAndMoves(C->getArg(0));
  if (const auto *Ref = dyn_cast<DeclRefExpr>(Tuple))
    if (const auto *VD = dyn_cast<VarDecl>(Ref->getDecl());
        VD && VD->isLocalVarDecl() && VD->getInit())
      Tuple = ast::stripCopiesAndMoves(VD->getInit());
  const auto *Inner = dyn_cast<CallExpr>(Tuple);
  const auto *FD = Inner ? Inner->getDirectCallee() : nullptr;
  return FD && FD->getIdentifier() &&
         llvm::is_contained({"max", "min", "sort", "topk", "kthvalue", "mode",
                             "median", "nanmedian", "sort_stable"},
                            FD->getName());
}

static bool isGuardType(const VarDecl *VD) {
  const auto *RD = VD->getType()->getAsCXXRecordDecl();
  if (!RD || !RD->getIdentifier())
    return false;
  std::string Name = RD->getQualifiedNameAsString();
  bool Inference = Name == "c10::InferenceMode";
  bool GradMode = Name == "c10::AutoGradMode";
  if (!Inference && !GradMode)
    return Name == "c10::NoGradGuard";
  // InferenceMode(false) is a no-op; AutoGradMode disables grad only with
  // a literal `false`.
  const auto *CE = dyn_cast_or_null<CXXConstructExpr>(
      VD->getInit() ? VD->getInit()->IgnoreImplicit() : nullptr);
  const CXXBoolLiteralExpr *Lit = nullptr;
  if (CE && CE->getNumArgs() > 0 && !isa<CXXDefaultArgExpr>(CE->getArg(0)))
    Lit = dyn_cast<CXXBoolLiteralExpr>(CE->getArg(0)->IgnoreImplicit());
  if (Inference)
    return !Lit || Lit->getValue();
  return Lit && !Lit->getValue();
}

static bool isBackwardCall(const Expr *E) {
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(E)) {
    const auto *M = MC->getMethodDecl();
    return M && M->getIdentifier() && M->getName() == "backward" &&
           libtorch::isTensorType(MC->getImplicitObjectArgument()->getType());
  }
  if (const auto *C = dyn_cast<CallExpr>(E)) {
    const auto *FD = C->getDirectCallee();
    if (!FD || isa<CXXMethodDecl>(FD) || !FD->getIdentifier() ||
        (FD->getName() != "backward" && FD->getName() != "grad"))
      return false;
    const auto *NS = dyn_cast<NamespaceDecl>(FD->getDeclContext());
    return NS && NS->getName() == "autograd" && libtorch::isLibTorchDecl(FD);
  }
  return false;
}

/// Records definitions of locals, no-grad regions and backward() calls.
class AutogradScanner {
public:
  explicit AutogradScanner(AutogradHistory &H) : H(H) {}
  void walk(const Stmt *S, const CompoundStmt *Block) {
    if (!S)
      return;
    if (const auto *CS = dyn_cast<CompoundStmt>(S))
      Block = CS;
    if (const auto *DS = dyn_cast<DeclStmt>(S))
      for (const Decl *D : DS->decls())
        if (const auto *VD = dyn_cast<VarDecl>(D))
          visitVar(VD, Block);
    if (const auto *E = dyn_cast<Expr>(S))
      visitExpr(E);
    for (const Stmt *C : S->children())
      walk(C, Block);
  }

private:
  void visitVar(const VarDecl *VD, const CompoundStmt *Block) {
    if (Block && isGuardType(VD))
      H.NoGradRegions.push_back({VD->getEndLoc(), Block->getRBracLoc()});
    else if (VD->getInit() && VD->isLocalVarDecl())
      H.Defs[VD].push_back({VD->getEndLoc(), VD->getInit()});
  }
  void define(const Expr *Target, const Expr *Value) {
    if (const auto *DRE = dyn_cast<DeclRefExpr>(ast::stripImplicit(Target)))
      if (const auto *VD = dyn_cast<VarDecl>(DRE->getDecl()))
        H.Defs[VD].push_back({Value->getEndLoc(), Value});
  }
  void visitExpr(const Expr *E) {
    if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(E)) {
      if (OC->isAssignmentOp() && OC->getNumArgs() == 2)
        define(OC->getArg(0), OC);
    } else if (const auto *MC = dyn_cast<CXXMemberCallExpr>(E)) {
      if (libtorch::isInPlaceTensorMethod(MC->getMethodDecl()))
        define(MC->getImplicitObjectArgument(), MC);
    }
    if (isBackwardCall(E))
      H.BackwardCalls.push_back(E);
  }
  AutogradHistory &H;
};

AutogradHistory::AutogradHistory(const Stmt *Body, const SourceManager &SM)
    : SM(SM) {
  AutogradScanner(*this).walk(Body, nullptr);
}

bool AutogradHistory::before(SourceLocation A, SourceLocation B) const {
  return ast::isBeforeExpanded(SM, A, B);
}

bool AutogradHistory::isUnderNoGrad(SourceLocation Loc) const {
  return llvm::any_of(NoGradRegions, [&](const auto &R) {
    return before(R.first, Loc) && !before(R.second, Loc);
  });
}

const Expr *AutogradHistory::reachingValue(const VarDecl *V,
                                           SourceLocation Loc) const {
  auto It = Defs.find(V);
  if (It == Defs.end())
    return nullptr;
  const Def *Best = nullptr;
  for (const Def &D : It->second)
    if (before(D.End, Loc) && (!Best || before(Best->End, D.End)))
      Best = &D;
  return Best ? Best->Value : nullptr;
}

bool AutogradHistory::carriesHistory(const Expr *E) { return carries(E, 0); }

bool AutogradHistory::carries(const Expr *E, unsigned Depth) {
  E = ast::stripCopiesAndMoves(E);
  if (!E || Depth > 48 || E->isTypeDependent() || E->isValueDependent())
    return false;
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
    const auto *VD = dyn_cast<VarDecl>(DRE->getDecl());
    return VD && carries(reachingValue(VD, DRE->getBeginLoc()), Depth + 1);
  }
  if (const auto *CO = dyn_cast<AbstractConditionalOperator>(E))
    return carries(CO->getTrueExpr(), Depth + 1) ||
           carries(CO->getFalseExpr(), Depth + 1);
  if (!libtorch::isTensorLikeType(E->getType()))
    return false;
  auto [It, New] = Memo.try_emplace(E, false);
  if (!New)
    return It->second;
  auto AnyOf = [&](auto Range) {
    return llvm::any_of(Range,
                        [&](const Expr *A) { return carries(A, Depth + 1); });
  };
  bool Result = false;
  const auto *OC = dyn_cast<CXXOperatorCallExpr>(E);
  if (OC && OC->isAssignmentOp() && OC->getNumArgs() == 2) {
    // The value of `a = b` is b; of `a += b` both a's and b's history.
    Result =
        carries(OC->getArg(1), Depth + 1) ||
        (OC->getOperator() != OO_Equal && carries(OC->getArg(0), Depth + 1));
  } else if (isUnderNoGrad(E->getBeginLoc())) {
    Result = false;
  } else if (isModuleCall(E)) {
    Result = true;
  } else if (const auto *MC = dyn_cast<CXXMemberCallExpr>(E)) {
    const auto *M = MC->getMethodDecl();
    Result = M && !(M->getIdentifier() && isNonDifferentiable(M->getName())) &&
             (carries(MC->getImplicitObjectArgument(), Depth + 1) ||
              AnyOf(MC->arguments()));
  } else if (OC) {
    Result = AnyOf(OC->arguments());
  } else if (const auto *C = dyn_cast<CallExpr>(E)) {
    const auto *FD = C->getDirectCallee();
    if (isLossFunction(FD))
      Result = true;
    else if (!isIndicesOfTuple(C) &&
             !(FD && FD->getIdentifier() && isNonDifferentiable(FD->getName())))
      Result = AnyOf(C->arguments());
  } else if (const auto *CE = dyn_cast<CXXConstructExpr>(E)) {
    Result = AnyOf(CE->arguments());
  } else if (const auto *IL = dyn_cast<InitListExpr>(E)) {
    Result = AnyOf(IL->inits());
  } else if (const auto *SIL = dyn_cast<CXXStdInitializerListExpr>(E)) {
    Result = carries(SIL->getSubExpr(), Depth + 1);
  } else if (const auto *Cast = dyn_cast<ExplicitCastExpr>(E)) {
    Result = carries(Cast->getSubExpr(), Depth + 1);
  } else if (const auto *MTE = dyn_cast<MaterializeTemporaryExpr>(E)) {
    Result = carries(MTE->getSubExpr(), Depth + 1);
  }
  Memo[E] = Result;
  return Result;
}

bool AutogradHistory::isScalarLoss(const Expr *E) { return scalar(E, 0); }

bool AutogradHistory::scalar(const Expr *E, unsigned Depth) {
  E = ast::stripCopiesAndMoves(E);
  if (!E || Depth > 24)
    return false;
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
    const auto *VD = dyn_cast<VarDecl>(DRE->getDecl());
    return VD && scalar(reachingValue(VD, DRE->getBeginLoc()), Depth + 1);
  }
  if (!libtorch::isTensorType(E->getType()))
    return false;
  if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(E)) {
    if (OC->isAssignmentOp() && OC->getNumArgs() == 2)
      return scalar(OC->getArg(1), Depth + 1);
    if (OC->getOperator() == OO_Call && isModuleCall(OC))
      return StringRef(OC->getArg(0)->getType().getAsString()).contains("Loss");
    // `loss * 0.5`, `a + b`: every tensor operand is a scalar loss.
    bool Any = false;
    for (const Expr *A : OC->arguments()) {
      if (!libtorch::isTensorType(A->getType()))
        continue;
      if (!scalar(A, Depth + 1))
        return false;
      Any = true;
    }
    return Any;
  }
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(E)) {
    const auto *M = MC->getMethodDecl();
    if (!M || !M->getIdentifier())
      return false;
    if (isModuleCall(MC))
      return StringRef(M->getParent()->getName()).contains("Loss");
    StringRef N = M->getName();
    if (N == "mean" || N == "sum" || N == "norm") // without a `dim`
      return llvm::none_of(M->parameters(), [](const ParmVarDecl *P) {
        std::string T = P->getType().getAsString();
        return StringRef(T).contains("ArrayRef") ||
               StringRef(T).contains("Dimname");
      });
    return llvm::is_contained({"mul", "div", "add", "sub", "to", "cpu", "cuda",
                               "clone", "neg", "sqrt", "exp", "log", "abs",
                               "pow", "contiguous"},
                              N) &&
           scalar(MC->getImplicitObjectArgument(), Depth + 1);
  }
  if (const auto *C = dyn_cast<CallExpr>(E))
    return isLossFunction(C->getDirectCallee());
  return false;
}

/// True when \p S mentions one of \p Decls.
static bool mentions(const Stmt *S,
                     const llvm::SmallPtrSetImpl<const ValueDecl *> &Decls) {
  return ast::mentions(S,
                       [&](const ValueDecl *D) { return Decls.contains(D); });
}

bool AutogradHistory::feedsBackward(const ValueDecl *D) {
  if (BackwardCalls.empty())
    return false;
  llvm::SmallPtrSet<const ValueDecl *, 8> Derived;
  Derived.insert(D);
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (const auto &[V, List] : Defs)
      if (!Derived.contains(V) && llvm::any_of(List, [&](const Def &X) {
            return mentions(X.Value, Derived);
          }))
        Changed |= Derived.insert(V).second;
  }
  return llvm::any_of(BackwardCalls,
                      [&](const Expr *B) { return mentions(B, Derived); });
}

} // namespace clang::tidy::torch::program
