//===- SyncInLoopCheck.cpp - torch-sync-in-loop ---------------------------===//
#include "SyncInLoopCheck.h"
#include "ast/ASTHelpers.h"
#include "ast/CheckOptions.h"
#include "device/CallerDevices.h"
#include "device/DeviceDiagnostics.h"
#include "device/DeviceFlow.h"
#include "device/ProgramFacts.h"
#include "libtorch/DeviceRules.h"
#include "libtorch/HostSync.h"
#include "libtorch/ProgramCode.h"
#include "libtorch/TorchTypes.h"
#include "program/GpuUse.h"
#include "program/HiddenSync.h"
#include "program/HostEvents.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/StmtCXX.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringExtras.h"
#include <functional>
#include <iterator>

using namespace clang::ast_matchers;

namespace clang::tidy::torch {

using libtorch::SyncOperation;
using libtorch::SyncWait;

static unsigned bit(const SyncOperation &Op) {
  return 1u << (&Op - libtorch::syncOperations().begin());
}

/// The default of SyncFunctions: every built-in operation.
static StringRef defaultSyncFunctions() {
  static const std::string Default = [] {
    std::vector<StringRef> Options;
    for (const SyncOperation &Op : libtorch::syncOperations())
      Options.push_back(Op.Option);
    return llvm::join(Options, ";");
  }();
  return Default;
}

SyncInLoopCheck::SyncInLoopCheck(StringRef Name, ClangTidyContext *Context)
    : TorchCheck(Name, Context),
      SyncFunctions(ast::getListOption(*this, Options, "SyncFunctions",
                                       defaultSyncFunctions())),
      AllowInPeriodicGuard(
          ast::getBoolOption(*this, Options, "AllowInPeriodicGuard", true)),
      HostBufferCopies(
          ast::getBoolOption(*this, Options, "HostBufferCopies", true)) {
  for (const std::string &F : SyncFunctions) {
    if (const SyncOperation *Op = libtorch::syncOperationByOption(F))
      Enabled |= bit(*Op);
    else
      Custom.push_back(StringRef(F).ltrim(':').str());
  }
}

void SyncInLoopCheck::onStartOfTranslationUnit() {
  TorchCheck::onStartOfTranslationUnit();
  device::DeviceFlow::clearCache();
  program::clearHiddenSyncCache();
}

void SyncInLoopCheck::onEndOfTranslationUnit() {
  TorchCheck::onEndOfTranslationUnit();
  if (Unit) {
    device::writeUnitFacts(*Unit);
    std::string Lines =
        program::perStepFacts(*Unit) + program::programGpuFacts(*Unit);
    for (const std::string &L : ProgramNeeds)
      Lines += L;
    device::appendUnitFacts(Lines);
  }
  ProgramNeeds.clear();
  Unit = nullptr;
  device::DeviceFlow::clearCache();
  program::clearHiddenSyncCache();
}

void SyncInLoopCheck::storeOptions(ClangTidyOptions::OptionMap &Opts) {
  Options.store(Opts, "SyncFunctions", ast::joinList(SyncFunctions));
  Options.store(Opts, "AllowInPeriodicGuard", AllowInPeriodicGuard);
  Options.store(Opts, "HostBufferCopies", HostBufferCopies);
}

void SyncInLoopCheck::registerMatchers(MatchFinder *Finder) {
  // Loops top-down, with their function (DeviceFlow's facts are per
  // function); check() reads the bodies of the hot ones.
  Finder->addMatcher(program::functionLoops(), this);
  // A batch worker writes the unit's facts even when it has no loop, and
  // reads the bodies of functions that other files may call once per step.
  if (device::exportsUnitFacts()) {
    Finder->addMatcher(translationUnitDecl().bind("unit"), this);
    Finder->addMatcher(functionDecl(isDefinition(),
                                    unless(libtorch::isLibraryCode()),
                                    unless(ast::lambdaInFunction()))
                           .bind("body"),
                       this);
  }
}

/// In a template: `t.eq(target).sum().item()`, a chain of calls left
/// unresolved by a dependent argument, that starts at a torch::Tensor, or
/// an `item<T>()`. The name of the last call ("item", "cpu"), else "".
static StringRef dependentTensorCall(const CallExpr *Call) {
  const auto *Last = ast::dependentMemberCallee(Call);
  if (!Last || Last->isImplicitAccess())
    return "";
  // `output.value.template item<float>()`: only a tensor's read is spelled
  // so, whatever the dependent type of the value.
  if (Last->hasExplicitTemplateArgs() &&
      Last->getMember().getAsIdentifierInfo()->getName() == "item")
    return "item";
  const Expr *Base = Last->getBase();
  for (unsigned Depth = 0; Base && Depth < 8; ++Depth) {
    Base = Base->IgnoreParenImpCasts();
    if (!Base->isTypeDependent())
      return libtorch::isTensorType(Base->getType())
                 ? Last->getMember().getAsIdentifierInfo()->getName()
                 : "";
    const auto *Inner = dyn_cast<CallExpr>(Base);
    const Expr *Callee =
        Inner ? Inner->getCallee()->IgnoreParenImpCasts() : nullptr;
    if (const auto *D = dyn_cast_or_null<CXXDependentScopeMemberExpr>(Callee))
      Base = D->isImplicitAccess() ? nullptr : D->getBase();
    else if (const auto *U = dyn_cast_or_null<UnresolvedMemberExpr>(Callee))
      Base = U->isImplicitAccess() ? nullptr : U->getBase();
    else
      return "";
  }
  return "";
}

std::pair<std::string, const SyncOperation *>
SyncInLoopCheck::classify(const Expr *E, bool ResultUsed, ASTContext &Ctx,
                          bool InPatternOnly, const FunctionDecl *Fn) const {
  const auto *Call = dyn_cast<CallExpr>(E);
  if (Call && !Call->getDirectCallee()) {
    if (!InPatternOnly)
      return {};
    StringRef Name = dependentTensorCall(Call);
    const SyncOperation *Op =
        Name == "item" || Name == "cpu" || Name == "nonzero"
            ? libtorch::syncOperationByOption(Name)
            : nullptr;
    if (Op && (Enabled & bit(*Op)))
      return {"'Tensor::" + Name.str() + "'", Op};
    return {};
  }
  const FunctionDecl *FD = Call ? Call->getDirectCallee() : nullptr;
  if (!FD)
    return {};
  if (const SyncOperation *Op =
          program::syncOperationIn(Call, ResultUsed, Fn, Ctx)) {
    if (!(Enabled & bit(*Op)))
      return {};
    if (Op->Option == "operator<<")
      return {"printing a tensor with 'operator<<'", Op};
    if (Op->Option == "operator[]")
      return {"'Tensor::operator[]' with a tensor index (it reads the index "
              "with 'item')",
              Op};
    if (Op->Option == "index")
      return {"'Tensor::index' with a boolean mask", Op};
    return {libtorch::syncSubject(Call) +
                (Op->Option == "to" ? " toward the CPU" : ""),
            Op};
  }
  if (!FD->getDeclName().isIdentifier())
    return {};
  StringRef Name = FD->getName();
  const auto *MD = dyn_cast<CXXMethodDecl>(FD);
  const bool TensorMethod = MD && libtorch::isTensorRecord(MD->getParent());
  for (const std::string &C : Custom) {
    bool Match = StringRef(C).contains("::")
                     ? FD->getQualifiedNameAsString() == C
                     : Name == C && (TensorMethod ||
                                     (!MD && libtorch::isLibTorchDecl(FD)));
    if (Match)
      return {libtorch::syncSubject(Call), nullptr};
  }
  return {};
}

/// The block of \p Root that holds \p Target as one of its statements.
static const CompoundStmt *enclosingBlock(const Stmt *Root,
                                          const Stmt *Target) {
  if (!Root || isa<LambdaExpr>(Root))
    return nullptr;
  if (const auto *CS = dyn_cast<CompoundStmt>(Root);
      CS && llvm::is_contained(CS->body(), Target))
    return CS;
  for (const Stmt *Child : Root->children())
    if (const CompoundStmt *Found = enclosingBlock(Child, Target))
      return Found;
  return nullptr;
}

/// Reads the statements that run on each iteration of one hot loop, down
/// into lambdas (a closure defined in a training loop runs there) and into
/// nested loops that are not hot by themselves (the others report their own
/// calls, with their own marker).
struct SyncInLoopCheck::Walk {
  SyncInLoopCheck &Check;
  const program::HotMarker &Marker;
  ASTContext &Ctx;
  const FunctionDecl *Fn;
  /// Calls whose value is thrown away (`x.to(torch::kCPU);`).
  llvm::SmallPtrSet<const Expr *, 8> Discarded;
  /// Only the statements outside loops (a function body, perStepElsewhere).
  bool OutsideLoops = false;
  /// Waits right before or after a clock read (program::collectTimingWaits):
  /// they make the timing right and are not stalls.
  llvm::SmallPtrSet<const Expr *, 4> TimingWaits;
  /// Fn is template code that no instantiation in this unit covers: its
  /// pattern's unresolved calls are read (dependentTensorCall).
  bool PatternOnly = false;
  /// In a body walk (OutsideLoops): its last statement, when it is an `if`
  /// (then the `else if` that follows it).
  const IfStmt *TailIf = nullptr;
  /// The hot loop read (null in a body walk).
  const Stmt *Loop = nullptr;

