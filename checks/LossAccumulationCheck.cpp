//===- LossAccumulationCheck.cpp - torch-loss-accumulation ----------------===//
#include "LossAccumulationCheck.h"
#include "ast/ASTHelpers.h"
#include "ast/CheckOptions.h"
#include "libtorch/TorchTypes.h"
#include "program/AutogradHistory.h"
#include "program/HotLoops.h"
#include "clang/AST/ASTContext.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Lex/Lexer.h"
#include <optional>

using namespace clang::ast_matchers;

namespace clang::tidy::torch {

static constexpr llvm::StringLiteral DefaultContainerMethods =
    "push_back;emplace_back;insert;emplace;push;push_front;emplace_front;"
    "insert_or_assign;try_emplace";

LossAccumulationCheck::LossAccumulationCheck(StringRef Name,
                                             ClangTidyContext *Context)
    : TorchCheck(Name, Context),
      ContainerMethods(ast::getListOption(*this, Options, "ContainerMethods",
                                          DefaultContainerMethods)) {}

void LossAccumulationCheck::storeOptions(ClangTidyOptions::OptionMap &Opts) {
  Options.store(Opts, "ContainerMethods", ast::joinList(ContainerMethods));
}

void LossAccumulationCheck::registerMatchers(MatchFinder *Finder) {
  // Functions with a loop; check() walks their bodies top-down.
  auto Loop = stmt(anyOf(forStmt(), cxxForRangeStmt(), whileStmt(), doStmt()));
  Finder->addMatcher(functionDecl(isDefinition(),
                                  unless(ast::lambdaInFunction()),
                                  hasBody(hasDescendant(Loop)))
                         .bind("fn"),
                     this);
}

namespace {
enum class StoreKind : unsigned char { Container, Accumulator };

/// A store inside a loop into something that may outlive the iteration.
struct Candidate {
  StoreKind Kind;
  const Expr *Store;  ///< the call or assignment
  const Expr *Target; ///< the container or accumulator
  const ValueDecl *TargetDecl;
  std::vector<const Expr *> Values; ///< what is stored
  std::vector<const Stmt *> Loops;  ///< enclosing loops, outermost first
};
} // namespace

static bool isStdContainer(QualType T) {
  T = T.getNonReferenceType();
  if (T->isPointerType())
    T = T->getPointeeType();
  const auto *RD = T->getAsCXXRecordDecl();
  if (!RD || !RD->isInStdNamespace() || !RD->getIdentifier())
    return false;
  return llvm::is_contained({"vector", "deque", "list", "forward_list", "map",
                             "multimap", "unordered_map", "unordered_multimap",
                             "queue", "stack", "priority_queue", "set",
                             "multiset"},
                            RD->getName()) &&
         libtorch::isTensorLikeType(T);
}

/// True for a key that is the same on every iteration: a literal
/// (`logs["loss"]`, `history[0]`) or an enumerator.
static bool isConstantKey(const Expr *Key) {
  Key = ast::stripCopiesAndConversions(Key);
  if (isa<StringLiteral, IntegerLiteral, CharacterLiteral>(Key))
    return true;
  const auto *Ref = dyn_cast<DeclRefExpr>(Key);
  return Ref && isa<EnumConstantDecl>(Ref->getDecl());
}

/// The variable or field that owns the storage \p E designates.
static const ValueDecl *targetDecl(const Expr *E) {
  E = ast::stripImplicit(E);
  if (const auto *DRE = dyn_cast_or_null<DeclRefExpr>(E))
    return DRE->getDecl();
  if (const auto *ME = dyn_cast_or_null<MemberExpr>(E)) {
    const Expr *Base = ast::stripImplicit(ME->getBase());
    return isa<CXXThisExpr>(Base) ? ME->getMemberDecl() : targetDecl(Base);
  }
  if (const auto *AS = dyn_cast_or_null<ArraySubscriptExpr>(E))
    return targetDecl(AS->getBase());
  if (const auto *UO = dyn_cast_or_null<UnaryOperator>(E))
    return UO->getOpcode() == UO_Deref ? targetDecl(UO->getSubExpr()) : nullptr;
  if (const auto *OC = dyn_cast_or_null<CXXOperatorCallExpr>(E)) {
    auto Op = OC->getOperator();
    return (Op == OO_Subscript || Op == OO_Arrow || Op == OO_Star) &&
                   OC->getNumArgs() > 0
               ? targetDecl(OC->getArg(0))
               : nullptr;
  }
  if (const auto *MC = dyn_cast_or_null<CXXMemberCallExpr>(E))
    return targetDecl(MC->getImplicitObjectArgument());
  return nullptr;
}

static bool refersTo(const Expr *E, const ValueDecl *D) {
  E = ast::stripCopiesAndMoves(E);
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E))
    return DRE->getDecl() == D;
  if (const auto *ME = dyn_cast<MemberExpr>(E))
    return ME->getMemberDecl() == D &&
           isa<CXXThisExpr>(ast::stripImplicit(ME->getBase()));
  return false;
}

