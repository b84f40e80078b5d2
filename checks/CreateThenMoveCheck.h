//===- CreateThenMoveCheck.h - torch-create-then-move -----------*- C++ -*-===//
#ifndef TORCH_TIDY_CREATETHENMOVECHECK_H
#define TORCH_TIDY_CREATETHENMOVECHECK_H

#include "TorchCheck.h"

namespace clang::tidy::torch {

/// Flags a tensor created on the CPU by a factory call and converted to a
/// device right away (`torch::zeros({n}).to(device)`, `torch::randn(..)
/// .cuda()`): it is allocated and filled on the host, then copied. The
/// fix-it passes the device to the factory instead. For random factories
/// it sits on a note: drawn on the device, the numbers differ.
///
/// Documentation: docs/checks/torch-create-then-move.md
class CreateThenMoveCheck : public DeviceFlowCheck {
public:
  CreateThenMoveCheck(StringRef Name, ClangTidyContext *Context);
  void storeOptions(ClangTidyOptions::OptionMap &Opts) override;
  void registerMatchers(ast_matchers::MatchFinder *Finder) override;
  void check(const ast_matchers::MatchFinder::MatchResult &Result) override;

private:
  const bool ReportRandomFactories;
};

} // namespace clang::tidy::torch

#endif // TORCH_TIDY_CREATETHENMOVECHECK_H
