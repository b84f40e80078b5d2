//===- DiscardedToCheck.h - torch-discarded-to ------------------*- C++ -*-===//
#ifndef TORCH_TIDY_DISCARDEDTOCHECK_H
#define TORCH_TIDY_DISCARDEDTOCHECK_H

#include "TorchCheck.h"
#include <string>
#include <vector>

namespace clang::tidy::torch {

/// Flags a discarded result of a tensor method that returns a new tensor
/// (`x.to(device);`), and in-place ops applied to such a temporary
/// (`x.cuda().zero_();`): either way `x` is left unchanged.
///
/// Documentation: docs/checks/torch-discarded-to.md
class DiscardedToCheck : public TorchCheck {
public:
  DiscardedToCheck(StringRef Name, ClangTidyContext *Context);
  void storeOptions(ClangTidyOptions::OptionMap &Opts) override;
  void registerMatchers(ast_matchers::MatchFinder *Finder) override;
  void check(const ast_matchers::MatchFinder::MatchResult &Result) override;

private:
  bool isListed(const CXXMethodDecl *Method) const;

  std::vector<std::string> Methods;
  const bool AllowCastToVoid;
};

} // namespace clang::tidy::torch

#endif // TORCH_TIDY_DISCARDEDTOCHECK_H
