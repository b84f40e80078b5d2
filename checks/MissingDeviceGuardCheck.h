//===- MissingDeviceGuardCheck.h - torch-missing-device-guard ---*- C++ -*-===//
#ifndef TORCH_TIDY_MISSINGDEVICEGUARDCHECK_H
#define TORCH_TIDY_MISSINGDEVICEGUARDCHECK_H

#include "TorchCheck.h"

namespace clang::tidy::torch {

/// Flags a host function that takes tensors and starts GPU work (a launch,
/// runtime copies, cuBLAS, thrust, cub; directly or through a launcher of
/// the file) with no device guard or cudaSetDevice before it, in itself or
/// in every caller. With inputs on another GPU than the current one, the
/// work runs on the current device.
///
/// Documentation: docs/checks/torch-missing-device-guard.md
class MissingDeviceGuardCheck : public KernelCheck {
public:
  using KernelCheck::KernelCheck;

private:
  void checkFunction(const FunctionDecl *Fn, ASTContext &Ctx) override;
  std::string unitFacts(ASTContext &Ctx) override;
};

} // namespace clang::tidy::torch

#endif // TORCH_TIDY_MISSINGDEVICEGUARDCHECK_H
