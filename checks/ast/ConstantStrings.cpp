//===- ConstantStrings.cpp - strings the program fixes in its source -----===//
#include "ast/ConstantStrings.h"
#include "ast/ASTHelpers.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/SmallVector.h"

namespace clang::tidy::torch::ast {

/// The narrow string literal \p E is, or builds a std::string from.
static const StringLiteral *literalIn(const Expr *E, int Depth = 0) {
  if (!E || Depth > 6)
    return nullptr;
  E = stripImplicit(E);
  if (const auto *SL = dyn_cast<StringLiteral>(E))
    return SL->getCharByteWidth() == 1 ? SL : nullptr;
  if (const auto *B = dyn_cast<CXXBindTemporaryExpr>(E))
    return literalIn(B->getSubExpr(), Depth + 1);
  if (const auto *M = dyn_cast<MaterializeTemporaryExpr>(E))
    return literalIn(M->getSubExpr(), Depth + 1);
  if (const auto *CE = dyn_cast<CXXConstructExpr>(E))
    if (CE->getNumArgs() >= 1)
      return literalIn(CE->getArg(0), Depth + 1);
  return nullptr;
}

bool isStdStringType(QualType T) {
  const auto *RD = T.getNonReferenceType()->getAsCXXRecordDecl();
  return RD && RD->isInStdNamespace() && RD->getIdentifier() &&
         (RD->getName() == "basic_string" ||
          RD->getName() == "basic_string_view");
}

/// Whether passing an argument to a parameter of type \p T only reads it.
static bool readsOnly(QualType T) {
  if (const auto *Ref = T->getAs<ReferenceType>())
    return Ref->getPointeeType().isConstQualified();
  return !T->isPointerType();
}

/// Whether \p Use, a reference to the variable seen from \p Parent (its
/// nearest ancestor that is not an implicit node or parentheses), reads it
/// only. \p Grand is Parent's own parent.
static bool isReadOnlyUse(const Expr *Use, const Stmt *Parent,
                          const Stmt *Grand) {
  if (const auto *ME = dyn_cast_or_null<MemberExpr>(Parent)) {
    const auto *Call = dyn_cast_or_null<CXXMemberCallExpr>(Grand);
    const auto *MD = Call ? Call->getMethodDecl() : nullptr;
    return MD && MD->isConst() && Call->getCallee()->IgnoreParens() == ME;
  }
  const FunctionDecl *Callee = nullptr;
  llvm::ArrayRef<const Expr *> Args;
  if (const auto *Call = dyn_cast_or_null<CallExpr>(Parent)) {
    Callee = Call->getDirectCallee();
    Args = {Call->getArgs(), Call->getNumArgs()};
  } else if (const auto *CE = dyn_cast_or_null<CXXConstructExpr>(Parent)) {
    Callee = CE->getConstructor();
    Args = {CE->getArgs(), CE->getNumArgs()};
  }
  if (!Callee)
    return false;
  unsigned Param = 0;
  for (unsigned I = 0; I < Args.size(); ++I) {
    if (Args[I] != Use)
      continue;
    // The object of a member operator (`mode = "cuda"`, `mode += ...`).
    const auto *MD = dyn_cast<CXXMethodDecl>(Callee);
    if (MD && isa<CXXOperatorCallExpr>(Parent) && MD->isInstance()) {
      if (I == 0)
        return MD->isConst();
      Param = I - 1;
    } else {
      Param = I;
    }
    return Param < Callee->getNumParams() &&
           readsOnly(Callee->getParamDecl(Param)->getType());
  }
  return false;
}

/// Whether every use of \p V inside \p S only reads it.
static bool onlyRead(const VarDecl *V, const Stmt *S,
                     llvm::SmallVectorImpl<const Stmt *> &Path) {
  if (!S)
    return true;
  if (const auto *DRE = dyn_cast<DeclRefExpr>(S); DRE && DRE->getDecl() == V) {
    // Walk out of implicit nodes and parentheses to the first real parent.
    const Expr *Use = DRE;
    size_t I = Path.size();
    while (I > 0 &&
           (isa<ImplicitCastExpr>(Path[I - 1]) || isa<ParenExpr>(Path[I - 1]) ||
            isa<MaterializeTemporaryExpr>(Path[I - 1]))) {
      Use = cast<Expr>(Path[I - 1]);
      --I;
    }
    const Stmt *Parent = I > 0 ? Path[I - 1] : nullptr;
    const Stmt *Grand = I > 1 ? Path[I - 2] : nullptr;
    return isReadOnlyUse(Use, Parent, Grand);
  }
  Path.push_back(S);
  const bool Ok = llvm::all_of(S->children(), [&](const Stmt *Child) {
    return onlyRead(V, Child, Path);
  });
  Path.pop_back();
  return Ok;
}

std::optional<StringRef> constantString(const Expr *E) {
  if (!E)
    return std::nullopt;
  if (const StringLiteral *SL = literalIn(E))
    return SL->getString();
  const auto *DRE = dyn_cast<DeclRefExpr>(stripCopiesAndMoves(E));
  const auto *V = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
  if (!V || !V->hasLocalStorage() || isa<ParmVarDecl>(V) ||
      !isStdStringType(V->getType()) || V->getType()->isReferenceType())
    return std::nullopt;
  const StringLiteral *Init = literalIn(V->getInit());
  const auto *Fn =
      dyn_cast_or_null<FunctionDecl>(V->getParentFunctionOrMethod());
  if (!Init || !Fn || !Fn->getBody())
    return std::nullopt;
  if (!V->getType().isConstQualified()) {
    llvm::SmallVector<const Stmt *, 32> Path;
    if (!onlyRead(V, Fn->getBody(), Path))
      return std::nullopt;
  }
  return Init->getString();
}

std::optional<bool> constantStringComparison(const Expr *Cond) {
  const auto *Op = dyn_cast_or_null<CXXOperatorCallExpr>(
      Cond ? stripImplicit(Cond) : nullptr);
  if (!Op || Op->getNumArgs() != 2 ||
      (Op->getOperator() != OO_EqualEqual &&
       Op->getOperator() != OO_ExclaimEqual))
    return std::nullopt;
  std::optional<StringRef> L = constantString(Op->getArg(0)),
                           R = constantString(Op->getArg(1));
  if (!L || !R)
    return std::nullopt;
  return (*L == *R) == (Op->getOperator() == OO_EqualEqual);
}

} // namespace clang::tidy::torch::ast
