//===- StaleOptimizerCheck.h - torch-stale-optimizer ---------------------===//
#ifndef TORCH_TIDY_STALEOPTIMIZERCHECK_H
#define TORCH_TIDY_STALEOPTIMIZERCHECK_H

#include "clang-tidy/ClangTidyCheck.h"

namespace clang::tidy::torch {

/// Flags a model replaced (reassigned, replace_module, a registered member
/// reassigned, or a clone trained in its place) after an optimizer was
/// built from its parameters, while that optimizer still steps: the
/// optimizer keeps updating the old tensors.
///
/// Documentation: docs/checks/torch-stale-optimizer.md
class StaleOptimizerCheck : public ClangTidyCheck {
public:
  StaleOptimizerCheck(StringRef Name, ClangTidyContext *Context)
      : ClangTidyCheck(Name, Context) {}
  void registerMatchers(ast_matchers::MatchFinder *Finder) override;
  void check(const ast_matchers::MatchFinder::MatchResult &Result) override;
  bool isLanguageVersionSupported(const LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus;
  }
  std::optional<TraversalKind> getCheckTraversalKind() const override {
    return TK_AsIs;
  }
};

} // namespace clang::tidy::torch

#endif
