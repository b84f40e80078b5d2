//===- OptimizerFlow.h - optimizers stepping replaced models ----*- C++ -*-===//
//
// Answers, for one function body, where a model is replaced while an
// optimizer built from its parameters still steps afterwards. It scans the
// body in statement order for optimizers built from a module's parameters,
// and finds where that module is replaced (reassigned, replace_module, a
// registered member reassigned, or a clone trained in its place). Loop bodies
// are scanned twice, so a replacement late in an iteration meets the next
// step(). A call that is given the optimizer by non-const reference or
// pointer counts as a step, and one given a model as training it. Checks get
// the results through ModuleAnalysisCache, which computes them once per
// function for torch-stale-optimizer (which reports them) and
// torch-unregistered-member (which leaves those statements to it).
//
//===----------------------------------------------------------------------===//
#ifndef TORCH_TIDY_PROGRAM_OPTIMIZERFLOW_H
#define TORCH_TIDY_PROGRAM_OPTIMIZERFLOW_H

#include "libtorch/TorchModules.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include <vector>

namespace clang::tidy::torch::program {

struct StaleReplacement {
  enum KindTy : unsigned char {
    Reassigned,
    ReplaceModule,
    MemberReassigned,
    CloneTrained
  };
  KindTy Kind;
  const Expr *Replacing = nullptr; ///< assignment, call, or clone() call
  libtorch::ModuleRef Model;       ///< the model (and member) replaced
  const ValueDecl *Optimizer = nullptr;
  const Expr *Construction = nullptr;        ///< where the optimizer was built
  const CXXMemberCallExpr *Params = nullptr; ///< `net->parameters()`
  /// The later `opt.step()`, or a call given the optimizer by non-const
  /// reference or pointer (`train_step(model, opt)`), which may step it.
  const CallExpr *Step = nullptr;
  const ValueDecl *Clone = nullptr; ///< CloneTrained: the clone
  const Expr *CloneUse = nullptr;   ///< CloneTrained: its forward call
};

/// The registrations of a module class (ModuleAnalysisCache::registrations).
using RegistrationLookup =
    llvm::function_ref<const libtorch::ModuleRegistrations &(
        const CXXRecordDecl *)>;

/// The replacements in \p Body followed by a step() of an optimizer built
/// from the replaced model's parameters, one per replacing expression.
std::vector<StaleReplacement>
findStaleReplacements(const Stmt *Body, RegistrationLookup RegistrationsOf);

} // namespace clang::tidy::torch::program

#endif // TORCH_TIDY_PROGRAM_OPTIMIZERFLOW_H