  void statementPosition(const Stmt *S) {
    const auto *E = dyn_cast_or_null<Expr>(S);
    if (!E)
      return;
    E = ast::stripImplicit(E);
    if (const auto *Cast = dyn_cast<ExplicitCastExpr>(E))
      if (Cast->getType()->isVoidType())
        E = ast::stripImplicit(Cast->getSubExpr());
    Discarded.insert(E);
  }

  void markLoopPositions(const Stmt *Loop) {
    if (const auto *F = dyn_cast<ForStmt>(Loop))
      statementPosition(F->getInc());
    for (const Stmt *Part : ast::iterationParts(Loop))
      statementPosition(Part);
  }

  /// The sync inside a function called here (clip_grad_norm_, a helper of
  /// the user's, a module method other than forward() such as a GPU
  /// augmentation), if it is enabled. forward(), LibTorch's module methods
  /// and optimizers are the hot markers themselves and are left out.
  const CallExpr *hiddenSyncOf(const Expr *E) const {
    const FunctionDecl *FD = ast::calleeOrOnlyCandidate(dyn_cast<CallExpr>(E));
    if (!FD || FD->getOverloadedOperator() != OO_None)
      return nullptr;
    if (const auto *MD = dyn_cast<CXXMethodDecl>(FD)) {
      const CXXRecordDecl *RD = MD->getParent();
      const bool Module =
          libtorch::isOrDerivesFrom(RD, "torch::nn::Module") ||
          libtorch::isOrDerivesFrom(RD, "torch::nn::ModuleHolder");
      if ((Module && (libtorch::isLibraryDecl(MD) || !MD->getIdentifier() ||
                      MD->getName() == "forward")) ||
          libtorch::isOrDerivesFrom(RD, "torch::optim::Optimizer"))
        return nullptr;
    }
    // In the body of a function that another file may call per step, a
    // function of the program's is not followed: this unit does not know
    // that it runs per step, so its loops report their own waits, and the
    // devices of what it reads are not followed across the call.
    // Nor in a loop that trains through a function of another file: the
    // devices of what the program's functions read there are not followed.
    if (((OutsideLoops && Marker.Elsewhere) ||
         Marker.Kind == program::HotMarkerKind::CallsElsewhere) &&
        !libtorch::isLibraryDecl(FD))
      return nullptr;
    // The tensors this call passes on the CPU (`viz(pred.cpu())`): the
    // waits inside that read them wait for nothing.
    const auto *Call = cast<CallExpr>(E);
    program::HiddenWait Inside = program::hiddenSync(
        FD, Ctx, Fn ? program::cpuArguments(Call, Fn, 0, Ctx) : 0);
    if (!Inside.Call)
      return nullptr;
    auto [Subject, Op] =
        Check.classify(Inside.Call, true, Ctx, false, Inside.In);
    return Subject.empty() ? nullptr : Inside.Call;
  }

