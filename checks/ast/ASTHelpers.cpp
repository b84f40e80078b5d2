//===- ASTHelpers.cpp - expressions, loops and source text ----------------===//
#include "ast/ASTHelpers.h"
#include "clang/AST/Decl.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Lex/Lexer.h"

namespace clang::tidy::torch::ast {

const Expr *stripImplicit(const Expr *E) {
  while (E) {
    const Expr *Next = E->IgnoreImplicit()->IgnoreParens();
    if (Next == E)
      return E;
    E = Next;
  }
  return E;
}

const Expr *stripCopiesAndConversions(const Expr *E) {
  while (E) {
    E = stripImplicit(E);
    const auto *CE = dyn_cast<CXXConstructExpr>(E);
    if (!CE || isa<CXXTemporaryObjectExpr>(CE) || CE->getNumArgs() == 0 ||
        CE->isListInitialization() ||
        !llvm::all_of(llvm::drop_begin(CE->arguments()),
                      [](const Expr *A) { return isa<CXXDefaultArgExpr>(A); }))
      return E;
    const CXXConstructorDecl *Ctor = CE->getConstructor();
    if (!Ctor->isCopyOrMoveConstructor() && Ctor->isExplicit())
      return E;
    E = CE->getArg(0);
  }
  return E;
}

const Expr *stripCopiesAndMoves(const Expr *E) {
  while (E) {
    E = stripImplicit(E);
    if (const auto *CE = dyn_cast<CXXConstructExpr>(E)) {
      if (CE->getNumArgs() != 1 || isa<CXXTemporaryObjectExpr>(CE) ||
          !CE->getConstructor()->isCopyOrMoveConstructor())
        return E;
      E = CE->getArg(0);
    } else if (const auto *FC = dyn_cast<CXXFunctionalCastExpr>(E)) {
      E = FC->getSubExpr();
    } else if (const auto *C = dyn_cast<CallExpr>(E);
               C && C->getNumArgs() == 1 &&
               (isStdCall(C, "move") || isStdCall(C, "forward"))) {
      E = C->getArg(0);
    } else {
      return E;
    }
  }
  return E;
}

const Expr *receiverOf(const CXXMemberCallExpr *Call) {
  return stripImplicit(Call->getImplicitObjectArgument());
}

bool isStdCall(const CallExpr *Call, StringRef Name) {
  const auto *FD = Call->getDirectCallee();
  return FD && FD->getIdentifier() && FD->getName() == Name &&
         FD->isInStdNamespace();
}

bool namesDecl(const Expr *E, const ValueDecl *D) {
  const auto *DRE = dyn_cast_or_null<DeclRefExpr>(stripImplicit(E));
  return DRE && DRE->getDecl() == D;
}

bool mentions(const Stmt *S,
              llvm::function_ref<bool(const ValueDecl *)> Named) {
  if (!S)
    return false;
  if (const auto *DRE = dyn_cast<DeclRefExpr>(S); DRE && Named(DRE->getDecl()))
    return true;
  if (const auto *ME = dyn_cast<MemberExpr>(S);
      ME && Named(ME->getMemberDecl()))
    return true;
  return llvm::any_of(S->children(),
                      [&](const Stmt *C) { return mentions(C, Named); });
}

std::pair<const Expr *, const Expr *> asAssignment(const Stmt *S) {
  if (const auto *Op = dyn_cast_or_null<CXXOperatorCallExpr>(S))
    if (Op->getOperator() == OO_Equal && Op->getNumArgs() == 2)
      return {Op->getArg(0), Op->getArg(1)};
  if (const auto *BO = dyn_cast_or_null<BinaryOperator>(S))
    if (BO->getOpcode() == BO_Assign)
      return {BO->getLHS(), BO->getRHS()};
  return {nullptr, nullptr};
}

/// The expression \p E is part of, below views, subscripts and members: a
/// variable's reference or a member of `this`; null when there is none.
static const Expr *storageRoot(const Expr *E) {
  for (int Depth = 0; E && Depth < 16; ++Depth) {
    E = stripImplicit(E);
    if (isa<DeclRefExpr>(E) || thisField(E))
      return E;
    if (const auto *MC = dyn_cast<CXXMemberCallExpr>(E))
      E = MC->getImplicitObjectArgument();
    else if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E))
      E = Op->getNumArgs() ? Op->getArg(0) : nullptr;
    else if (const auto *AS = dyn_cast<ArraySubscriptExpr>(E))
      E = AS->getBase();
    else if (const auto *ME = dyn_cast<MemberExpr>(E))
      E = ME->getBase();
    else
      return nullptr;
  }
  return nullptr;
}

