//===- LossAccumulationCheck.h - torch-loss-accumulation --------*- C++ -*-===//
#ifndef TORCH_TIDY_LOSSACCUMULATIONCHECK_H
#define TORCH_TIDY_LOSSACCUMULATIONCHECK_H

#include "TorchCheck.h"
#include <string>
#include <vector>

namespace clang::tidy::torch {

/// Flags a tensor that carries autograd history (a loss, a module's output)
/// stored inside a loop into a container or tensor accumulator that outlives
/// the iteration: every step's graph then stays in memory.
///
/// Documentation: docs/checks/torch-loss-accumulation.md
class LossAccumulationCheck : public TorchCheck {
public:
  LossAccumulationCheck(StringRef Name, ClangTidyContext *Context);
  void storeOptions(ClangTidyOptions::OptionMap &Opts) override;
  void registerMatchers(ast_matchers::MatchFinder *Finder) override;
  void check(const ast_matchers::MatchFinder::MatchResult &Result) override;

private:
  std::vector<std::string> ContainerMethods;
};

} // namespace clang::tidy::torch

#endif // TORCH_TIDY_LOSSACCUMULATIONCHECK_H
