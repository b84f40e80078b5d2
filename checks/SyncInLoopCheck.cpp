//===- SyncInLoopCheck.cpp - torch-sync-in-loop ---------------------------===//
#include "SyncInLoopCheck.h"
#include "utils/ASTHelpers.h"
#include "utils/CheckOptions.h"
#include "utils/DeviceFlow.h"
#include "utils/TorchTypes.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/StmtCXX.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringExtras.h"
#include <iterator>

using namespace clang::ast_matchers;

namespace clang::tidy::torch {

/// What the host waits for, which picks the warning's wording.
enum class SyncWait : unsigned char {
  Value,   ///< a value on the device (item, cpu, equal, ...)
  Shape,   ///< a data-dependent output size (nonzero, unique, ...)
  AllWork, ///< all queued device work (synchronize)
};

/// Which callees an operation's names apply to.
enum class SyncCallee : unsigned char {
  Tensor,           ///< Tensor methods only
  TensorOrFunction, ///< or an at::/torch::/c10:: function
  AnyLibTorch,      ///< or a method of any LibTorch class (streams, events)
};

/// A built-in synchronizing operation.
struct SyncOperation {
  llvm::StringLiteral Option; ///< its entry in SyncFunctions
  SyncWait Wait;
  SyncCallee Callee;
  /// The LibTorch names it covers; with OutForms, their _out/_outf forms
  /// too. `operator<<` has none: it is recognised by its parameters.
  StringRef Names[5];
  bool OutForms = false;
};

/// The built-in operations, in the order of SyncFunctions' default.
/// `to` counts only as a copy toward the CPU that waits (waitsForCopyToCPU);
/// `operator<<` only when it prints a tensor (classify).
// clang-format off
static const SyncOperation SyncOperations[] = {
  // Option          Waits for         Callee
  //   Names                                             OutForms
  {"item",          SyncWait::Value,   SyncCallee::Tensor,
     {"item"}},
  {"cpu",           SyncWait::Value,   SyncCallee::Tensor,
     {"cpu"}},
  {"to",            SyncWait::Value,   SyncCallee::Tensor,
     {"to"}},
  {"operator<<",    SyncWait::Value,   SyncCallee::Tensor,
     {}},
  {"equal",         SyncWait::Value,   SyncCallee::TensorOrFunction,
     {"equal"}},
  {"allclose",      SyncWait::Value,   SyncCallee::TensorOrFunction,
     {"allclose"}},
  {"is_nonzero",    SyncWait::Value,   SyncCallee::TensorOrFunction,
     {"is_nonzero"}},
  {"nonzero",       SyncWait::Shape,   SyncCallee::TensorOrFunction,
     {"nonzero", "nonzero_numpy", "argwhere"},           true},
  {"masked_select", SyncWait::Shape,   SyncCallee::TensorOrFunction,
     {"masked_select"},                                  true},
  {"unique",        SyncWait::Shape,   SyncCallee::TensorOrFunction,
     {"_unique", "_unique2", "unique_dim", "unique_consecutive",
      "unique_dim_consecutive"},                         true},
  {"synchronize",   SyncWait::AllWork, SyncCallee::AnyLibTorch,
     {"synchronize", "device_synchronize"}},
};
// clang-format on

static unsigned bit(const SyncOperation &Op) {
  return 1u << (&Op - std::begin(SyncOperations));
}

static const SyncOperation *operationByOption(StringRef Option) {
  for (const SyncOperation &Op : SyncOperations)
    if (Op.Option == Option)
      return &Op;
  return nullptr;
}

/// The built-in operation named \p Name (a Tensor method or a LibTorch
/// function), or null.
static const SyncOperation *operationByName(StringRef Name) {
  StringRef Base = Name;
  Base.consume_back("_outf") || Base.consume_back("_out");
  for (const SyncOperation &Op : SyncOperations)
    for (StringRef N : Op.Names)
      if (!N.empty() && (N == Name || (Op.OutForms && N == Base)))
        return &Op;
  return nullptr;
}

/// The default of SyncFunctions: every built-in operation.
static StringRef defaultSyncFunctions() {
  static const std::string Default = [] {
    std::vector<StringRef> Options;
    for (const SyncOperation &Op : SyncOperations)
      Options.push_back(Op.Option);
    return llvm::join(Options, ";");
  }();
  return Default;
}

SyncInLoopCheck::SyncInLoopCheck(StringRef Name, ClangTidyContext *Context)
    : TorchCheck(Name, Context),
      SyncFunctions(utils::getListOption(*this, Options, "SyncFunctions",
                                         defaultSyncFunctions())),
      AllowInPeriodicGuard(
          utils::getBoolOption(*this, Options, "AllowInPeriodicGuard", true)) {
  for (const std::string &F : SyncFunctions) {
    if (const SyncOperation *Op = operationByOption(F))
      Enabled |= bit(*Op);
    else
      Custom.push_back(StringRef(F).ltrim(':').str());
  }
}

void SyncInLoopCheck::onStartOfTranslationUnit() {
  TorchCheck::onStartOfTranslationUnit();
  utils::DeviceFlow::clearCache();
}

void SyncInLoopCheck::onEndOfTranslationUnit() {
  utils::DeviceFlow::clearCache();
}

void SyncInLoopCheck::storeOptions(ClangTidyOptions::OptionMap &Opts) {
  Options.store(Opts, "SyncFunctions", utils::joinList(SyncFunctions));
  Options.store(Opts, "AllowInPeriodicGuard", AllowInPeriodicGuard);
}

void SyncInLoopCheck::registerMatchers(MatchFinder *Finder) {
  // Loops top-down, with their function (DeviceFlow's facts are per
  // function); check() reads the bodies of the hot ones.
  Finder->addMatcher(
      functionDecl(
          isDefinition(), unless(isExpansionInSystemHeader()),
          unless(utils::lambdaInFunction()),
          hasBody(forEachDescendant(
              stmt(anyOf(forStmt(), cxxForRangeStmt(), whileStmt(), doStmt()))
                  .bind("loop"))))
          .bind("fn"),
      this);
}

/// True when \p Call reads a tensor DeviceFlow knows is on the CPU:
/// `.item()`, `.cpu()` or `.to(kCPU)` of it waits for no device.
static bool readsCPUTensor(const Expr *Call, const SyncOperation *Op,
                           const FunctionDecl *Fn, ASTContext &Ctx) {
  const auto *MC = dyn_cast<CXXMemberCallExpr>(Call);
  if (!MC || !Fn || !Op ||
      !(Op->Option == "item" || Op->Option == "cpu" || Op->Option == "to"))
    return false;
  return utils::DeviceFlow::get(Fn, Ctx).isOnCPU(
      MC->getImplicitObjectArgument());
}

/// True if \p E denotes the CPU: torch::kCPU, Device(kCPU), Device("cpu"),
/// TensorOptions on the CPU (TensorOptions().device(kCPU), torch::device(..)).
static bool isCPU(const Expr *E, ASTContext &Ctx, int Depth = 0) {
  if (!E || Depth > 8)
    return false;
  E = utils::stripImplicit(E);
  auto Recurse = [&](const Expr *Sub) { return isCPU(Sub, Ctx, Depth + 1); };
  if (const auto *ET = E->getType()->getAs<EnumType>()) {
    const EnumDecl *ED = ET->getDecl();
    Expr::EvalResult R;
    if (ED->getQualifiedNameAsString() != "c10::DeviceType" ||
        E->isValueDependent() || !E->EvaluateAsInt(R, Ctx))
      return false;
    return llvm::any_of(ED->enumerators(), [&](const EnumConstantDecl *C) {
      return C->getName() == "CPU" &&
             llvm::APSInt::isSameValue(C->getInitVal(), R.Val.getInt());
    });
  }
  if (const auto *SL = dyn_cast<StringLiteral>(E))
    return SL->getCharByteWidth() == 1 &&
           (SL->getString() == "cpu" || SL->getString().starts_with("cpu:"));
  if (const auto *CE = dyn_cast<CXXConstructExpr>(E))
    return CE->getNumArgs() > 0 && !isa<CXXDefaultArgExpr>(CE->getArg(0)) &&
           Recurse(CE->getArg(0));
  if (const auto *FC = dyn_cast<CXXFunctionalCastExpr>(E))
    return Recurse(FC->getSubExpr());
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(E)) {
    const CXXMethodDecl *MD = MC->getMethodDecl();
    if (!MD ||
        MD->getParent()->getQualifiedNameAsString() != "c10::TensorOptions")
      return false;
    if (MD->getDeclName().isIdentifier() && MD->getName() == "device")
      return MC->getNumArgs() > 0 && Recurse(MC->getArg(0));
    return Recurse(MC->getImplicitObjectArgument());
  }
  if (const auto *Call = dyn_cast<CallExpr>(E)) {
    const FunctionDecl *FD = Call->getDirectCallee();
    return FD && FD->getDeclName().isIdentifier() &&
           FD->getName() == "device" && Call->getNumArgs() > 0 &&
           utils::outermostNamespace(FD) != "std" && Recurse(Call->getArg(0));
  }
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E))
    if (const auto *VD = dyn_cast<VarDecl>(DRE->getDecl()))
      return VD->getType().isConstQualified() && VD->getInit() &&
             Recurse(VD->getInit());
  return false;
}

