//===- LoopInvariantTransferCheck.cpp - torch-loop-invariant-transfer ----===//
#include "LoopInvariantTransferCheck.h"
#include "ast/ASTHelpers.h"
#include "device/DeviceDiagnostics.h"
#include "device/DeviceFlow.h"
#include "libtorch/ProgramCode.h"
#include "libtorch/TorchModules.h"
#include "libtorch/TorchTypes.h"
#include "program/HotLoops.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/StmtCXX.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/FormatVariadic.h"
#include <functional>

using namespace clang::ast_matchers;

namespace clang::tidy::torch {

using device::DeviceFlow;
using device::DeviceValue;

void LoopInvariantTransferCheck::registerMatchers(MatchFinder *Finder) {
  Finder->addMatcher(program::functionLoops(), this);
  Finder->addMatcher(cxxMethodDecl(isDefinition(),
                                   hasAnyName("forward", "operator()"),
                                   unless(libtorch::isLibraryCode()))
                         .bind("method"),
                     this);
}

/// The variables a loop may change: assigned, incremented, moved from,
/// changed in place (also through a view: `w[0].fill_(1)`), taken by
/// address or non-const reference, copied (the copy shares the storage),
/// or handed to a function outside LibTorch (a tensor handle passed by value
/// shares its storage too). Lambdas written in the loop count.
struct ChangedVariables {
  llvm::SmallPtrSet<const VarDecl *, 16> Changed;
  /// The members of `this` changed the same ways.
  llvm::SmallPtrSet<const FieldDecl *, 8> ChangedFields;

  void mark(const Expr *E) {
    if (const VarDecl *V = ast::rootVariable(E))
      Changed.insert(V);
    else if (const FieldDecl *F = ast::rootField(E))
      ChangedFields.insert(F);
  }

  /// \p Args are matched to \p FD's parameters from the first.
  void arguments(const FunctionDecl *FD, ArrayRef<const Expr *> Args) {
    const bool LibTorch = FD && libtorch::isLibTorchDecl(FD);
    const bool InPlace =
        FD && FD->getIdentifier() &&
        (FD->getName().ends_with("_") || FD->getName().ends_with("_out"));
    for (unsigned I = 0; I < Args.size(); ++I) {
      const Expr *A = ast::stripImplicit(Args[I]);
      if (!isa<DeclRefExpr>(A))
        continue;
      QualType T = FD && I < FD->getNumParams() ? FD->getParamDecl(I)->getType()
                                                : QualType();
      bool NonConstRef = !T.isNull() && T->isReferenceType() &&
                         !T->getPointeeType().isConstQualified();
      if (!FD || NonConstRef || !LibTorch || InPlace)
        mark(A);
    }
  }

  /// `anchors.push_back(t)` and the other calls that change a vector of
  /// tensors.
  static bool changesSequence(const CXXMemberCallExpr *MC) {
    return libtorch::isTensorSequenceType(
               MC->getImplicitObjectArgument()->getType()) &&
           llvm::is_contained({"push_back", "emplace_back", "insert", "emplace",
                               "erase", "clear", "resize", "assign", "pop_back",
                               "swap"},
                              MC->getMethodDecl()->getName());
  }

  /// `memcpy(x.data_ptr<float>(), src, n)`: a writable view of a tensor's
  /// memory (`data_ptr`, `mutable_data_ptr`, `accessor`, ...) lets the host
  /// refill it in place.
  static bool writableData(const CXXMemberCallExpr *MC) {
    StringRef Name = MC->getMethodDecl()->getName();
    if (!libtorch::isTensorType(MC->getImplicitObjectArgument()->getType()) ||
        !llvm::is_contained({"data_ptr", "mutable_data_ptr", "accessor",
                             "packed_accessor32", "packed_accessor64",
                             "generic_packed_accessor"},
                            Name))
      return false;
    QualType T = MC->getType();
    return !T->isPointerType() || !T->getPointeeType().isConstQualified();
  }

