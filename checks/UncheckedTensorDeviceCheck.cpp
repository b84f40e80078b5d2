//===- UncheckedTensorDeviceCheck.cpp - torch-unchecked-tensor-device -----===//
#include "UncheckedTensorDeviceCheck.h"
#include "device/CallerDevices.h"
#include "device/ProgramFacts.h"
#include "libtorch/CudaApi.h"
#include "program/KernelLaunches.h"
#include "llvm/ADT/DenseSet.h"

namespace clang::tidy::torch {

namespace {
/// A tensor whose memory goes to GPU work unchecked.
struct Unchecked {
  program::HandedMemory Memory;
  /// The launch, or the call of a launcher of another file and the
  /// parameter that receives the memory.
  const Expr *Work;
  const FunctionDecl *Launcher = nullptr;
  unsigned Param = 0;
};
} // namespace

void UncheckedTensorDeviceCheck::checkFunction(const FunctionDecl *Fn,
                                               ASTContext &Ctx) {
  std::vector<Unchecked> Found;
  llvm::DenseSet<const ParmVarDecl *> Seen;
  auto Proven = [&](const program::HandedMemory &M, const Expr *Site) {
    return program::provenOnCudaAt(Fn, M.Tensor, Site, M.Object, Ctx) ||
           program::provenOnCudaByEveryCaller(
               Fn, M.Tensor->getFunctionScopeIndex(), Ctx);
  };
  for (const program::GpuWork &W : program::gpuWorkOf(Fn, Ctx)) {
    if (!libtorch::isKernelLaunch(W.Work))
      continue;
    for (const program::HandedMemory &M : program::memoryHandedTo(Fn, W.Site))
      if (Seen.insert(M.Tensor).second && !Proven(M, W.Site))
        Found.push_back({M, W.Work});
  }
  // Launchers defined in other files: only a batch run, which asks their
  // units, reports these, and only when no launch here is reported.
  if (Found.empty() && device::exportsUnitFacts())
    for (const CallExpr *Call : program::callsOfOtherFiles(Fn))
      for (unsigned I = 0; I < Call->getNumArgs(); ++I)
        for (const program::HandedMemory &M :
             program::memoryInArgument(Fn, Call->getArg(I)))
          if (Seen.insert(M.Tensor).second && !Proven(M, Call))
            Found.push_back({M, Call, Call->getDirectCallee(), I});
  if (Found.empty())
    return;
  const SourceManager &SM = Ctx.getSourceManager();
  std::vector<std::string> Needs;
  Needs.reserve(Found.size());
  for (const Unchecked &U : Found)
    Needs.push_back(device::ProgramFacts::proofOf(
        U.Memory.Tensor->getFunctionScopeIndex(), device::functionKey(Fn)));
  SourceLocation Loc = reportAtFunction(Fn, Needs, SM);
  if (Loc.isInvalid())
    return;
  for (const Unchecked &U : Found)
    if (U.Launcher)
      needLauncher(Loc, U.Launcher, U.Param, SM);
  std::string Names;
  for (const Unchecked &U : Found)
    Names += (Names.empty() ? "'" : ", '") +
             U.Memory.Tensor->getNameAsString() + "'";
  std::string First = Found.front().Memory.Tensor->getNameAsString();
  diag(Loc, "'%0' hands the memory of %1 to a kernel without checking that "
            "%select{it is|they are}2 on a CUDA device: a CPU tensor's pointer "
            "is a host address, and the kernel fails with an illegal memory "
            "access; check each one first: 'TORCH_CHECK(%3.is_cuda(), ...)'")
      << Fn->getNameAsString() << Names << (Found.size() > 1) << First;
  for (const Unchecked &U : Found) {
    if (U.Launcher)
      diag(reportLoc(U.Memory.Access, SM),
           "the memory of '%0' goes to '%1', defined in another file, here, "
           "unchecked",
           DiagnosticIDs::Note)
          << U.Memory.Tensor->getNameAsString()
          << U.Launcher->getNameAsString();
    else
      diag(reportLoc(U.Memory.Access, SM),
           "the memory of '%0' goes to kernel '%1' here, unchecked",
           DiagnosticIDs::Note)
          << U.Memory.Tensor->getNameAsString()
          << libtorch::launchedName(U.Work);
  }
}

std::string UncheckedTensorDeviceCheck::unitFacts(ASTContext &Ctx) {
  return program::proofFacts(Ctx) + program::launcherFacts(Ctx);
}

} // namespace clang::tidy::torch