const VarDecl *rootVariable(const Expr *E) {
  const auto *DRE = dyn_cast_or_null<DeclRefExpr>(storageRoot(E));
  return DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
}

const FieldDecl *rootField(const Expr *E) {
  const Expr *Root = storageRoot(E);
  return Root ? thisField(Root) : nullptr;
}

const FieldDecl *thisField(const Expr *E) {
  const auto *ME = dyn_cast_or_null<MemberExpr>(stripImplicit(E));
  if (!ME || !isa<CXXThisExpr>(stripImplicit(ME->getBase())))
    return nullptr;
  return dyn_cast<FieldDecl>(ME->getMemberDecl());
}

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

void returnValues(const Stmt *S, llvm::SmallVectorImpl<const Expr *> &Out) {
  if (!S || isa<LambdaExpr>(S))
    return;
  if (const auto *R = dyn_cast<ReturnStmt>(S))
    Out.push_back(R->getRetValue());
  for (const Stmt *Child : S->children())
    returnValues(Child, Out);
}

const CXXDependentScopeMemberExpr *dependentMemberCallee(const CallExpr *Call) {
  const auto *Member = dyn_cast_or_null<CXXDependentScopeMemberExpr>(
      Call ? Call->getCallee()->IgnoreParenImpCasts() : nullptr);
  return Member && Member->getMember().isIdentifier() ? Member : nullptr;
}

const FunctionDecl *calleeOrOnlyCandidate(const CallExpr *Call) {
  if (!Call)
    return nullptr;
  if (const FunctionDecl *FD = Call->getDirectCallee())
    return FD;
  const auto *Overloads =
      dyn_cast<OverloadExpr>(Call->getCallee()->IgnoreParenImpCasts());
  if (!Overloads || Overloads->getNumDecls() != 1)
    return nullptr;
  return dyn_cast<FunctionDecl>(
      (*Overloads->decls_begin())->getUnderlyingDecl());
}

bool isUninstantiatedPattern(const FunctionDecl *Fn) {
  if (!Fn || !Fn->isDependentContext())
    return false;
  if (const FunctionTemplateDecl *T = Fn->getDescribedFunctionTemplate();
      T && !T->specializations().empty())
    return false;
  for (const DeclContext *DC = Fn->getDeclContext(); DC; DC = DC->getParent())
    if (const auto *RD = dyn_cast<CXXRecordDecl>(DC))
      if (const ClassTemplateDecl *T = RD->getDescribedClassTemplate();
          T && !T->specializations().empty())
        return false;
  return true;
}

bool hasInstantiatedBody(const FunctionDecl *Fn) {
  if (!Fn || !Fn->isDependentContext())
    return false;
  if (const FunctionTemplateDecl *T = Fn->getDescribedFunctionTemplate())
    return llvm::any_of(T->specializations(), [](const FunctionDecl *S) {
      return S->doesThisDeclarationHaveABody();
    });
  // A member of a class template: the instantiated classes' members made
  // from it.
  const auto *MD = dyn_cast<CXXMethodDecl>(Fn);
  const ClassTemplateDecl *T =
      MD ? MD->getParent()->getDescribedClassTemplate() : nullptr;
  if (!T)
    return false;
  for (const ClassTemplateSpecializationDecl *Spec : T->specializations())
    for (const Decl *D : Spec->decls())
      if (const auto *M = dyn_cast<CXXMethodDecl>(D);
          M && M->getInstantiatedFromMemberFunction() == MD &&
          M->doesThisDeclarationHaveABody())
        return true;
  return false;
}

bool isLoop(const Stmt *S) {
  return isa_and_nonnull<ForStmt, CXXForRangeStmt, WhileStmt, DoStmt>(S);
}

const Stmt *loopBody(const Stmt *Loop) {
  if (const auto *F = dyn_cast_or_null<ForStmt>(Loop))
    return F->getBody();
  if (const auto *R = dyn_cast_or_null<CXXForRangeStmt>(Loop))
    return R->getBody();
  if (const auto *W = dyn_cast_or_null<WhileStmt>(Loop))
    return W->getBody();
  if (const auto *D = dyn_cast_or_null<DoStmt>(Loop))
    return D->getBody();
  return nullptr;
}

