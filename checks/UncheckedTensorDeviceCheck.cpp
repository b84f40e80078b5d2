//===- UncheckedTensorDeviceCheck.cpp - torch-unchecked-tensor-device -----===//
#include "UncheckedTensorDeviceCheck.h"
#include "device/CallerDevices.h"
#include "device/ProgramFacts.h"
#include "libtorch/CudaApi.h"
#include "program/KernelLaunches.h"
#include "llvm/ADT/DenseSet.h"

namespace clang::tidy::torch {

void UncheckedTensorDeviceCheck::checkFunction(const FunctionDecl *Fn,
                                               ASTContext &Ctx) {
  std::vector<program::HandedMemory> Unproven;
  std::vector<const Expr *> Sites;
  llvm::DenseSet<const ParmVarDecl *> Seen;
  for (const program::GpuWork &W : program::gpuWorkOf(Fn, Ctx)) {
    if (!libtorch::isKernelLaunch(W.Work))
      continue;
    for (const program::HandedMemory &M : program::memoryHandedTo(Fn, W.Site)) {
      if (!Seen.insert(M.Tensor).second ||
          program::provenOnCudaAt(Fn, M.Tensor, W.Site, M.Object, Ctx) ||
          program::provenOnCudaByEveryCaller(
              Fn, M.Tensor->getFunctionScopeIndex(), Ctx))
        continue;
      Unproven.push_back(M);
      Sites.push_back(W.Work);
    }
  }
  if (Unproven.empty())
    return;
  const SourceManager &SM = Ctx.getSourceManager();
  std::vector<std::string> Needs;
  Needs.reserve(Unproven.size());
  for (const program::HandedMemory &M : Unproven)
    Needs.push_back(device::ProgramFacts::proofOf(
        M.Tensor->getFunctionScopeIndex(), device::functionKey(Fn)));
  SourceLocation Loc = reportAtFunction(Fn, Needs, SM);
  if (Loc.isInvalid())
    return;
  std::string Names;
  for (const program::HandedMemory &M : Unproven)
    Names += (Names.empty() ? "'" : ", '") + M.Tensor->getNameAsString() + "'";
  std::string First = Unproven.front().Tensor->getNameAsString();
  diag(Loc, "'%0' hands the memory of %1 to a kernel without checking that "
            "%select{it is|they are}2 on a CUDA device: a CPU tensor's pointer "
            "is a host address, and the kernel fails with an illegal memory "
            "access; check each one first: 'TORCH_CHECK(%3.is_cuda(), ...)'")
      << Fn->getNameAsString() << Names << (Unproven.size() > 1) << First;
  for (size_t I = 0; I < Unproven.size(); ++I)
    diag(reportLoc(Unproven[I].Access, SM),
         "the memory of '%0' goes to kernel '%1' here, unchecked",
         DiagnosticIDs::Note)
        << Unproven[I].Tensor->getNameAsString()
        << libtorch::launchedName(Sites[I]);
}

std::string UncheckedTensorDeviceCheck::unitFacts(ASTContext &Ctx) {
  return program::proofFacts(Ctx);
}

} // namespace clang::tidy::torch
