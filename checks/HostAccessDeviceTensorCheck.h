//===- HostAccessDeviceTensorCheck.h - torch-host-access-device-tensor ---===//
#ifndef TORCH_TIDY_HOSTACCESSDEVICETENSORCHECK_H
#define TORCH_TIDY_HOSTACCESSDEVICETENSORCHECK_H

#include "TorchCheck.h"

namespace clang::tidy::torch {

/// Flags host code that reads the memory of a tensor on CUDA, on a
/// torch::Device variable or on the module's device: `accessor<T, N>()`,
/// and `data_ptr<T>()` / `data<T>()` / `const_data_ptr` whose pointer is
/// dereferenced, indexed or handed to a host consumer (std::memcpy,
/// std::copy, a std::vector or std::string built from it, cv::Mat) in the
/// same function. The C++ form of ".numpy() only works on CPU tensors".
///
/// Documentation: docs/checks/torch-host-access-device-tensor.md
class HostAccessDeviceTensorCheck : public DeviceFlowCheck {
public:
  using DeviceFlowCheck::DeviceFlowCheck;
  void registerMatchers(ast_matchers::MatchFinder *Finder) override;
  void check(const ast_matchers::MatchFinder::MatchResult &Result) override;
};

} // namespace clang::tidy::torch

#endif // TORCH_TIDY_HOSTACCESSDEVICETENSORCHECK_H
