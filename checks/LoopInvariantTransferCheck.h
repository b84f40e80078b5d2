//===- LoopInvariantTransferCheck.h - torch-loop-invariant-transfer --*- C++
//-*-===//
#ifndef TORCH_TIDY_LOOPINVARIANTTRANSFERCHECK_H
#define TORCH_TIDY_LOOPINVARIANTTRANSFERCHECK_H

#include "TorchCheck.h"

namespace clang::tidy::torch {

/// Flags the same tensor moved with '.to(device)' / '.cuda()' on every step of
/// a hot loop although it never changes there: hoist the transfer before the
/// loop.
///
/// Documentation: docs/checks/torch-loop-invariant-transfer.md
class LoopInvariantTransferCheck : public TorchCheck {
public:
  LoopInvariantTransferCheck(StringRef Name, ClangTidyContext *Context)
      : TorchCheck(Name, Context) {}
  void registerMatchers(ast_matchers::MatchFinder *Finder) override;
  void check(const ast_matchers::MatchFinder::MatchResult &Result) override;
};

} // namespace clang::tidy::torch

#endif // TORCH_TIDY_LOOPINVARIANTTRANSFERCHECK_H
