//===- LoopInvariantTransferCheck.h - torch-loop-invariant-transfer ------===//
#ifndef TORCH_TIDY_LOOPINVARIANTTRANSFERCHECK_H
#define TORCH_TIDY_LOOPINVARIANTTRANSFERCHECK_H

#include "TorchCheck.h"

namespace clang::tidy::torch {

namespace device {
class DeviceFlow;
} // namespace device

/// Flags `.to(device)`, `.cuda()` or `.to(other)` in a hot loop (see
/// program/HotLoops.h) of a local tensor declared before the loop and never
/// changed in it: the same data crosses PCIe on every iteration. Hoist the
/// transfer before the loop. Also flags the same for a tensor member that
/// only constructors set (or a vector of them), moved on every call of
/// forward() or operator() (anchor boxes, a fixed kernel): register it as a
/// buffer instead.
///
/// Documentation: docs/checks/torch-loop-invariant-transfer.md
class LoopInvariantTransferCheck : public DeviceFlowCheck {
public:
  using DeviceFlowCheck::DeviceFlowCheck;
  void registerMatchers(ast_matchers::MatchFinder *Finder) override;
  void check(const ast_matchers::MatchFinder::MatchResult &Result) override;

private:
  void checkLoop(const Stmt *Loop, const FunctionDecl *Fn,
                 const ast_matchers::MatchFinder::MatchResult &Result);
  void checkPerCall(const CXXMethodDecl *Method,
                    const ast_matchers::MatchFinder::MatchResult &Result);
  /// \p Fn's device analysis (an instantiation's for template code), or
  /// null when it was skipped.
  const device::DeviceFlow *flowOf(const FunctionDecl *Fn, ASTContext &Ctx);
};

} // namespace clang::tidy::torch

#endif // TORCH_TIDY_LOOPINVARIANTTRANSFERCHECK_H