  void visit(const Stmt *S) {
    if (!S)
      return;
    if (const auto *BO = dyn_cast<BinaryOperator>(S)) {
      if (BO->isAssignmentOp())
        mark(BO->getLHS());
    } else if (const auto *UO = dyn_cast<UnaryOperator>(S)) {
      if (UO->isIncrementDecrementOp() || UO->getOpcode() == UO_AddrOf)
        mark(UO->getSubExpr());
    } else if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(S)) {
      OverloadedOperatorKind K = Op->getOperator();
      if (K == OO_Equal || K == OO_PlusPlus || K == OO_MinusMinus ||
          ast::isArithmeticCompoundAssignment(K))
        mark(Op->getArg(0));
      const auto *MD = dyn_cast_or_null<CXXMethodDecl>(Op->getDirectCallee());
      arguments(
          Op->getDirectCallee(),
          ArrayRef(Op->getArgs(), Op->getNumArgs()).drop_front(MD ? 1 : 0));
    } else if (const auto *MC = dyn_cast<CXXMemberCallExpr>(S)) {
      const CXXMethodDecl *MD = MC->getMethodDecl();
      if (MD && MD->getIdentifier() &&
          (MD->getName().ends_with("_") || MD->getName() == "set_data" ||
           changesSequence(MC) || writableData(MC)))
        mark(MC->getImplicitObjectArgument());
      arguments(MD, ArrayRef(MC->getArgs(), MC->getNumArgs()));
    } else if (const auto *Call = dyn_cast<CallExpr>(S)) {
      arguments(Call->getDirectCallee(),
                ArrayRef(Call->getArgs(), Call->getNumArgs()));
    } else if (const auto *CE = dyn_cast<CXXConstructExpr>(S)) {
      if (CE->getNumArgs() == 1 && libtorch::isTensorType(CE->getType()))
        mark(CE->getArg(0));
    } else if (const auto *L = dyn_cast<LambdaExpr>(S)) {
      return visit(L->getBody());
    }
    for (const Stmt *Child : S->children())
      visit(Child);
  }
};

/// The fields of \p RD its methods may change outside its constructors
/// (ChangedVariables, over every other method's body). Methods defined in
/// other files are not seen.
static llvm::SmallPtrSet<const FieldDecl *, 8>
fieldsChangedAfterConstruction(const CXXRecordDecl *RD) {
  ChangedVariables Changes;
  for (const CXXMethodDecl *M : RD->methods()) {
    const FunctionDecl *Def = nullptr;
    if (!isa<CXXConstructorDecl>(M) && M->hasBody(Def))
      Changes.visit(Def->getBody());
  }
  return std::move(Changes.ChangedFields);
}

/// The member of `this` whose data \p E is: the member (`kernel_`), an
/// element of it (`anchors_[i]`, `anchors_.at(i)`), or a view of either
/// (`grid_[0].unsqueeze(0)`). The member is a tensor or a vector of them.
static const FieldDecl *memberData(const Expr *E) {
  for (int Depth = 0; E && Depth < 8; ++Depth) {
    E = ast::stripImplicit(E);
    if (const FieldDecl *F = ast::thisField(E))
      return libtorch::isTensorType(F->getType()) ||
                     libtorch::isTensorSequenceType(F->getType())
                 ? F
                 : nullptr;
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E)) {
      if (Op->getOperator() != OO_Subscript)
        return nullptr;
      E = Op->getArg(0);
    } else if (const auto *AS = dyn_cast<ArraySubscriptExpr>(E)) {
      E = AS->getBase();
    } else if (const auto *MC = dyn_cast<CXXMemberCallExpr>(E)) {
      const CXXMethodDecl *MD = MC->getMethodDecl();
      if (!MD || !MD->getIdentifier() ||
          !llvm::is_contained({"at", "select", "narrow", "slice", "view",
                               "reshape", "unsqueeze", "squeeze", "index",
                               "contiguous", "t", "transpose", "permute",
                               "expand", "flatten"},
                              MD->getName()))
        return nullptr;
      E = MC->getImplicitObjectArgument();
    } else {
      return nullptr;
    }
  }
  return nullptr;
}

/// True for `if (step % n == 0)` and `if (i == 0)`: a branch taken on some
/// iterations only.
static bool guardsSomeIterations(const Expr *Cond) {
  if (!Cond)
    return false;
  Cond = ast::stripImplicit(Cond);
  if (const auto *BO = dyn_cast<BinaryOperator>(Cond))
    return BO->getOpcode() == BO_Rem || BO->getOpcode() == BO_EQ ||
           (BO->isLogicalOp() && (guardsSomeIterations(BO->getLHS()) ||
                                  guardsSomeIterations(BO->getRHS())));
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Cond))
    return Op->getOperator() == OO_EqualEqual ||
           Op->getOperator() == OO_Percent;
  if (const auto *UO = dyn_cast<UnaryOperator>(Cond))
    return UO->getOpcode() == UO_LNot;
  return false;
}