/// `to()` toward the CPU that waits: `non_blocking=true` copies to pinned
/// memory without waiting.
static bool waitsForCopyToCPU(const CallExpr *Call, const FunctionDecl *FD,
                              ASTContext &Ctx) {
  bool ToCPU = false;
  for (unsigned I = 0; I < Call->getNumArgs(); ++I) {
    const Expr *A = Call->getArg(I);
    if (isa<CXXDefaultArgExpr>(A))
      continue;
    bool NonBlocking = false;
    if (I < FD->getNumParams() &&
        FD->getParamDecl(I)->getName() == "non_blocking" &&
        !A->isValueDependent() &&
        A->EvaluateAsBooleanCondition(NonBlocking, Ctx) && NonBlocking)
      return false;
    ToCPU = ToCPU || isCPU(A, Ctx);
  }
  return ToCPU;
}

/// Whether \p Op's names apply to a callee of this kind.
static bool appliesTo(const SyncOperation &Op, bool TensorMethod, bool Method,
                      bool InLibTorch) {
  switch (Op.Callee) {
  case SyncCallee::Tensor:
    return TensorMethod;
  case SyncCallee::TensorOrFunction:
    return TensorMethod || (!Method && InLibTorch);
  case SyncCallee::AnyLibTorch:
    return TensorMethod || InLibTorch;
  }
  return false;
}