/// Operands of `acc + x`, `torch::cat({acc, x})`, ... when one of them is
/// the accumulator \p D itself (`acc = acc + x`); empty otherwise.
static std::vector<const Expr *> accumulatedOperands(const Expr *RHS,
                                                     const ValueDecl *D) {
  std::vector<const Expr *> Ops;
  RHS = ast::stripImplicit(RHS);
  if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(RHS)) {
    auto Op = OC->getOperator();
    if (Op == OO_Plus || Op == OO_Minus || Op == OO_Star || Op == OO_Slash)
      Ops.assign(OC->arg_begin(), OC->arg_end());
  } else if (const auto *C = dyn_cast<CallExpr>(RHS)) {
    const auto *FD = C->getDirectCallee();
    if (FD && FD->getIdentifier() && !isa<CXXMethodDecl>(FD) &&
        llvm::is_contained({"cat", "concat", "stack", "hstack", "vstack", "add",
                            "sub", "mul", "div"},
                           FD->getName()))
      for (const Expr *A : C->arguments()) {
        // torch::cat({acc, x}): the list arrives as an ArrayRef temporary.
        const Expr *Inner = ast::stripImplicit(A);
        if (const auto *CE = dyn_cast<CXXConstructExpr>(Inner);
            CE && CE->getNumArgs() == 1)
          Inner = ast::stripImplicit(CE->getArg(0));
        if (const auto *SIL = dyn_cast<CXXStdInitializerListExpr>(Inner))
          Inner = ast::stripImplicit(SIL->getSubExpr());
        if (const auto *IL = dyn_cast<InitListExpr>(Inner))
          Ops.insert(Ops.end(), IL->inits().begin(), IL->inits().end());
        else
          Ops.push_back(A);
      }
  }
  bool HasSelf =
      llvm::any_of(Ops, [&](const Expr *E) { return refersTo(E, D); });
  if (!HasSelf)
    return {};
  llvm::erase_if(Ops, [&](const Expr *E) {
    return refersTo(E, D) || !libtorch::isTensorType(E->getType());
  });
  return Ops;
}

namespace {
/// Collects candidate stores of one function body, tracking enclosing loops.
class StoreFinder {
public:
  StoreFinder(const std::vector<std::string> &Methods) : Methods(Methods) {}
  std::vector<Candidate> Found;

  void walk(const Stmt *S) {
    if (!S)
      return;
    bool IsLoop = ast::isLoop(S);
    if (IsLoop)
      Loops.push_back(S);
    if (!Loops.empty())
      if (const auto *E = dyn_cast<Expr>(S))
        visit(E);
    for (const Stmt *C : S->children())
      walk(C);
    if (IsLoop)
      Loops.pop_back();
  }

private:
  void add(StoreKind K, const Expr *Store, const Expr *Target,
           std::vector<const Expr *> Values) {
    const ValueDecl *D = targetDecl(Target);
    if (D && !Values.empty())
      Found.push_back({K, Store, Target, D, std::move(Values), Loops});
  }

