//===- AsyncCopyReadCheck.cpp - torch-async-copy-read ---------------------===//
#include "AsyncCopyReadCheck.h"
#include "ast/ASTHelpers.h"
#include "device/DeviceDiagnostics.h"
#include "device/DeviceFlow.h"
#include "libtorch/HostSync.h"
#include "libtorch/ProgramCode.h"
#include "libtorch/TorchTypes.h"
#include "program/HostEvents.h"
#include "clang/AST/ASTContext.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "llvm/ADT/DenseMap.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch {

using device::DeviceFlow;
using program::HostEvent;

void AsyncCopyReadCheck::registerMatchers(MatchFinder *Finder) {
  // Functions with a copy that may be non-blocking; check() reads them.
  auto Copy = cxxMemberCallExpr(callee(cxxMethodDecl(hasAnyName("to", "copy_"),
                                                     libtorch::tensorMethod())),
                                hasAnyArgument(unless(cxxDefaultArgExpr())));
  Finder->addMatcher(functionDecl(isDefinition(),
                                  unless(libtorch::isLibraryCode()),
                                  unless(ast::lambdaInFunction()),
                                  hasBody(hasDescendant(Copy)))
                         .bind("fn"),
                     this);
}

/// True for `g.to(torch::kCPU, ..., /*non_blocking=*/true)` of a tensor not
/// known to be on the CPU.
static bool isAsyncToCPU(const Expr *E, const DeviceFlow &Flow,
                         ASTContext &Ctx) {
  const auto *MC = dyn_cast_or_null<CXXMemberCallExpr>(E);
  const CXXMethodDecl *MD = MC ? MC->getMethodDecl() : nullptr;
  return MD && MD->getIdentifier() && MD->getName() == "to" &&
         libtorch::isTensorRecord(MD->getParent()) &&
         libtorch::isNonBlocking(MC, Ctx) &&
         Flow.conversionTarget(MC).isCPU() &&
         !Flow.isOnCPU(MC->getImplicitObjectArgument());
}

/// If \p E is a non-blocking copy from the device into host memory, the
/// host tensor it fills (as a variable); else null.
static const VarDecl *asyncDownload(const HostEvent &E, const DeviceFlow &Flow,
                                    ASTContext &Ctx) {
  if (isAsyncToCPU(E.Call, Flow, Ctx))
    return dyn_cast_or_null<VarDecl>(E.StoredIn);
  const auto *MC = dyn_cast_or_null<CXXMemberCallExpr>(E.Call);
  const CXXMethodDecl *MD = MC ? MC->getMethodDecl() : nullptr;
  if (!MD || !MD->getIdentifier() || MD->getName() != "copy_" ||
      !libtorch::isTensorRecord(MD->getParent()) || MC->getNumArgs() == 0 ||
      !libtorch::isNonBlocking(MC, Ctx))
    return nullptr;
  const Expr *Receiver = MC->getImplicitObjectArgument();
  if (Flow.isOnCPU(Receiver) && !Flow.isOnCPU(MC->getArg(0)))
    return ast::rootVariable(Receiver);
  return nullptr;
}

/// The tensors \p E reads on the host: the receiver and tensor arguments of
/// a tensor method that launches a kernel or reads data (item, data_ptr,
/// accessor, sum, add_, ...), of printing, or of a LibTorch function.
/// Copies (to, cuda, copy_) are left out: toward the device the stream
/// orders them after the download, and they read nothing on the host.
static llvm::SmallVector<const Expr *, 4> hostReads(const HostEvent &E) {
  llvm::SmallVector<const Expr *, 4> Reads;
  const CallExpr *Call = E.Call;
  if (!Call)
    return Reads;
  const FunctionDecl *FD = Call->getDirectCallee();
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Call)) {
    const CXXMethodDecl *MD = MC->getMethodDecl();
    if (!MD || !MD->getIdentifier() ||
        !libtorch::isTensorRecord(MD->getParent()))
      return Reads;
    StringRef Name = MD->getName();
    if (program::launchesNoKernel(Name) ||
        llvm::is_contained({"to", "cuda", "copy_", "record_stream"}, Name))
      return Reads;
    Reads.push_back(MC->getImplicitObjectArgument());
  } else {
    bool Printing = FD && FD->getOverloadedOperator() == OO_LessLess;
    if (!FD || !(Printing || (libtorch::isLibTorchDecl(FD) &&
                              !isa<CXXOperatorCallExpr>(Call))))
      return Reads;
  }
  for (const Expr *A : Call->arguments())
    if (libtorch::isTensorType(A->getType()))
      Reads.push_back(A);
  return Reads;
}

void AsyncCopyReadCheck::report(const CallExpr *Read, const VarDecl *Host,
                                const Expr *Copy, const SourceManager &SM) {
  SourceLocation Loc = SM.getFileLoc(Read->getExprLoc());
  if (!reportOnce(Loc))
    return;
  std::string Name =
      Host ? "'" + Host->getName().str() + "'" : "the copy's result";
  diag(Loc, "%0 is read on the host while the non-blocking copy that "
            "fills it may still be running, so the host can see memory "
            "the copy has not written yet; wait for the device first "
            "('torch::cuda::synchronize()', or an event recorded after "
            "the copy) or make the copy blocking")
      << Name;
  diag(SM.getFileLoc(Copy->getExprLoc()),
       Host ? "%0 is filled here by a non-blocking copy from the device"
            : "the non-blocking copy from the device is made here",
       DiagnosticIDs::Note)
      << Name;
}

void AsyncCopyReadCheck::check(const MatchFinder::MatchResult &Result) {
  const auto *Fn = Result.Nodes.getNodeAs<FunctionDecl>("fn");
  if (ast::isTemplateCode(Fn)) // DeviceFlow skips it
    return;
  ASTContext &Ctx = *Result.Context;
  const DeviceFlow *Flow = device::analyzedFlow(*this, Fn, Ctx, Verbose);
  if (!Flow)
    return;
  const SourceManager &SM = *Result.SourceManager;
  // Host tensors with a download in flight, and the copy.
  llvm::DenseMap<const VarDecl *, const CallExpr *> InFlight;
  for (const HostEvent &E : program::hostEvents(Fn->getBody())) {
    if (const VarDecl *H = asyncDownload(E, *Flow, Ctx)) {
      InFlight[H] = E.Call;
      continue;
    }
    if (const auto *V = dyn_cast_or_null<VarDecl>(E.Assigned);
        V && !E.Call && InFlight.lookup(V) != E.AssignedValue)
      InFlight.erase(V); // a new value, unless it is the download itself
    if (!E.Call)
      continue;
    bool Reported = false;
    for (const Expr *Read : hostReads(E)) {
      const Expr *Copy = ast::stripImplicit(Read);
      const VarDecl *H = nullptr;
      if (!isAsyncToCPU(Copy, *Flow, Ctx)) {
        H = ast::rootVariable(Read);
        Copy = H ? InFlight.lookup(H) : nullptr;
        if (!Copy)
          continue;
        InFlight.erase(H);
      }
      report(E.Call, H, Copy, SM);
      Reported = true;
      break;
    }
    if (Reported)
      continue;
    if (program::classifyHostCall(E.Call, *Flow, Ctx) ==
        program::HostCallKind::MayWait)
      InFlight.clear();
  }
}

} // namespace clang::tidy::torch