/// The tensor conversions run on each iteration of a loop, outside lambdas
/// and branches taken on some iterations only.
static void collectConversions(const Stmt *S,
                               std::vector<const CXXMemberCallExpr *> &Out) {
  if (!S || isa<LambdaExpr>(S))
    return;
  if (const auto *If = dyn_cast<IfStmt>(S))
    if (guardsSomeIterations(If->getCond())) {
      collectConversions(If->getCond(), Out);
      return collectConversions(If->getElse(), Out);
    }
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(S)) {
    const CXXMethodDecl *MD = MC->getMethodDecl();
    if (MD && MD->getIdentifier() &&
        libtorch::isTensorRecord(MD->getParent()) &&
        (MD->getName() == "to" || MD->getName() == "cuda"))
      Out.push_back(MC);
  }
  for (const Stmt *Child : S->children())
    collectConversions(Child, Out);
}

const DeviceFlow *LoopInvariantTransferCheck::flowOf(const FunctionDecl *Fn,
                                                     ASTContext &Ctx) {
  // Template code is read through its instantiations.
  const DeviceFlow *Flow = ast::isTemplateCode(Fn)
                               ? &DeviceFlow::getForCallers(Fn, Ctx)
                               : device::analyzedFlow(*this, Fn, Ctx, Verbose);
  return Flow && Flow->analyzed() ? Flow : nullptr;
}

void LoopInvariantTransferCheck::check(const MatchFinder::MatchResult &Result) {
  if (const auto *Method = Result.Nodes.getNodeAs<CXXMethodDecl>("method"))
    return checkPerCall(Method, Result);
  checkLoop(Result.Nodes.getNodeAs<Stmt>("loop"),
            Result.Nodes.getNodeAs<FunctionDecl>("fn"), Result);
}

void LoopInvariantTransferCheck::checkPerCall(
    const CXXMethodDecl *Method, const MatchFinder::MatchResult &Result) {
  const CXXRecordDecl *RD = Method->getParent();
  // A class template is read through its instantiations; a transfer there
  // is reported once, at its place in the template.
  if (Method->isDependentContext() || RD->isLambda())
    return;
  std::vector<const CXXMemberCallExpr *> Conversions;
  collectConversions(Method->getBody(), Conversions);
  auto MemberOf = [](const CXXMemberCallExpr *C) {
    return memberData(C->getImplicitObjectArgument());
  };
  llvm::erase_if(Conversions,
                 [&](const CXXMemberCallExpr *C) { return !MemberOf(C); });
  if (Conversions.empty())
    return;
  const SourceManager &SM = *Result.SourceManager;
  const bool Module = libtorch::isModuleClass(RD);
  const libtorch::ModuleRegistrations Registered =
      Module ? libtorch::analyzeRegistrations(RD, SM)
             : libtorch::ModuleRegistrations();
  if (Module && !Registered.Complete)
    return;
  const auto Changed = fieldsChangedAfterConstruction(RD);
  ASTContext &Ctx = *Result.Context;
  const DeviceFlow *Flow = nullptr;
  for (const CXXMemberCallExpr *C : Conversions) {
    const FieldDecl *F = MemberOf(C);
    // A registered buffer or parameter moves with module->to(): converting
    // it again is a no-op.
    if (Changed.contains(F) || Registered.find(F))
      continue;
    if (!Flow)
      Flow = flowOf(Method, Ctx);
    if (!Flow)
      return;
    DeviceValue To = Flow->conversionTarget(C);
    if (To.isCPU() || To.isBottom() || Flow->isAlreadyOnTarget(C))
      continue;
    SourceLocation Loc = SM.getFileLoc(C->getExprLoc());
    if (!reportOnce(Loc))
      continue;
    diag(Loc, "'%0' is set only when the %1 is constructed, yet '%2' copies "
              "it to %3 on every call of '%4'; %5")
        << F->getName() << (Module ? "module" : "object")
        << C->getMethodDecl()->getName()
        << (To.isKnown() ? To.name() : std::string("its target device"))
        << Method->getNameAsString()
        << (Module ? "register it with register_buffer so that "
                     "'module->to(device)' moves it once"
                   : "keep a copy on the device and reuse it");
    diag(SM.getFileLoc(F->getLocation()), "the member is declared here",
         DiagnosticIDs::Note);
  }
}

