//===- AsyncCopyReadCheck.h - torch-async-copy-read -------------*- C++ -*-===//
#ifndef TORCH_TIDY_ASYNCCOPYREADCHECK_H
#define TORCH_TIDY_ASYNCCOPYREADCHECK_H

#include "TorchCheck.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"

namespace clang::tidy::torch {

/// Flags a host read (data_ptr, accessor, item, printing, a CPU op) of a
/// tensor filled by a non-blocking copy from the device
/// (`auto h = g.to(torch::kCPU, /*non_blocking=*/true)`,
/// `h.copy_(g, /*non_blocking=*/true)`) with nothing in between that waits
/// for the device: the copy is only queued, so the host may read memory it
/// has not filled yet.
///
/// Documentation: docs/checks/torch-async-copy-read.md
class AsyncCopyReadCheck : public DeviceFlowCheck {
public:
  using DeviceFlowCheck::DeviceFlowCheck;
  void registerMatchers(ast_matchers::MatchFinder *Finder) override;
  void check(const ast_matchers::MatchFinder::MatchResult &Result) override;

private:
  void report(const CallExpr *Read, const VarDecl *Host, const Expr *Copy,
              const SourceManager &SM);
};

} // namespace clang::tidy::torch

#endif // TORCH_TIDY_ASYNCCOPYREADCHECK_H
