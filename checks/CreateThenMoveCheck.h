//===- CreateThenMoveCheck.h - torch-create-then-move -----------*- C++ -*-===//
#ifndef TORCH_TIDY_CREATETHENMOVECHECK_H
#define TORCH_TIDY_CREATETHENMOVECHECK_H

#include "TorchCheck.h"

namespace clang::tidy::torch {

/// Flags a tensor created on the CPU by a factory and moved right away
/// ('torch::zeros({n}).to(device)'): allocated and filled on the host, then
/// copied; fix-it creates it on the device.
///
/// Documentation: docs/checks/torch-create-then-move.md
class CreateThenMoveCheck : public TorchCheck {
public:
  CreateThenMoveCheck(StringRef Name, ClangTidyContext *Context)
      : TorchCheck(Name, Context) {}
  void registerMatchers(ast_matchers::MatchFinder *Finder) override;
  void check(const ast_matchers::MatchFinder::MatchResult &Result) override;
};

} // namespace clang::tidy::torch

#endif // TORCH_TIDY_CREATETHENMOVECHECK_H
