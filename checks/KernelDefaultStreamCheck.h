//===- KernelDefaultStreamCheck.h - torch-kernel-default-stream -*- C++ -*-===//
#ifndef TORCH_TIDY_KERNELDEFAULTSTREAMCHECK_H
#define TORCH_TIDY_KERNELDEFAULTSTREAMCHECK_H

#include "TorchCheck.h"

namespace clang::tidy::torch {

/// Flags GPU work of an extension (a CUDA unit, or a C++ unit that includes
/// LibTorch) on the
/// legacy default stream: a launch without a stream or on 0 / nullptr /
/// NULL / cudaStreamLegacy, cudaMemcpy and cudaMemset, their Async forms on
/// stream 0, thrust algorithms without a policy on a stream. The work
/// ignores PyTorch's current stream.
///
/// Documentation: docs/checks/torch-kernel-default-stream.md
class KernelDefaultStreamCheck : public KernelCheck {
public:
  using KernelCheck::KernelCheck;

private:
  void checkFunction(const FunctionDecl *Fn, ASTContext &Ctx) override;
};

} // namespace clang::tidy::torch

#endif // TORCH_TIDY_KERNELDEFAULTSTREAMCHECK_H
