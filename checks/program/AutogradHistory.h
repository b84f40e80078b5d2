//===- AutogradHistory.h - values carrying an autograd graph ----*- C++ -*-===//
//
// Answers, for one function body, whether an expression evaluates to a value
// that carries autograd history (a tensor, IValue, tuple or container of
// tensors with a grad_fn), so that storing it keeps the forward pass's saved
// activations alive.
//
// Sources: a module's forward call (`m->forward(x)`, `m(x)` on a ModuleHolder,
// AnyModule, Sequential, torch::jit::Module::forward, loss modules such as
// torch::nn::MSELoss) and loss functions (`torch::mse_loss`,
// `torch::nn::functional::cross_entropy`, ...). History propagates through
// arithmetic, tensor methods, torch:: functions and local variables.
// `.detach()`, `.item()`, `.data()`, index results (argmax, ...) and anything
// computed under a NoGradGuard / InferenceMode / AutoGradMode(false) declared
// earlier in an enclosing block carry none.
//
// Local variables are followed flow-insensitively but in source order: a use
// sees the last assignment written before it (loop back edges are ignored).
// The body is scanned once, on construction; queries are memoized.
//
//===----------------------------------------------------------------------===//
#ifndef TORCH_TIDY_PROGRAM_AUTOGRADHISTORY_H
#define TORCH_TIDY_PROGRAM_AUTOGRADHISTORY_H

#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/DenseMap.h"
#include <vector>

namespace clang::tidy::torch::program {

class AutogradHistory {
public:
  AutogradHistory(const Stmt *Body, const SourceManager &SM);

  /// True when evaluating \p E yields a value carrying autograd history.
  bool carriesHistory(const Expr *E);

  /// True when \p E derives from a loss or a full reduction (a scalar whose
  /// value can be read with `.item<float>()`).
  bool isScalarLoss(const Expr *E);

  /// True when code at \p Loc runs under a no-grad guard.
  bool isUnderNoGrad(SourceLocation Loc) const;

  /// The value last assigned to \p V before \p Loc in source order, or null.
  const Expr *reachingValue(const VarDecl *V, SourceLocation Loc) const;

  /// True when \p D (a local or field), or a local computed from it, reaches
  /// `.backward()`, `torch::autograd::backward` or `torch::autograd::grad`.
  bool feedsBackward(const ValueDecl *D);

private:
  struct Def {
    SourceLocation End; ///< the definition takes effect after this point
    const Expr *Value;
  };
  bool before(SourceLocation A, SourceLocation B) const;
  bool carries(const Expr *E, unsigned Depth);
  bool scalar(const Expr *E, unsigned Depth);

  const SourceManager &SM;
  llvm::DenseMap<const VarDecl *, std::vector<Def>> Defs;
  std::vector<std::pair<SourceLocation, SourceLocation>> NoGradRegions;
  std::vector<const Expr *> BackwardCalls;
  llvm::DenseMap<const Expr *, bool> Memo;
  friend class AutogradScanner;
};

} // namespace clang::tidy::torch::program

#endif // TORCH_TIDY_PROGRAM_AUTOGRADHISTORY_H
