//===- StaleOptimizerCheck.h - torch-stale-optimizer ------------*- C++ -*-===//
#ifndef TORCH_TIDY_STALEOPTIMIZERCHECK_H
#define TORCH_TIDY_STALEOPTIMIZERCHECK_H

#include "TorchCheck.h"
#include "program/ModuleAnalysisCache.h"

namespace clang::tidy::torch {

/// Flags a model replaced (reassigned, replace_module, a registered member
/// reassigned, or a clone trained in its place) after an optimizer was
/// built from its parameters, while that optimizer still steps: the
/// optimizer keeps updating the old tensors.
///
/// Documentation: docs/checks/torch-stale-optimizer.md
class StaleOptimizerCheck : public TorchCheck {
public:
  StaleOptimizerCheck(StringRef Name, ClangTidyContext *Context)
      : TorchCheck(Name, Context),
        Modules(program::ModuleAnalysisCache::forContext(Context)) {}
  void registerMatchers(ast_matchers::MatchFinder *Finder) override;
  void check(const ast_matchers::MatchFinder::MatchResult &Result) override;
  void onStartOfTranslationUnit() override {
    TorchCheck::onStartOfTranslationUnit();
    Modules->clear();
  }

private:
  /// Other checks leave the replacements it reports to it.
  program::ModuleAnalysisCache::StaleReporter Modules;
};

} // namespace clang::tidy::torch

#endif // TORCH_TIDY_STALEOPTIMIZERCHECK_H