  /// A copy from the device into a CPU tensor (`cpu_buf.copy_(out)`,
  /// `cpu_buf[i] = out`) waits for the device like `.cpu()` does.
  void reportHostBufferCopy(const Expr *E) {
    if (!Check.HostBufferCopies || !Fn)
      return;
    libtorch::TensorCopy Copy = libtorch::copyIntoTensor(E, Ctx);
    if (!Copy)
      return;
    const device::DeviceFlow &Flow = device::DeviceFlow::get(Fn, Ctx);
    device::DeviceFact From = Flow.factOf(Copy.Source);
    if (!Flow.isOnCPU(Copy.Destination) || !From.Device.isDeviceSide())
      return;
    const SourceManager &SM = Ctx.getSourceManager();
    SourceLocation Loc = SM.getFileLoc(E->getExprLoc());
    if (!Check.reportOnce(Loc))
      return;
    Check.needsProgram(Loc, Marker, SM, From.Device);
    Check.diag(Loc, "%0 copies a tensor %1 into a CPU tensor, which makes the "
                    "host wait for the device on every iteration of %2; "
                    "collect the results on the device and copy them to the "
                    "host once after the loop")
        << Copy.Subject << From.Device.describe() << Marker.loopName();
    device::noteOrigin(Check, "", Copy.Source, From, SM);
    Check.diag(SM.getFileLoc(Marker.location()), Marker.describe(),
               DiagnosticIDs::Note);
  }