std::pair<std::string, const SyncOperation *>
SyncInLoopCheck::classify(const Expr *E, bool ResultUsed,
                          ASTContext &Ctx) const {
  const auto *Call = dyn_cast<CallExpr>(E);
  const FunctionDecl *FD = Call ? Call->getDirectCallee() : nullptr;
  if (!FD)
    return {};
  if (FD->getOverloadedOperator() == OO_LessLess) {
    bool PrintsTensor =
        !isa<CXXMethodDecl>(FD) &&
        llvm::any_of(FD->parameters(), [](const ParmVarDecl *P) {
          return utils::isTensorType(P->getType());
        });
    const SyncOperation *Printing = operationByOption("operator<<");
    if (PrintsTensor && (Enabled & bit(*Printing)))
      return {"printing a tensor with 'operator<<'", Printing};
    return {};
  }
  if (!FD->getDeclName().isIdentifier())
    return {};
  StringRef Name = FD->getName();
  const auto *MD = dyn_cast<CXXMethodDecl>(FD);
  const bool TensorMethod = MD && utils::isTensorRecord(MD->getParent());
  const bool InLibTorch = utils::isLibTorchDecl(FD);
  auto Shown = [&] {
    return "'" +
           (TensorMethod ? ("Tensor::" + Name).str()
                         : FD->getQualifiedNameAsString()) +
           "'";
  };

  const SyncOperation *Op = operationByName(Name);
  if (Op && !appliesTo(*Op, TensorMethod, MD, InLibTorch))
    Op = nullptr;
  const bool IsTo = Op && Op->Option == "to";
  if (IsTo && !(ResultUsed && waitsForCopyToCPU(Call, FD, Ctx)))
    Op = nullptr;
  if (Op && (Enabled & bit(*Op)))
    return {Shown() + (IsTo ? " toward the CPU" : ""), Op};

  for (const std::string &C : Custom) {
    bool Match = StringRef(C).contains("::")
                     ? FD->getQualifiedNameAsString() == C
                     : Name == C && (TensorMethod || (!MD && InLibTorch));
    if (Match)
      return {Shown(), nullptr};
  }
  return {};
}

