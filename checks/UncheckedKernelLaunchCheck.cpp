//===- UncheckedKernelLaunchCheck.cpp - torch-unchecked-kernel-launch -----===//
#include "UncheckedKernelLaunchCheck.h"
#include "device/CallerDevices.h"
#include "device/ProgramFacts.h"
#include "libtorch/CudaApi.h"
#include "program/KernelLaunches.h"
#include "clang/Lex/Lexer.h"

namespace clang::tidy::torch {

void UncheckedKernelLaunchCheck::checkFunction(const FunctionDecl *Fn,
                                               ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  bool CallersRead = false, CallersAsked = false;
  for (const program::GpuWork &W : program::gpuWorkOf(Fn, Ctx)) {
    if (W.Launcher || !libtorch::isKernelLaunch(W.Work) ||
        program::launchErrorReadAfter(Fn, W.Site))
      continue;
    if (!CallersAsked) {
      CallersRead = program::launchErrorReadByEveryCaller(Fn, Ctx);
      CallersAsked = true;
    }
    if (CallersRead)
      continue;
    SourceLocation Loc = reportLoc(W.Site, SM);
    if (!reportOnce(Loc))
      continue;
    deferToCallers(
        Loc, {device::ProgramFacts::errorsOf(device::functionKey(Fn))}, SM);
    const Stmt *S = program::statementInBlock(Fn, W.Site);
    SourceLocation Begin = editableLoc(W.Site->getBeginLoc(), SM);
    SourceLocation End = S ? editableLoc(S->getEndLoc(), SM) : SourceLocation();
    bool InMacro = Begin.isInvalid() || (S && End.isInvalid());
    bool HaveMacro = isMacroDefined("C10_CUDA_KERNEL_LAUNCH_CHECK");
    SourceLocation After;
    if (S && !InMacro && HaveMacro)
      After = Lexer::findLocationAfterToken(End, tok::semi, SM,
                                            Ctx.getLangOpts(), false);
    {
      auto D = diag(Loc, "the launch of '%0' is never checked: a launch "
                         "error (a bad configuration, too many resources) "
                         "surfaces later, at an unrelated CUDA call; add "
                         "C10_CUDA_KERNEL_LAUNCH_CHECK() after it")
               << libtorch::launchedName(W.Work);
      if (After.isValid())
        D << FixItHint::CreateInsertion(
            After, ("\n" +
                    Lexer::getIndentationForLine(
                        editableLoc(S->getBeginLoc(), SM), SM) +
                    "C10_CUDA_KERNEL_LAUNCH_CHECK();")
                       .str());
    }
    if (InMacro)
      noFixNote(Loc, NoFix::InMacro);
    else if (!HaveMacro)
      diag(Loc,
           "no automatic fix: C10_CUDA_KERNEL_LAUNCH_CHECK is not "
           "defined here; include <c10/cuda/CUDAException.h>",
           DiagnosticIDs::Note);
    else if (!S)
      diag(Loc, "no automatic fix: the launch is not a statement of a block",
           DiagnosticIDs::Note);
  }
}

std::string UncheckedKernelLaunchCheck::unitFacts(ASTContext &Ctx) {
  return program::errorReadFacts(Ctx);
}

} // namespace clang::tidy::torch
