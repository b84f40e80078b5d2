//===- UnsynchronizedTimingCheck.cpp - torch-unsynchronized-timing -------===//
#include "UnsynchronizedTimingCheck.h"
#include "ast/ASTHelpers.h"
#include "device/DeviceDiagnostics.h"
#include "device/DeviceFlow.h"
#include "libtorch/DeviceRules.h"
#include "libtorch/HostSync.h"
#include "libtorch/ProgramCode.h"
#include "libtorch/TorchTypes.h"
#include "program/HostEvents.h"
#include "clang/AST/ASTContext.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "llvm/ADT/DenseSet.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch {

using device::DeviceFlow;
using program::HostEvent;

void UnsynchronizedTimingCheck::registerMatchers(MatchFinder *Finder) {
  auto ClockRead =
      callExpr(callee(functionDecl(hasAnyName(program::clockFunctions()))));
  Finder->addMatcher(functionDecl(isDefinition(),
                                  unless(libtorch::isLibraryCode()),
                                  unless(ast::lambdaInFunction()),
                                  hasBody(hasDescendant(ClockRead)))
                         .bind("fn"),
                     this);
}

/// The variable a clock read stores its time in: the one it initialises or
/// is assigned to, or the struct gettimeofday / clock_gettime fill.
static const ValueDecl *timeVariable(const CallExpr *Call,
                                     const HostEvent &Where) {
  StringRef Name = Call->getDirectCallee()->getName();
  unsigned Out = Name == "gettimeofday" ? 0 : Name == "clock_gettime" ? 1 : ~0u;
  if (Out < Call->getNumArgs()) {
    const Expr *A = ast::stripImplicit(Call->getArg(Out));
    if (const auto *UO = dyn_cast<UnaryOperator>(A))
      if (UO->getOpcode() == UO_AddrOf)
        return ast::rootVariable(UO->getSubExpr());
    return ast::rootVariable(A);
  }
  return Where.StoredIn;
}

/// True if `torch::cuda::synchronize` is declared in this translation unit.
static bool declaresCudaSynchronize(ASTContext &Ctx) {
  const DeclContext *DC = Ctx.getTranslationUnitDecl();
  for (StringRef Part : {"torch", "cuda"}) {
    const DeclContext *Next = nullptr;
    for (const NamedDecl *D : DC->lookup(&Ctx.Idents.get(Part)))
      if (const auto *NS = dyn_cast<NamespaceDecl>(D))
        Next = NS;
    if (!Next)
      return false;
    DC = Next;
  }
  return !DC->lookup(&Ctx.Idents.get("synchronize")).empty();
}

void UnsynchronizedTimingCheck::check(const MatchFinder::MatchResult &Result) {
  const auto *Fn = Result.Nodes.getNodeAs<FunctionDecl>("fn");
  // A template is read through its instantiations (`template <typename
  // DataLoader> void train(...)`): the types are known there, and each
  // finding is made once, at the template's line.
  if (Fn->isDependentContext())
    return;
  ASTContext &Ctx = *Result.Context;
  std::vector<HostEvent> Events = program::hostEvents(Fn->getBody());
  if (llvm::count_if(Events, [](const HostEvent &E) {
        return E.Call && program::isClockRead(E.Call);
      }) < 2)
    return;
  const DeviceFlow *Flow = ast::isTemplateCode(Fn)
                               ? &DeviceFlow::getForCallers(Fn, Ctx)
                               : device::analyzedFlow(*this, Fn, Ctx, Verbose);
  if (!Flow || !Flow->analyzed())
    return;
  // Pairs (later, earlier) of clock values subtracted from each other.
  llvm::DenseSet<std::pair<const void *, const void *>> Subtracted;
  for (const HostEvent &E : Events)
    if (E.Subtraction)
      Subtracted.insert({E.Subtraction->first, E.Subtraction->second});

  const HostEvent *Start = nullptr;
  const CallExpr *Pending = nullptr;
  bool WorkSinceStart = false;
  for (const HostEvent &E : Events) {
    if (!E.Call)
      continue;
    if (!program::isClockRead(E.Call)) {
      switch (program::classifyHostCall(E.Call, *Flow, Ctx)) {
      case program::HostCallKind::DeviceWork:
        Pending = E.Call;
        WorkSinceStart = true;
        break;
      case program::HostCallKind::MayWait:
        Pending = nullptr;
        break;
      case program::HostCallKind::Other:
        break;
      }
      continue;
    }
    auto Key = [&](const HostEvent &C) -> const void * {
      const ValueDecl *V = timeVariable(C.Call, C);
      return V ? static_cast<const void *>(V) : C.Call;
    };
    if (Start && WorkSinceStart && Pending &&
        Subtracted.contains({Key(E), Key(*Start)}))
      report(E, *Start, Pending, *Flow, Ctx);
    Start = &E;
    WorkSinceStart = false;
  }
}

void UnsynchronizedTimingCheck::report(const HostEvent &End,
                                       const HostEvent &Start,
                                       const CallExpr *Work,
                                       const DeviceFlow &Flow,
                                       ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  SourceLocation Loc = SM.getFileLoc(End.Call->getExprLoc());
  if (!reportOnce(Loc))
    return;
  {
    auto D = diag(Loc, "the device may still be running the timed work when "
                       "this clock is read: the interval measures kernel "
                       "launches, not the work; call "
                       "'torch::cuda::synchronize()' before reading the "
                       "clock");
    const Stmt *S = End.Statement;
    if (S && !S->getBeginLoc().isMacroID() && declaresCudaSynchronize(Ctx)) {
      SourceLocation Begin = S->getBeginLoc();
      unsigned Column = SM.getSpellingColumnNumber(Begin);
      StringRef Line(SM.getCharacterData(Begin) - (Column - 1), Column - 1);
      if (Line.find_first_not_of(" \t") == StringRef::npos)
        D << FixItHint::CreateInsertion(
            Begin, ("torch::cuda::synchronize();\n" + Line).str());
    }
  }
  diag(SM.getFileLoc(Start.Call->getExprLoc()), "the interval starts here",
       DiagnosticIDs::Note);
  diag(SM.getFileLoc(Work->getExprLoc()),
       "work queued here on %0 may still be running", DiagnosticIDs::Note)
      << program::workDevice(Work, Flow).name();
}

} // namespace clang::tidy::torch