/// True for `if (step % interval == 0)` and other conditions using '%'.
static bool usesModulo(const Stmt *S) {
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

/// Reads the statements that run on each iteration of one hot loop, down
/// into lambdas (a closure defined in a training loop runs there) and into
/// nested loops that are not hot by themselves (the others report their own
/// calls, with their own marker).
struct SyncInLoopCheck::Walk {
  SyncInLoopCheck &Check;
  const utils::HotMarker &Marker;
  ASTContext &Ctx;
  const FunctionDecl *Fn;
  /// Calls whose value is thrown away (`x.to(torch::kCPU);`).
  llvm::SmallPtrSet<const Expr *, 8> Discarded;

  void statementPosition(const Stmt *S) {
    const auto *E = dyn_cast_or_null<Expr>(S);
    if (!E)
      return;
    E = utils::stripImplicit(E);
    if (const auto *Cast = dyn_cast<ExplicitCastExpr>(E))
      if (Cast->getType()->isVoidType())
        E = utils::stripImplicit(Cast->getSubExpr());
    Discarded.insert(E);
  }

  void markLoopPositions(const Stmt *Loop) {
    if (const auto *F = dyn_cast<ForStmt>(Loop))
      statementPosition(F->getInc());
    for (const Stmt *Part : utils::iterationParts(Loop))
      statementPosition(Part);
  }

  void visitChildren(const Stmt *S) {
    for (const Stmt *Child : S->children())
      visit(Child);
  }

  void visit(const Stmt *S) {
    if (!S)
      return;
    if (utils::isLoop(S)) {
      markLoopPositions(S);
      if (!utils::findHotMarker(S))
        return visitChildren(S);
      // Hot by itself: only the parts that run once per outer iteration.
      auto Parts = utils::iterationParts(S);
      for (const Stmt *Child : S->children())
        if (!llvm::is_contained(Parts, Child))
          visit(Child);
      return;
    }
    if (const auto *If = dyn_cast<IfStmt>(S)) {
      statementPosition(If->getThen());
      statementPosition(If->getElse());
      if (Check.AllowInPeriodicGuard && usesModulo(If->getCond())) {
        visit(If->getInit());
        visit(If->getConditionVariableDeclStmt());
        visit(If->getCond());
        visit(If->getElse());
        return;
      }
      return visitChildren(S);
    }
    if (const auto *CS = dyn_cast<CompoundStmt>(S)) {
      for (const Stmt *Child : CS->body())
        statementPosition(Child);
    } else if (const auto *SC = dyn_cast<SwitchCase>(S)) {
      statementPosition(SC->getSubStmt());
    } else if (const auto *L = dyn_cast<LabelStmt>(S)) {
      statementPosition(L->getSubStmt());
    } else if (const auto *E = dyn_cast<Expr>(S)) {
      auto [Subject, Op] =
          Check.classify(E, !Discarded.contains(utils::stripImplicit(E)), Ctx);
      if (!Subject.empty() && !readsCPUTensor(E, Op, Fn, Ctx))
        Check.report(E, Subject, Op, Marker, Ctx.getSourceManager());
    }
    visitChildren(S);
  }
};

void SyncInLoopCheck::report(const Expr *Call, StringRef Subject,
                             const SyncOperation *Op,
                             const utils::HotMarker &Marker,
                             const SourceManager &SM) {
  SourceLocation Loc = SM.getFileLoc(Call->getExprLoc());
  if (!reportOnce(Loc))
    return;
  const SyncWait Wait = Op ? Op->Wait : SyncWait::Value;
  StringRef Message;
  if (Wait == SyncWait::AllWork)
    Message = "%0 makes the host wait for all queued device work on every "
              "iteration of this %1 loop; remove it, or call it only under a "
              "timing or logging interval";
  else if (Wait == SyncWait::Shape)
    Message = "%0 makes the host wait for the device on every iteration of "
              "this %1 loop, because its output size depends on the data; "
              "use a fixed-size form (a mask with torch::where or a "
              "multiplication) or move it out of the loop";
  else
    Message = "%0 makes the host wait for the device on every iteration of "
              "this %1 loop; accumulate on the device and read the value "
              "once after the loop, or read it under a logging interval";
  diag(Loc, Message) << Subject << Marker.loopKind();
  diag(SM.getFileLoc(Marker.E->getExprLoc()), Marker.describe(),
       DiagnosticIDs::Note);
}

void SyncInLoopCheck::check(const MatchFinder::MatchResult &Result) {
  const auto *Loop = Result.Nodes.getNodeAs<Stmt>("loop");
  ASTContext &Ctx = *Result.Context;
  utils::HotMarker Marker = utils::findHotMarker(Loop);
  if (!Marker)
    return;
  Walk W{*this, Marker, Ctx, Result.Nodes.getNodeAs<FunctionDecl>("fn"), {}};
  W.markLoopPositions(Loop);
  for (const Stmt *Part : utils::iterationParts(Loop))
    W.visit(Part);
}

} // namespace clang::tidy::torch
