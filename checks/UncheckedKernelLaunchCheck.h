//===- UncheckedKernelLaunchCheck.h - torch-unchecked-kernel-launch -*- C++
//-*-===//
#ifndef TORCH_TIDY_UNCHECKEDKERNELLAUNCHCHECK_H
#define TORCH_TIDY_UNCHECKEDKERNELLAUNCHCHECK_H

#include "TorchCheck.h"

namespace clang::tidy::torch {

/// Flags a kernel launch whose error is never read: no
/// C10_CUDA_KERNEL_LAUNCH_CHECK(), AT_CUDA_CHECK(cudaGetLastError()) or
/// used cudaGetLastError()/cudaPeekAtLastError() after it, in its function
/// or in every caller. A bad launch then fails later, at an unrelated call.
///
/// Documentation: docs/checks/torch-unchecked-kernel-launch.md
class UncheckedKernelLaunchCheck : public KernelCheck {
public:
  using KernelCheck::KernelCheck;

private:
  void checkFunction(const FunctionDecl *Fn, ASTContext &Ctx) override;
  std::string unitFacts(ASTContext &Ctx) override;
};

} // namespace clang::tidy::torch

#endif // TORCH_TIDY_UNCHECKEDKERNELLAUNCHCHECK_H