  void visitChildren(const Stmt *S) {
    for (const Stmt *Child : S->children())
      visit(Child);
  }

  /// Nested loops and switches being walked: a `break` there does not leave
  /// the hot loop.
  unsigned BreakScopes = 0;

  /// True if \p Branch ends by leaving the hot loop (`return`, `throw`, a
  /// `break` of the hot loop itself): what it runs, it runs once per run of
  /// the loop, also in a function called per step (the last box of a
  /// greedy NMS: the loop's other reads are the ones to fix).
  bool leavesLoop(const Stmt *Branch) const {
    if (const auto *CS = dyn_cast_or_null<CompoundStmt>(Branch))
      Branch = CS->body_empty() ? nullptr : CS->body_back();
    if (const auto *E = dyn_cast_or_null<Expr>(Branch))
      Branch = ast::stripImplicit(E); // `throw std::runtime_error(...)`
    return Branch && (isa<ReturnStmt>(Branch) || isa<CXXThrowExpr>(Branch) ||
                      (isa<BreakStmt>(Branch) && BreakScopes == 0));
  }

  /// True if \p Branch only reports: every statement writes to an output
  /// stream or calls printf/puts, and one writes a message (a string
  /// literal). The else of an `if` whose other branch does the work is
  /// then the failure path of a test on the data ("out of bounds"), not a
  /// step's work.
  static bool onlyReports(const Stmt *Branch) {
    if (!Branch)
      return false;
    bool Message = false;
    std::function<bool(const Stmt *)> Reports = [&](const Stmt *S) {
      if (const auto *CS = dyn_cast<CompoundStmt>(S))
        return !CS->body_empty() && llvm::all_of(CS->body(), Reports);
      const auto *E = dyn_cast<Expr>(S);
      if (!E)
        return false;
      E = ast::stripImplicit(E);
      std::function<void(const Stmt *)> FindMessage = [&](const Stmt *X) {
        Message |= isa<StringLiteral>(X);
        for (const Stmt *C : X->children())
          if (C)
            FindMessage(C);
      };
      if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E);
          Op && Op->getOperator() == OO_LessLess) {
        const Expr *Left = Op;
        while (const auto *L = dyn_cast<CXXOperatorCallExpr>(Left)) {
          if (L->getOperator() != OO_LessLess)
            break;
          Left = ast::stripImplicit(L->getArg(0));
        }
        const auto *RD = Left->getType()->getAsCXXRecordDecl();
        if (!RD || !RD->getIdentifier() ||
            !RD->getName().starts_with("basic_ostream"))
          return false;
        FindMessage(E);
        return true;
      }
      const auto *Call = dyn_cast<CallExpr>(E);
      const FunctionDecl *FD = Call ? Call->getDirectCallee() : nullptr;
      if (!FD || !FD->getIdentifier() ||
          !llvm::is_contained({"printf", "fprintf", "puts"}, FD->getName()))
        return false;
      FindMessage(E);
      return true;
    };
    return Reports(Branch) && Message;
  }

  /// A bool parameter of Fn tested by \p If, as `if (flag)` (\p Sign 1)
  /// or `if (!flag)` (\p Sign -1); else null.
  const ParmVarDecl *flagParameter(const IfStmt *If, int &Sign) const {
    const Expr *Cond = ast::stripImplicit(If->getCond());
    Sign = 1;
    if (const auto *Not = dyn_cast<UnaryOperator>(Cond);
        Not && Not->getOpcode() == UO_LNot) {
      Cond = ast::stripImplicit(Not->getSubExpr());
      Sign = -1;
    }
    const auto *Ref = dyn_cast<DeclRefExpr>(Cond);
    const auto *P = Ref ? dyn_cast<ParmVarDecl>(Ref->getDecl()) : nullptr;
    return P && P->getDeclContext() == Fn &&
                   P->getType().getNonReferenceType()->isBooleanType()
               ? P
               : nullptr;
  }

  /// 1 for `if (flag)`, -1 for `if (!flag)`, where flag is a bool
  /// parameter of Fn; else 0.
  int flagTest(const IfStmt *If) const {
    int Sign = 0;
    return flagParameter(If, Sign) ? Sign : 0;
  }

  /// The default argument of Fn's parameter \p P, written on Fn's first
  /// declaration (`bool IT = false` in the header), or null.
  const Expr *defaultArgument(const ParmVarDecl *P) const {
    const ParmVarDecl *Declared = P;
    const auto *First = Fn->getFirstDecl();
    if (First && P->getFunctionScopeIndex() < First->getNumParams())
      Declared = First->getParamDecl(P->getFunctionScopeIndex());
    return Declared->hasDefaultArg() && !Declared->hasUnparsedDefaultArg() &&
                   !Declared->hasUninstantiatedDefaultArg()
               ? ast::stripImplicit(Declared->getDefaultArg())
               : nullptr;
  }

  /// True when no call of Fn in this file passes its parameter \p P
  /// anything but its default: the argument is left out, or written out
  /// as a value that \p IsDefault accepts.
  bool noCallPassesOtherThanDefault(
      const ParmVarDecl *P,
      llvm::function_ref<bool(const Expr *)> IsDefault) const {
    const unsigned Index = P->getFunctionScopeIndex();
    return llvm::none_of(
        device::callSitesOf(Fn, Ctx), [&](const device::CallSite &Site) {
          const Expr *Arg = Index < Site.Call->getNumArgs()
                                ? ast::stripImplicit(Site.Call->getArg(Index))
                                : nullptr;
          return Arg && !isa<CXXDefaultArgExpr>(Arg) && !IsDefault(Arg);
        });
  }

  /// True when the then-branch of \p If, a test of a bool parameter of Fn
  /// (flagTest), is off by default: the parameter defaults to the literal
  /// that skips it, and no call of Fn in this file passes anything else.
  bool thenOffByDefault(const IfStmt *If) const {
    int Sign = 0;
    const ParmVarDecl *P = flagParameter(If, Sign);
    const auto *Default =
        P ? dyn_cast_or_null<CXXBoolLiteralExpr>(defaultArgument(P)) : nullptr;
    if (!Default || Default->getValue() != (Sign < 0))
      return false;
    return noCallPassesOtherThanDefault(P, [&](const Expr *Arg) {
      const auto *Lit = dyn_cast<CXXBoolLiteralExpr>(Arg);
      return Lit && Lit->getValue() == Default->getValue();
    });
  }

  /// True when \p If tests first that a tensor parameter of Fn is given
  /// (`if (dones.defined() && dones.sum().item<float>() > 0)`), the
  /// parameter defaults to no tensor (`torch::Tensor dones = {}`), and no
  /// call of Fn in this file passes one: the rest of the condition and the
  /// then-branch never run.
  bool definedTestOffByDefault(const IfStmt *If) const {
    const Expr *Cond = ast::stripImplicit(If->getCond());
    while (const auto *And = dyn_cast<BinaryOperator>(Cond)) {
      if (And->getOpcode() != BO_LAnd)
        return false;
      Cond = ast::stripImplicit(And->getLHS());
    }
    const auto *MC = dyn_cast<CXXMemberCallExpr>(Cond);
    const CXXMethodDecl *MD = MC ? MC->getMethodDecl() : nullptr;
    if (!MD || !MD->getIdentifier() || MD->getName() != "defined" ||
        !libtorch::isTensorRecord(MD->getParent()))
      return false;
    const auto *Ref = dyn_cast<DeclRefExpr>(
        ast::stripImplicit(MC->getImplicitObjectArgument()));
    const auto *P = Ref ? dyn_cast<ParmVarDecl>(Ref->getDecl()) : nullptr;
    if (!P || P->getDeclContext() != Fn)
      return false;
    // `= {}`, `= torch::Tensor()`: no tensor.
    const Expr *Default = defaultArgument(P);
    const auto *ILE = dyn_cast_or_null<InitListExpr>(Default);
    const auto *CE = dyn_cast_or_null<CXXConstructExpr>(Default);
    if (!(ILE && ILE->getNumInits() == 0) && !(CE && CE->getNumArgs() == 0))
      return false;
    return noCallPassesOtherThanDefault(P, [](const Expr *) { return false; });
  }

  /// 1 when the then-branch of \p If moves a tensor to the CPU and the
  /// else-branch moves the same one to a device (`if (cpu_only) v =
  /// v.to(kCPU); else v = v.to(kCUDA);`), -1 the other way round, else 0:
  /// the program picks where it computes, and the CPU branch runs in a
  /// configuration that has no device to wait for.
  int cpuPlacementBranch(const IfStmt *If) const {
    auto MoveOf = [&](const Stmt *S) -> const CXXMemberCallExpr * {
      if (const auto *CS = dyn_cast_or_null<CompoundStmt>(S);
          CS && CS->size() == 1)
        S = CS->body_front();
      if (const auto *E = dyn_cast_or_null<Expr>(S))
        S = ast::stripImplicit(E);
      auto [LHS, RHS] = ast::asAssignment(S);
      const auto *MC =
          RHS ? dyn_cast<CXXMemberCallExpr>(ast::stripImplicit(RHS)) : nullptr;
      const VarDecl *V = LHS ? ast::rootVariable(LHS) : nullptr;
      return MC && V && ast::rootVariable(MC->getImplicitObjectArgument()) == V
                 ? MC
                 : nullptr;
    };
    const CXXMemberCallExpr *Then = MoveOf(If->getThen());
    const CXXMemberCallExpr *Else = MoveOf(If->getElse());
    if (!Then || !Else || !Fn)
      return 0;
    const device::DeviceFlow &Flow = device::DeviceFlow::get(Fn, Ctx);
    device::DeviceValue T = Flow.conversionTarget(Then);
    device::DeviceValue E = Flow.conversionTarget(Else);
    if (T.isCPU() && E.isDeviceSide())
      return 1;
    if (E.isCPU() && T.isDeviceSide())
      return -1;
    return 0;
  }

  void visitInBreakScope(const Stmt *S) {
    ++BreakScopes;
    visitChildren(S);
    --BreakScopes;
  }

  void visit(const Stmt *S) {
    if (!S)
      return;
    if (isa<SwitchStmt>(S))
      return visitInBreakScope(S);
    if (OutsideLoops && (ast::isLoop(S) || isa<LambdaExpr>(S)))
      return;
    if (ast::isLoop(S)) {
      markLoopPositions(S);
      if (!program::findHotMarker(S))
        return visitInBreakScope(S);
      // Hot by itself: only the parts that run once per outer iteration.
      auto Parts = ast::iterationParts(S);
      for (const Stmt *Child : S->children())
        if (!llvm::is_contained(Parts, Child))
          visit(Child);
      return;
    }
    if (const auto *If = dyn_cast<IfStmt>(S)) {
      statementPosition(If->getThen());
      statementPosition(If->getElse());
      // A periodic branch runs once per interval, a leaving one once. In
      // the body of a per-step function, the branches of its last `if`
      // return as the function ends (`if (explore) return random; else
      // {...; return act;}`): they run on each call.
      const bool Tail = If == TailIf;
      if (Tail)
        TailIf = dyn_cast_or_null<IfStmt>(If->getElse());
      // A branch on a flag its callers in other files pass (`if (show)`):
      // which way the per-step calls go is theirs to say.
      const int Flag = OutsideLoops && Marker.Elsewhere ? flagTest(If) : 0;
      // A tensor placed on the CPU in one branch and on a device in the
      // other: the CPU branch waits for nothing.
      const int Placement = cpuPlacementBranch(If);
      // A branch that runs only on the CPU (`if (device == torch::kCPU)`,
      // or the `else` of `if (device.is_cuda())`) waits for no device.
      const std::optional<bool> OnlyCPU =
          libtorch::holdsOnlyOnCPU(If->getCond(), Ctx);
      // And a branch on a flag that defaults to off, which no call here
      // turns on (`build_target(boxes, labels, bool debug = false)`), or
      // on a tensor that defaults to none (`explore(obs, dones = {})`).
      const bool GivenOnly = definedTestOffByDefault(If);
      bool SkipThen =
          GivenOnly || (!Tail && leavesLoop(If->getThen())) ||
          (Check.AllowInPeriodicGuard && ast::usesModulo(If->getCond())) ||
          ast::isCounterEquality(If->getCond(), Loop) || // `if (i == 0)`
          Flag > 0 || thenOffByDefault(If) || Placement > 0 || OnlyCPU == true;
      bool SkipElse =
          (!Tail && leavesLoop(If->getElse())) ||
          (onlyReports(If->getElse()) && !onlyReports(If->getThen())) ||
          Flag < 0 || Placement < 0 || OnlyCPU == false;
      visit(If->getInit());
      visit(If->getConditionVariableDeclStmt());
      if (!GivenOnly)
        visit(If->getCond());
      if (!SkipThen)
        visit(If->getThen());
      if (!SkipElse)
        visit(If->getElse());
      return;
    }
    if (const auto *CS = dyn_cast<CompoundStmt>(S)) {
      for (const Stmt *Child : CS->body())
        statementPosition(Child);
      program::collectTimingWaits(CS, Ctx, TimingWaits);
    } else if (const auto *SC = dyn_cast<SwitchCase>(S)) {
      statementPosition(SC->getSubStmt());
    } else if (const auto *L = dyn_cast<LabelStmt>(S)) {
      statementPosition(L->getSubStmt());
    } else if (const auto *E = dyn_cast<Expr>(S)) {
      auto [Subject, Op] = Check.classify(
          E, !Discarded.contains(ast::stripImplicit(E)), Ctx, PatternOnly, Fn);
      bool TimingWait = TimingWaits.contains(ast::stripImplicit(E));
      device::DeviceValue Read = program::readDevice(E, Op, Fn, Ctx);
      bool ReadsCPU = Read.isCPU() || device::inheritsCPU(Read, Ctx);
      if (!Subject.empty() && !ReadsCPU && !TimingWait) {
        Check.report(E, Subject, Op, Marker, Ctx.getSourceManager(), nullptr,
                     Read);
        device::deferToProgram(E->getExprLoc(), Read, Ctx, Marker.BySize);
      } else if (const CallExpr *Inside = hiddenSyncOf(E))
        Check.report(E, libtorch::syncSubject(cast<CallExpr>(E)), nullptr,
                     Marker, Ctx.getSourceManager(), Inside);
      else if (Subject.empty())
        reportHostBufferCopy(E);
    }
    visitChildren(S);
  }
};

