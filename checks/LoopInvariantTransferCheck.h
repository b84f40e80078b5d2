//===- LoopInvariantTransferCheck.h - torch-loop-invariant-transfer ------===//
#ifndef TORCH_TIDY_LOOPINVARIANTTRANSFERCHECK_H
#define TORCH_TIDY_LOOPINVARIANTTRANSFERCHECK_H

#include "TorchCheck.h"

namespace clang::tidy::torch {

/// Flags `.to(device)`, `.cuda()` or `.to(other)` in a hot loop (see
/// program/HotLoops.h) of a local tensor declared before the loop and never
/// changed in it: the same data crosses PCIe on every iteration. Hoist the
/// transfer before the loop.
///
/// Documentation: docs/checks/torch-loop-invariant-transfer.md
class LoopInvariantTransferCheck : public DeviceFlowCheck {
public:
  using DeviceFlowCheck::DeviceFlowCheck;
  void registerMatchers(ast_matchers::MatchFinder *Finder) override;
  void check(const ast_matchers::MatchFinder::MatchResult &Result) override;
};

} // namespace clang::tidy::torch

#endif // TORCH_TIDY_LOOPINVARIANTTRANSFERCHECK_H