llvm::SmallVector<const Stmt *, 4> iterationParts(const Stmt *Loop) {
  llvm::SmallVector<const Stmt *, 4> Parts;
  if (const auto *F = dyn_cast<ForStmt>(Loop))
    Parts = {F->getConditionVariableDeclStmt(), F->getCond(), F->getInc(),
             F->getBody()};
  else if (const auto *R = dyn_cast<CXXForRangeStmt>(Loop))
    Parts = {R->getCond(), R->getInc(), R->getLoopVarStmt(), R->getBody()};
  else if (const auto *W = dyn_cast<WhileStmt>(Loop))
    Parts = {W->getConditionVariableDeclStmt(), W->getCond(), W->getBody()};
  else if (const auto *D = dyn_cast<DoStmt>(Loop))
    Parts = {D->getBody(), D->getCond()};
  llvm::erase(Parts, nullptr);
  return Parts;
}

StringRef sourceText(SourceRange Range, const SourceManager &SM,
                     const LangOptions &LO) {
  return Lexer::getSourceText(CharSourceRange::getTokenRange(Range), SM, LO);
}

bool isBeforeExpanded(const SourceManager &SM, SourceLocation A,
                      SourceLocation B) {
  return SM.isBeforeInTranslationUnit(SM.getExpansionLoc(A),
                                      SM.getExpansionLoc(B));
}

bool isArithmeticCompoundAssignment(OverloadedOperatorKind K) {
  switch (K) {
  case OO_PlusEqual:
  case OO_MinusEqual:
  case OO_StarEqual:
  case OO_SlashEqual:
  case OO_PercentEqual:
  case OO_AmpEqual:
  case OO_PipeEqual:
  case OO_CaretEqual:
    return true;
  default:
    return false;
  }
}

bool containsLoop(const Stmt *S) {
  if (!S || isa<LambdaExpr>(S))
    return false;
  return isLoop(S) || llvm::any_of(S->children(), containsLoop);
}

bool usesModulo(const Stmt *S) {
  if (!S || isa<LambdaExpr>(S))
    return false;
  if (const auto *BO = dyn_cast<BinaryOperator>(S))
    if (BO->getOpcode() == BO_Rem)
      return true;
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(S))
    if (Op->getOperator() == OO_Percent)
      return true;
  return llvm::any_of(S->children(), usesModulo);
}

std::optional<std::array<const Stmt *, 4>>
partsBesidePeriodicBranch(const Stmt *S) {
  const auto *If = dyn_cast_or_null<IfStmt>(S);
  if (!If || !usesModulo(If->getCond()))
    return std::nullopt;
  return std::array<const Stmt *, 4>{If->getInit(),
                                     If->getConditionVariableDeclStmt(),
                                     If->getCond(), If->getElse()};
}

/// True when \p S, part of a loop, increments \p V outside nested loops.
static bool incrementsOutsideNestedLoops(const Stmt *S, const VarDecl *V) {
  if (!S || isa<LambdaExpr>(S) || isLoop(S))
    return false;
  if (const auto *UO = dyn_cast<UnaryOperator>(S))
    if (UO->isIncrementDecrementOp() && namesDecl(UO->getSubExpr(), V))
      return true;
  if (const auto *CA = dyn_cast<CompoundAssignOperator>(S))
    if (namesDecl(CA->getLHS(), V))
      return true;
  return llvm::any_of(S->children(), [&](const Stmt *Child) {
    return incrementsOutsideNestedLoops(Child, V);
  });
}

bool isCounterEquality(const Expr *Cond, const Stmt *Loop) {
  const auto *BO =
      Cond ? dyn_cast<BinaryOperator>(Cond->IgnoreParenImpCasts()) : nullptr;
  if (!Loop || !BO || BO->getOpcode() != BO_EQ)
    return false;
  const Expr *Sides[] = {BO->getLHS()->IgnoreParenImpCasts(),
                         BO->getRHS()->IgnoreParenImpCasts()};
  for (int I = 0; I < 2; ++I) {
    const auto *Ref = dyn_cast<DeclRefExpr>(Sides[I]);
    const auto *V = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
    const Expr *Other = Sides[1 - I];
    if (!V || !V->getType()->isIntegerType() || Other->isValueDependent() ||
        !Other->isIntegerConstantExpr(V->getASTContext()))
      continue;
    if (const auto *For = dyn_cast<ForStmt>(Loop);
        For && incrementsOutsideNestedLoops(For->getInc(), V))
      return true;
    for (const Stmt *Child : Loop->children())
      if (!(isa<ForStmt>(Loop) && Child == cast<ForStmt>(Loop)->getInc()) &&
          Child && !isa<Expr>(Child) && incrementsOutsideNestedLoops(Child, V))
        return true;
  }
  return false;
}

} // namespace clang::tidy::torch::ast
