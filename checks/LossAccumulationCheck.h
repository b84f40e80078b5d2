//===- LossAccumulationCheck.h - torch-loss-accumulation -----------------===//
#ifndef TORCH_TIDY_LOSSACCUMULATIONCHECK_H
#define TORCH_TIDY_LOSSACCUMULATIONCHECK_H

#include "clang-tidy/ClangTidyCheck.h"
#include "llvm/ADT/DenseSet.h"

namespace clang::tidy::torch {

/// Flags a tensor that carries autograd history (a loss, a module's output)
/// stored inside a loop into a container or tensor accumulator that outlives
/// the iteration: every step's graph then stays in memory.
///
/// Documentation: docs/checks/torch-loss-accumulation.md
class LossAccumulationCheck : public ClangTidyCheck {
public:
  LossAccumulationCheck(StringRef Name, ClangTidyContext *Context);
  void storeOptions(ClangTidyOptions::OptionMap &Opts) override;
  void registerMatchers(ast_matchers::MatchFinder *Finder) override;
  void check(const ast_matchers::MatchFinder::MatchResult &Result) override;
  bool isLanguageVersionSupported(const LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus;
  }
  std::optional<TraversalKind> getCheckTraversalKind() const override {
    return TK_AsIs;
  }

private:
  std::vector<std::string> ContainerMethods;
  llvm::DenseSet<SourceLocation> Reported;
};

} // namespace clang::tidy::torch

#endif
