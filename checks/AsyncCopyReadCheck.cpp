//===- AsyncCopyReadCheck.cpp - torch-async-copy-read ---------------------===//
#include "AsyncCopyReadCheck.h"
#include "utils/ASTHelpers.h"
#include "utils/CheckOptions.h"
#include "utils/DeviceDiagnostics.h"
#include "utils/DeviceFlow.h"
#include "utils/HostEvents.h"
#include "utils/HostSync.h"
#include "utils/TorchTypes.h"
#include "clang/AST/ASTContext.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "llvm/ADT/MapVector.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch {

using utils::DeviceFlow;
using utils::HostEvent;

AsyncCopyReadCheck::AsyncCopyReadCheck(StringRef Name,
                                       ClangTidyContext *Context)
    : TorchCheck(Name, Context),
      Verbose(utils::getBoolOption(*this, Options, "Verbose",
                                   utils::verboseByDefault())) {}

void AsyncCopyReadCheck::storeOptions(ClangTidyOptions::OptionMap &Opts) {
  Options.store(Opts, "Verbose", Verbose);
}

void AsyncCopyReadCheck::onStartOfTranslationUnit() {
  TorchCheck::onStartOfTranslationUnit();
  DeviceFlow::clearCache();
}

void AsyncCopyReadCheck::onEndOfTranslationUnit() { DeviceFlow::clearCache(); }

void AsyncCopyReadCheck::registerMatchers(MatchFinder *Finder) {
  // Functions with a copy that may be non-blocking; check() reads them.
  auto Copy = cxxMemberCallExpr(
      callee(cxxMethodDecl(hasAnyName("to", "copy_"), utils::tensorMethod())),
      hasAnyArgument(unless(cxxDefaultArgExpr())));
  Finder->addMatcher(
      functionDecl(isDefinition(), unless(isExpansionInSystemHeader()),
                   unless(utils::lambdaInFunction()),
                   hasBody(hasDescendant(Copy)))
          .bind("fn"),
      this);
}

/// If \p E is a non-blocking copy from the device into host memory, the
/// host tensor it fills (as a variable); else null.
static const VarDecl *asyncDownload(const HostEvent &E, const DeviceFlow &Flow,
                                    ASTContext &Ctx) {
  const auto *MC = dyn_cast_or_null<CXXMemberCallExpr>(E.Call);
  const CXXMethodDecl *MD = MC ? MC->getMethodDecl() : nullptr;
  if (!MD || !MD->getIdentifier() || !utils::isTensorRecord(MD->getParent()) ||
      !utils::isNonBlocking(MC, Ctx))
    return nullptr;
  const Expr *Receiver = MC->getImplicitObjectArgument();
  if (MD->getName() == "to") {
    if (!Flow.conversionTarget(MC).isCPU() || Flow.isOnCPU(Receiver))
      return nullptr;
    return dyn_cast_or_null<VarDecl>(E.StoredIn);
  }
  if (MD->getName() == "copy_" && MC->getNumArgs() > 0 &&
      Flow.isOnCPU(Receiver) && !Flow.isOnCPU(MC->getArg(0)))
    return utils::rootVariable(Receiver);
  return nullptr;
}

/// If \p E reads host tensor memory, the variable it reads: a tensor method
/// that launches a kernel or reads data (item, data_ptr, accessor, sum, ...)
/// on it or on a view of it, printing it, or a LibTorch function given it.
/// Copies back to the device are ordered after the download on the stream
/// and read nothing on the host.
static const VarDecl *hostRead(const HostEvent &E) {
  const CallExpr *Call = E.Call;
  if (!Call)
    return nullptr;
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Call)) {
    const CXXMethodDecl *MD = MC->getMethodDecl();
    if (!MD || !MD->getIdentifier() || !utils::isTensorRecord(MD->getParent()))
      return nullptr;
    StringRef Name = MD->getName();
    if (utils::launchesNoKernel(Name) ||
        llvm::is_contained({"to", "cuda", "copy_", "record_stream"}, Name))
      return nullptr;
    return utils::rootVariable(MC->getImplicitObjectArgument());
  }
  const FunctionDecl *FD = Call->getDirectCallee();
  bool Printing = FD && FD->getOverloadedOperator() == OO_LessLess;
  if (!FD || !(Printing || (utils::isLibTorchDecl(FD) &&
                            !isa<CXXOperatorCallExpr>(Call))))
    return nullptr;
  for (const Expr *A : Call->arguments())
    if (utils::isTensorType(A->getType()))
      if (const VarDecl *V = utils::rootVariable(A))
        return V;
  return nullptr;
}

void AsyncCopyReadCheck::check(const MatchFinder::MatchResult &Result) {
  const auto *Fn = Result.Nodes.getNodeAs<FunctionDecl>("fn");
  if (utils::isTemplateCode(Fn)) // DeviceFlow skips it
    return;
  ASTContext &Ctx = *Result.Context;
  const DeviceFlow *Flow = utils::analyzedFlow(*this, Fn, Ctx, Verbose);
  if (!Flow)
    return;
  const SourceManager &SM = *Result.SourceManager;
  // Host tensors with a download in flight, and the copy.
  llvm::MapVector<const VarDecl *, const CallExpr *> InFlight;
  for (const HostEvent &E : utils::hostEvents(Fn->getBody())) {
    if (const VarDecl *H = asyncDownload(E, *Flow, Ctx)) {
      InFlight[H] = E.Call;
      continue;
    }
    if (const auto *V = dyn_cast_or_null<VarDecl>(E.Assigned);
        V && !E.Call && InFlight.lookup(V) != E.AssignedValue)
      InFlight.erase(V); // a new value, unless it is the download itself
    if (InFlight.empty() || !E.Call)
      continue;
    if (const VarDecl *H = hostRead(E); H && InFlight.count(H)) {
      const CallExpr *Copy = InFlight.lookup(H);
      InFlight.erase(H);
      SourceLocation Loc = SM.getFileLoc(E.Call->getExprLoc());
      if (!reportOnce(Loc))
        continue;
      diag(Loc, "'%0' is read on the host while the non-blocking copy that "
                "fills it may still be running, so the host can see memory "
                "the copy has not written yet; wait for the device first "
                "('torch::cuda::synchronize()', or an event recorded after "
                "the copy) or make the copy blocking")
          << H->getName();
      diag(SM.getFileLoc(Copy->getExprLoc()),
           "'%0' is filled here by a non-blocking copy from the device",
           DiagnosticIDs::Note)
          << H->getName();
      continue;
    }
    if (utils::classifyHostCall(E.Call, *Flow, Ctx) ==
        utils::HostCallKind::MayWait)
      InFlight.clear();
  }
}

} // namespace clang::tidy::torch
