//===- UnsynchronizedTimingCheck.h - torch-unsynchronized-timing --*- C++
//-*-===//
#ifndef TORCH_TIDY_UNSYNCHRONIZEDTIMINGCHECK_H
#define TORCH_TIDY_UNSYNCHRONIZEDTIMINGCHECK_H

#include "TorchCheck.h"

namespace clang::tidy::torch {

/// Flags two host clock reads around GPU work with nothing waiting for the
/// device before the second: it times the launches, not the work.
///
/// Documentation: docs/checks/torch-unsynchronized-timing.md
class UnsynchronizedTimingCheck : public TorchCheck {
public:
  UnsynchronizedTimingCheck(StringRef Name, ClangTidyContext *Context)
      : TorchCheck(Name, Context) {}
  void registerMatchers(ast_matchers::MatchFinder *Finder) override;
  void check(const ast_matchers::MatchFinder::MatchResult &Result) override;
};

} // namespace clang::tidy::torch

#endif // TORCH_TIDY_UNSYNCHRONIZEDTIMINGCHECK_H