void SyncInLoopCheck::needsProgram(SourceLocation Loc,
                                   const program::HotMarker &Marker,
                                   const SourceManager &SM,
                                   device::DeviceValue Read) {
  if (!device::exportsUnitFacts())
    return;
  auto Pos = device::findingPosition(Loc, SM);
  // Any wait needs a GPU somewhere in the program.
  if (Pos) {
    ProgramNeeds.insert(device::ProgramFacts::gpuNeedFact(
        "torch-sync-in-loop", Pos->first, Pos->second));
    // A loop that trains through a function of another file (T lines).
    for (const std::string &Callee : Marker.Callees)
      ProgramNeeds.insert(device::ProgramFacts::stepLoopNeedFact(
          Pos->first, Pos->second, Callee));
  }
  if (!Marker.Elsewhere)
    return;
  if (Pos)
    for (const std::string &Key : device::functionKeysOfCalls(Marker.Elsewhere))
      ProgramNeeds.insert(
          device::ProgramFacts::perStepNeedFact(Pos->first, Pos->second, Key));
  // A function whose tensor parameters all receive CPU tensors in the whole
  // program (`unbind_captions(ids.cpu())`) waits for no device, unless the
  // tensor read has a device of its own (`image.to(device)`).
  if (Read.isKnown())
    return;
  // Nor when the function moves tensors to a device of its own (an agent's
  // `obs.to(device_)` before its model's forward): its parameters' devices
  // do not decide where it computes.
  if (device::DeviceFlow::get(Marker.Elsewhere,
                              Marker.Elsewhere->getASTContext())
          .movesToDevice())
    return;
  for (const ParmVarDecl *P : Marker.Elsewhere->parameters())
    if (libtorch::isTensorType(P->getType().getNonReferenceType()))
      device::deferToProgram(Loc, device::DeviceValue::inherited(P),
                             Marker.Elsewhere->getASTContext());
}

