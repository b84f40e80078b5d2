//===- AsyncCopyReadCheck.h - torch-async-copy-read -------------*- C++ -*-===//
#ifndef TORCH_TIDY_ASYNCCOPYREADCHECK_H
#define TORCH_TIDY_ASYNCCOPYREADCHECK_H

#include "TorchCheck.h"

namespace clang::tidy::torch {

/// Flags a 'non_blocking' copy to the host read before any synchronization: the
/// host may read memory the copy has not filled yet.
///
/// Documentation: docs/checks/torch-async-copy-read.md
class AsyncCopyReadCheck : public TorchCheck {
public:
  AsyncCopyReadCheck(StringRef Name, ClangTidyContext *Context)
      : TorchCheck(Name, Context) {}
  void registerMatchers(ast_matchers::MatchFinder *Finder) override;
  void check(const ast_matchers::MatchFinder::MatchResult &Result) override;
};

} // namespace clang::tidy::torch

#endif // TORCH_TIDY_ASYNCCOPYREADCHECK_H