  void visit(const Expr *E) {
    if (const auto *MC = dyn_cast<CXXMemberCallExpr>(E)) {
      const auto *M = MC->getMethodDecl();
      if (M && M->getIdentifier() &&
          llvm::is_contained(Methods, M->getName()) &&
          isStdContainer(MC->getImplicitObjectArgument()->getType()))
        add(StoreKind::Container, MC, MC->getImplicitObjectArgument(),
            {MC->arg_begin(), MC->arg_end()});
      return;
    }
    const auto *OC = dyn_cast<CXXOperatorCallExpr>(E);
    if (!OC || !OC->isAssignmentOp() || OC->getNumArgs() != 2)
      return;
    const Expr *LHS = ast::stripImplicit(OC->getArg(0));
    // history[epoch] = loss; not `logs["loss"] = loss`, one slot each step.
    if (const auto *Sub = dyn_cast<CXXOperatorCallExpr>(LHS);
        Sub && Sub->getOperator() == OO_Subscript &&
        isStdContainer(Sub->getArg(0)->getType())) {
      if (!isConstantKey(Sub->getArg(1)))
        add(StoreKind::Container, OC, Sub->getArg(0), {OC->getArg(1)});
      return;
    }
    if (!libtorch::isTensorType(LHS->getType()) ||
        !isa<DeclRefExpr, MemberExpr>(LHS))
      return;
    if (OC->getOperator() != OO_Equal) { // total += loss;
      add(StoreKind::Accumulator, OC, LHS, {OC->getArg(1)});
      return;
    }
    // total = total + loss;
    if (const ValueDecl *D = targetDecl(LHS); D && refersTo(LHS, D))
      add(StoreKind::Accumulator, OC, LHS,
          accumulatedOperands(OC->getArg(1), D));
  }

  const std::vector<std::string> &Methods;
  std::vector<const Stmt *> Loops;
};
} // namespace

/// True when \p D holds a fresh object in every iteration of \p Loop.
static bool isPerIteration(const ValueDecl *D, const Stmt *Loop,
                           const SourceManager &SM) {
  const auto *VD = dyn_cast<VarDecl>(D);
  if (!VD || !VD->hasLocalStorage() || VD->getType()->isReferenceType())
    return false;
  if (const auto *FR = dyn_cast<CXXForRangeStmt>(Loop);
      FR && FR->getLoopVariable() == VD)
    return true;
  const Stmt *Body = ast::loopBody(Loop);
  if (!Body)
    return false;
  SourceLocation L = VD->getLocation();
  return !ast::isBeforeExpanded(SM, L, Body->getBeginLoc()) &&
         !ast::isBeforeExpanded(SM, Body->getEndLoc(), L);
}

/// True when the body of \p Loop empties the container \p D before
/// \p Store on every iteration (`inputs.clear();` among the body's own
/// statements): the container then holds one iteration's values only.
static bool clearedEachIteration(const ValueDecl *D, const Stmt *Loop,
                                 const Stmt *Store, const SourceManager &SM) {
  const auto *Body = dyn_cast_or_null<CompoundStmt>(ast::loopBody(Loop));
  if (!Body)
    return false;
  return llvm::any_of(Body->body(), [&](const Stmt *S) {
    const auto *E = dyn_cast<Expr>(S);
    const auto *MC =
        E ? dyn_cast<CXXMemberCallExpr>(ast::stripImplicit(E)) : nullptr;
    const CXXMethodDecl *MD = MC ? MC->getMethodDecl() : nullptr;
    return MD && MD->getIdentifier() && MD->getName() == "clear" &&
           ast::namesDecl(MC->getImplicitObjectArgument(), D) &&
           ast::isBeforeExpanded(SM, MC->getEndLoc(), Store->getBeginLoc());
  });
}