void SyncInLoopCheck::report(const Expr *Call, StringRef Subject,
                             const SyncOperation *Op,
                             const program::HotMarker &Marker,
                             const SourceManager &SM, const CallExpr *Inside,
                             device::DeviceValue Read) {
  SourceLocation Loc = SM.getFileLoc(Call->getExprLoc());
  // `t.eq(target).sum().item()` left unresolved in a template: at `item`.
  if (const auto *Dependent =
          ast::dependentMemberCallee(dyn_cast<CallExpr>(Call)))
    Loc = SM.getFileLoc(Dependent->getMemberLoc());
  if (!reportOnce(Loc))
    return;
  needsProgram(Loc, Marker, SM, Read);
  if (Inside) {
    diag(Loc, "%0 makes the host wait for the device on every iteration of "
              "%1: it calls %2 inside; call it only under a "
              "logging interval, or keep the value on the device")
        << Subject << Marker.loopName() << libtorch::syncSubject(Inside);
    diag(SM.getFileLoc(Inside->getExprLoc()), "the host waits here",
         DiagnosticIDs::Note);
    diag(SM.getFileLoc(Marker.location()), Marker.describe(),
         DiagnosticIDs::Note);
    return;
  }
  const SyncWait Wait = Op ? Op->Wait : SyncWait::Value;
  StringRef Message;
  if (Wait == SyncWait::AllWork)
    Message = "%0 makes the host wait for all queued device work on every "
              "iteration of %1; remove it, or call it only under a "
              "timing or logging interval";
  else if (Wait == SyncWait::Shape)
    Message = "%0 makes the host wait for the device on every iteration of "
              "%1, because its output size depends on the data; "
              "use a fixed-size form (a mask with torch::where or a "
              "multiplication) or move it out of the loop";
  else
    Message = "%0 makes the host wait for the device on every iteration of "
              "%1; accumulate on the device and read the value "
              "once after the loop, or read it under a logging interval";
  diag(Loc, Message) << Subject << Marker.loopName();
  diag(SM.getFileLoc(Marker.location()), Marker.describe(),
       DiagnosticIDs::Note);
}

