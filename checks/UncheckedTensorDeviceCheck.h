//===- UncheckedTensorDeviceCheck.h - torch-unchecked-tensor-device -*- C++
//-*-===//
#ifndef TORCH_TIDY_UNCHECKEDTENSORDEVICECHECK_H
#define TORCH_TIDY_UNCHECKEDTENSORDEVICECHECK_H

#include "TorchCheck.h"

namespace clang::tidy::torch {

/// Flags a host function that hands a kernel the memory of a tensor
/// argument (data_ptr, data, const_data_ptr, packed accessors) when nothing
/// before the launch, in the function or in every caller, proves that the
/// tensor is on a CUDA device. A CPU tensor gives the GPU a host pointer.
/// The mirror of torch-host-access-device-tensor.
///
/// Documentation: docs/checks/torch-unchecked-tensor-device.md
class UncheckedTensorDeviceCheck : public KernelCheck {
public:
  using KernelCheck::KernelCheck;

private:
  void checkFunction(const FunctionDecl *Fn, ASTContext &Ctx) override;
  std::string unitFacts(ASTContext &Ctx) override;
};

} // namespace clang::tidy::torch

#endif // TORCH_TIDY_UNCHECKEDTENSORDEVICECHECK_H