/// Tensor-typed, history-bearing leaves of a stored value: `loss` in
/// `push_back(loss)`, `emplace_back(name, loss)` or `insert({k, loss})`.
static void detachPoints(const Expr *E, program::AutogradHistory &H,
                         std::vector<const Expr *> &Out, unsigned Depth = 0) {
  const Expr *S = ast::stripImplicit(E);
  if (!S || Depth > 4 || !H.carriesHistory(S))
    return;
  if (libtorch::isTensorType(S->getType())) {
    Out.push_back(E);
    return;
  }
  if (const auto *CE = dyn_cast<CXXConstructExpr>(S))
    for (const Expr *A : CE->arguments())
      detachPoints(A, H, Out, Depth + 1);
  else if (const auto *IL = dyn_cast<InitListExpr>(S))
    for (const Expr *A : IL->inits())
      detachPoints(A, H, Out, Depth + 1);
  else if (const auto *C = dyn_cast<CallExpr>(S))
    for (const Expr *A : C->arguments())
      detachPoints(A, H, Out, Depth + 1);
}

static bool needsParens(const Expr *E) {
  E = ast::stripCopiesAndMoves(E);
  if (isa<DeclRefExpr, MemberExpr, ParenExpr, ArraySubscriptExpr,
          CXXMemberCallExpr>(E))
    return false;
  if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(E))
    return OC->getOperator() != OO_Call && OC->getOperator() != OO_Subscript;
  return !isa<CallExpr>(E);
}

/// True when a local \p D lives across steps: it outlives a loop of
/// \p Loops (outermost first) that calls backward() or an optimizer or
/// iterates a data loader, or one that calls forward(), unless \p D is made
/// afresh by an enclosing hot loop or \p Fn is a module's forward(): there
/// a forward() loop runs over layers, levels or tasks within one step
/// (`Tensor loss = zeros({});` in the step, then `loss += w * task`). A loop
/// whose only forward() calls are a loss's composes one step's loss (over
/// the output scales of one call, `lobj += bce(p[i], t[i])`): a local it
/// adds to is made and returned in that call.
/// Storage that outlives the function (a member, a global, a reference)
/// may live across the calls of a step, and counts.
static bool livesAcrossSteps(const ValueDecl *D,
                             llvm::ArrayRef<const Stmt *> Loops,
                             const FunctionDecl *Fn, const SourceManager &SM) {
  const auto *VD = dyn_cast<VarDecl>(D);
  if (!VD || !VD->hasLocalStorage() || VD->getType()->isReferenceType())
    return true;
  const auto *MD = dyn_cast<CXXMethodDecl>(Fn);
  const bool InForward =
      MD && MD->getIdentifier() && MD->getName() == "forward";
  const bool MadeInStep = llvm::any_of(Loops, [&](const Stmt *L) {
    program::HotMarker M = program::findHotMarker(L);
    return isPerIteration(D, L, SM) && M && !M.Dependent;
  });
  for (const Stmt *L : Loops) {
    if (isPerIteration(D, L, SM))
      continue; // L's iterations each start D afresh
    program::HotMarker M = program::findHotMarker(L);
    if (M && !M.Dependent &&
        (M.Kind != program::HotMarkerKind::Forward ||
         (!MadeInStep && !InForward && !M.Loss)))
      return true;
  }
  return false;
}