void SyncInLoopCheck::check(const MatchFinder::MatchResult &Result) {
  if (Result.Nodes.getNodeAs<TranslationUnitDecl>("unit")) {
    Unit = Result.Context;
    return;
  }
  const auto *Loop = Result.Nodes.getNodeAs<Stmt>("loop");
  ASTContext &Ctx = *Result.Context;
  // A program that never names a GPU waits for none.
  if (!program::mayUseGPU(Ctx))
    return;
  if (const auto *Body = Result.Nodes.getNodeAs<FunctionDecl>("body")) {
    // Outside its loops (those are roots of their own, with the same
    // marker), the body of a function another file may call once per step.
    if (ast::hasInstantiatedBody(Body))
      return;
    program::HotMarker Marker = program::perStepElsewhere(Body, Ctx);
    if (!Marker)
      return;
    Marker.Body = true;
    Walk W{*this, Marker, Ctx, Body, {}, false, {}};
    W.OutsideLoops = true;
    if (const auto *CS = dyn_cast<CompoundStmt>(Body->getBody());
        CS && !CS->body_empty())
      W.TailIf = dyn_cast<IfStmt>(CS->body_back());
    W.visit(Body->getBody());
    return;
  }
  const auto *Fn = Result.Nodes.getNodeAs<FunctionDecl>("fn");
  // Template code that the unit instantiates is read in its instantiations,
  // where the devices are known (a CPU copy in the pattern is unknown).
  if (ast::hasInstantiatedBody(Fn))
    return;
  program::HotMarker Marker = program::hotLoop(Loop, Fn, Ctx);
  if (!Marker)
    return;
  const bool PatternOnly = ast::isUninstantiatedPattern(Fn);
  if (Marker.Dependent && !PatternOnly)
    return;
  Walk W{*this, Marker, Ctx, Fn, {}, false, {}};
  W.PatternOnly = PatternOnly;
  W.Loop = Loop;
  W.markLoopPositions(Loop);
  // A loop between two clock reads is timed: its waits are the timing's.
  if (const CompoundStmt *Block =
          Fn ? enclosingBlock(Fn->getBody(), Loop) : nullptr)
    program::collectTimingWaits(Block, Ctx, W.TimingWaits);
  for (const Stmt *Part : ast::iterationParts(Loop))
    W.visit(Part);
}

} // namespace clang::tidy::torch
