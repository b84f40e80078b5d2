//===- MissingDeviceGuardCheck.cpp - torch-missing-device-guard -----------===//
#include "MissingDeviceGuardCheck.h"
#include "device/CallerDevices.h"
#include "device/ProgramFacts.h"
#include "libtorch/CudaApi.h"
#include "libtorch/TorchTypes.h"
#include "program/KernelLaunches.h"
#include "clang/Lex/Lexer.h"

namespace clang::tidy::torch {

namespace {
/// "kernel 'k' is launched", "'cudaMemcpy' runs", "'launch' launches
/// kernel 'k'".
std::string describe(const program::GpuWork &W) {
  std::string Work =
      libtorch::isKernelLaunch(W.Work)
          ? "kernel '" + libtorch::launchedName(W.Work) + "'"
          : "'" + cast<CallExpr>(W.Work)->getDirectCallee()->getNameAsString() +
                "'";
  if (W.Launcher)
    return "'" + W.Launcher->getNameAsString() + "' starts " + Work;
  return Work + (libtorch::isKernelLaunch(W.Work) ? " is launched" : " runs");
}
} // namespace

void MissingDeviceGuardCheck::checkFunction(const FunctionDecl *Fn,
                                            ASTContext &Ctx) {
  const ParmVarDecl *Tensor = program::firstTensorParameter(Fn);
  if (!Tensor)
    return;
  std::vector<program::GpuWork> Work = program::gpuWorkOf(Fn, Ctx);
  const program::GpuWork *Unguarded = nullptr;
  for (const program::GpuWork &W : Work)
    if (!program::guardedAt(Fn, W.Site)) {
      Unguarded = &W;
      break;
    }
  // Launchers defined in other files: only their units can say they start
  // GPU work, so only a batch run (which asks them) reports these.
  std::vector<const CallExpr *> Elsewhere;
  if (!Unguarded && device::exportsUnitFacts())
    for (const CallExpr *Call : program::callsOfOtherFiles(Fn))
      if (!program::guardedAt(Fn, Call))
        Elsewhere.push_back(Call);
  if ((!Unguarded && Elsewhere.empty()) ||
      program::guardedByEveryCaller(Fn, Ctx))
    return;
  const SourceManager &SM = Ctx.getSourceManager();
  SourceLocation Loc = reportAtFunction(
      Fn, {device::ProgramFacts::guardOf(device::functionKey(Fn))}, SM);
  if (Loc.isInvalid())
    return;
  for (const CallExpr *Call : Elsewhere)
    needLauncher(Loc, Call->getDirectCallee(), std::nullopt, SM);

  const auto *Body = dyn_cast<CompoundStmt>(Fn->getBody());
  bool InMacro = Fn->getLocation().isMacroID() ||
                 (Body && Body->getLBracLoc().isMacroID());
  // What the fix writes, and the header that declares it.
  llvm::StringRef MissingHeader =
      !isDeclared(Ctx, "at::cuda::OptionalCUDAGuard") ? "<c10/cuda/CUDAGuard.h>"
      : !isDeclared(Ctx, "at::device_of")             ? "<ATen/DeviceGuard.h>"
                                                      : "";
  bool CanWrite = MissingHeader.empty();
  std::string Guard =
      "const at::cuda::OptionalCUDAGuard device_guard(device_of(" +
      Tensor->getNameAsString() + "));";
  {
    auto D = diag(Loc, "'%0' starts GPU work on the current device, not on "
                       "its tensors' device: with inputs on another GPU "
                       "(cuda:1 while cuda:0 is current) the work reads "
                       "another device's memory; make the tensors' device "
                       "current first: '%1'")
             << Fn->getNameAsString() << Guard;
    if (Body && !InMacro && CanWrite && Tensor->getIdentifier()) {
      std::string Indent =
          Body->body_empty()
              ? (Lexer::getIndentationForLine(Fn->getBeginLoc(), SM) + "  ")
                    .str()
              : Lexer::getIndentationForLine(Body->body_front()->getBeginLoc(),
                                             SM)
                    .str();
      D << FixItHint::CreateInsertion(Body->getLBracLoc().getLocWithOffset(1),
                                      "\n" + Indent + Guard);
    }
  }
  if (Unguarded)
    diag(reportLoc(Unguarded->Site, SM), "%0 here, with no guard before it",
         DiagnosticIDs::Note)
        << describe(*Unguarded);
  for (const CallExpr *Call : Elsewhere)
    diag(reportLoc(Call, SM),
         "'%0', defined in another file, is called here with no guard "
         "before it",
         DiagnosticIDs::Note)
        << Call->getDirectCallee()->getNameAsString();
  if (InMacro)
    noFixNote(Loc, NoFix::InMacro);
  else if (!CanWrite)
    diag(Loc,
         "no automatic fix: the guard needs %0, which this file does "
         "not include",
         DiagnosticIDs::Note)
        << MissingHeader;
  else if (!Tensor->getIdentifier())
    diag(Loc, "no automatic fix: the tensor parameter has no name",
         DiagnosticIDs::Note);
}

std::string MissingDeviceGuardCheck::unitFacts(ASTContext &Ctx) {
  return program::guardFacts(Ctx) + program::launcherFacts(Ctx);
}

} // namespace clang::tidy::torch