void LossAccumulationCheck::check(const MatchFinder::MatchResult &Result) {
  const auto *Fn = Result.Nodes.getNodeAs<FunctionDecl>("fn");
  const SourceManager &SM = *Result.SourceManager;
  const LangOptions &LO = Result.Context->getLangOpts();
  StoreFinder Finder(ContainerMethods);
  Finder.walk(Fn->getBody());
  if (Finder.Found.empty())
    return;
  std::optional<program::AutogradHistory> H; // built on the first candidate
  auto Text = [&](const Expr *E) { return ast::sourceText(E, SM, LO); };

  for (const Candidate &C : Finder.Found) {
    // The innermost loop whose iterations the target outlives.
    const Stmt *Loop = nullptr;
    for (const Stmt *L : llvm::reverse(C.Loops))
      if (!isPerIteration(C.TargetDecl, L, SM)) {
        Loop = L;
        break;
      }
    if (!Loop || !livesAcrossSteps(C.TargetDecl, C.Loops, Fn, SM))
      continue;
    if (C.Kind == StoreKind::Container &&
        clearedEachIteration(C.TargetDecl, Loop, C.Store, SM))
      continue;
    SourceLocation Loc = C.Store->getBeginLoc();
    const bool InMacro = Loc.isMacroID() || C.Store->getEndLoc().isMacroID();
    if (Loc.isMacroID())
      Loc = SM.getExpansionLoc(Loc);
    if (isReported(Loc))
      continue;
    if (!H)
      H.emplace(Fn->getBody(), SM);

    // The first stored value that carries a graph made in this loop.
    const Expr *Value = nullptr;
    for (const Expr *V : C.Values) {
      if (!H->carriesHistory(V))
        continue;
      // A variable last assigned before the loop holds the same graph in
      // every iteration: nothing accumulates.
      if (const auto *DRE = dyn_cast<DeclRefExpr>(ast::stripImplicit(V)))
        if (const auto *VD = dyn_cast<VarDecl>(DRE->getDecl()))
          if (const Expr *Def = H->reachingValue(VD, DRE->getBeginLoc());
              Def &&
              ast::isBeforeExpanded(SM, Def->getEndLoc(), Loop->getBeginLoc()))
            continue;
      Value = V;
      break;
    }
    if (!Value || H->feedsBackward(C.TargetDecl))
      continue;
    reportOnce(Loc);

    std::vector<const Expr *> Points;
    detachPoints(Value, *H, Points);
    const Expr *Shown = Points.empty() ? Value : Points.front();
    StringRef ShownText = Text(Shown);
    bool Named = !ShownText.empty() && ShownText.size() <= 40 &&
                 !ShownText.contains('\n');
    std::string Name = Named ? ("'" + ShownText + "'").str() : "the tensor";
    std::string Base = Named ? (needsParens(Shown) ? "(" + ShownText.str() + ")"
                                                   : ShownText.str())
                             : "";
    const bool Scalar = H->isScalarLoss(Shown);
    std::string Suggestion =
        Named ? "'" + Base + ".detach()'" +
                    (Scalar ? " or '" + Base + ".item<float>()'" : "")
              : std::string(Scalar ? "its '.detach()' or '.item<float>()'"
                                   : "its '.detach()'");
    StringRef TargetText = Text(C.Target);
    if (TargetText.empty() || TargetText.size() > 40)
      TargetText = C.TargetDecl->getName();

    const NoFix Why = whyNoFix(InMacro, Fn);
    const bool Fixable = Why == NoFix::Fixable && !Points.empty();
    {
      auto D = diag(Loc, C.Kind == StoreKind::Container
                             ? "%0 is stored with its autograd graph in '%1', "
                               "which outlives this loop: every step's graph "
                               "stays in memory; store %2"
                             : "%0 is accumulated with its autograd graph into "
                               "'%1', which outlives this loop: every step's "
                               "graph stays in memory; accumulate %2")
               << Name << TargetText << Suggestion;
      if (Fixable)
        for (const Expr *P : Points) {
          SourceLocation End =
              Lexer::getLocForEndOfToken(P->getEndLoc(), 0, SM, LO);
          if (needsParens(P)) {
            D << FixItHint::CreateInsertion(P->getBeginLoc(), "(");
            D << FixItHint::CreateInsertion(End, ").detach()");
          } else {
            D << FixItHint::CreateInsertion(End, ".detach()");
          }
        }
    }
    diag(Loop->getBeginLoc(), "the loop that repeats the store",
         DiagnosticIDs::Note);
    if (Scalar && Named)
      diag(Shown->getBeginLoc(),
           C.Kind == StoreKind::Container
               ? "if only the value is needed, store '%0.item<float>()' in a "
                 "container of float"
               : "if only the value is needed, accumulate '%0.item<float>()' "
                 "into a float",
           DiagnosticIDs::Note)
          << Base;
    noFixNote(Loc, Why);
  }
}

} // namespace clang::tidy::torch