/// The innermost loop of \p Body around \p Loop that is hot by itself, or
/// null: a loop nested in a hot loop runs all its iterations on every step.
static const Stmt *enclosingHotLoop(const Stmt *Loop, const Stmt *Body) {
  llvm::SmallVector<const Stmt *, 4> Hot;
  const Stmt *Found = nullptr;
  std::function<bool(const Stmt *)> Walk = [&](const Stmt *S) {
    if (!S || isa<LambdaExpr>(S))
      return false;
    if (S == Loop) {
      Found = Hot.empty() ? nullptr : Hot.back();
      return true;
    }
    const bool IsHot = ast::isLoop(S) && program::findHotMarker(S);
    if (IsHot)
      Hot.push_back(S);
    for (const Stmt *Child : S->children())
      if (Walk(Child))
        return true;
    if (IsHot)
      Hot.pop_back();
    return false;
  };
  Walk(Body);
  return Found;
}

void LoopInvariantTransferCheck::checkLoop(
    const Stmt *Loop, const FunctionDecl *Fn,
    const MatchFinder::MatchResult &Result) {
  // A function template is read through its instantiations (a transfer
  // there is reported once, at its place in the template); dependent code
  // has no devices to read.
  if (Fn->isDependentContext())
    return;
  program::HotMarker Marker = program::findHotMarker(Loop);
  // A loop nested in a hot loop repeats its iterations on every step (a
  // loop over the words of each caption in an inference loop).
  const bool Nested = !Marker;
  if (Nested)
    if (const Stmt *Outer = enclosingHotLoop(Loop, Fn->getBody()))
      Marker = program::findHotMarker(Outer);
  if (!Marker)
    return;
  const SourceManager &SM = *Result.SourceManager;
  SourceRange LoopRange(SM.getFileLoc(Loop->getBeginLoc()),
                        SM.getFileLoc(Loop->getEndLoc()));
  auto DeclaredBefore = [&](const VarDecl *V) {
    SourceLocation L = SM.getFileLoc(V->getLocation());
    return !V->isStaticLocal() && V->hasLocalStorage() &&
           libtorch::isTensorType(V->getType()) &&
           SM.isBeforeInTranslationUnit(L, LoopRange.getBegin());
  };

  std::vector<const CXXMemberCallExpr *> Conversions;
  for (const Stmt *Part : ast::iterationParts(Loop))
    collectConversions(Part, Conversions);
  llvm::erase_if(Conversions, [&](const CXXMemberCallExpr *C) {
    const auto *DRE = dyn_cast<DeclRefExpr>(ast::receiverOf(C));
    const auto *V = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
    return !V || !DeclaredBefore(V);
  });
  if (Conversions.empty())
    return;
  ChangedVariables Changes;
  Changes.visit(Loop);
  ASTContext &Ctx = *Result.Context;
  const DeviceFlow *Flow = nullptr;
  const LangOptions &LO = Ctx.getLangOpts();
  for (const CXXMemberCallExpr *C : Conversions) {
    const auto *V =
        cast<VarDecl>(cast<DeclRefExpr>(ast::receiverOf(C))->getDecl());
    if (Changes.Changed.contains(V))
      continue;
    if (!Flow)
      Flow = flowOf(Fn, Ctx);
    if (!Flow)
      return;
    DeviceValue To = Flow->conversionTarget(C);
    DeviceValue From = Flow->deviceOf(C->getImplicitObjectArgument());
    bool Moves =
        To.isDeviceSide() || (!To.isKnown() && !To.isBottom() && From.isCPU());
    if (!Moves || Flow->isAlreadyOnTarget(C))
      continue;
    SourceLocation Loc = SM.getFileLoc(C->getExprLoc());
    if (!reportOnce(Loc))
      continue;
    std::string Name = V->getName().str();
    std::string Text = device::quotableText(C, SM, LO);
    std::string Hoisted;
    if (!Text.empty())
      Hoisted = llvm::formatv(" ('auto {0}_dev = {1};')", Name, Text).str();
    diag(Loc, "'%0' does not change in this loop, yet '%1' copies it to %2 on "
              "every iteration; do the transfer once before the loop%3 and "
              "use the copy inside")
        << Name << C->getMethodDecl()->getName()
        << (To.isKnown() ? To.name() : std::string("its target device"))
        << Hoisted;
    diag(
        LoopRange.getBegin(),
        Nested
            ? "this loop, nested in the %0 loop, repeats the transfer on every "
              "iteration"
            : "this %0 loop repeats the transfer on every iteration",
        DiagnosticIDs::Note)
        << Marker.loopKind();
  }
}

} // namespace clang::tidy::torch
