//===- OptimizerFlow.h - optimizers that outlive their model's tensors ---===//
// Scans one function body in statement order for optimizers built from a
// module's parameters, and finds where that module is replaced (reassigned,
// replace_module, a registered member reassigned, or a clone trained in its
// place) while the optimizer still steps afterwards. Loop bodies are scanned
// twice, so a replacement late in an iteration meets the next step().
// Used by torch-stale-optimizer, and by torch-unregistered-member to leave
// those statements to it.
#ifndef TORCH_TIDY_UTILS_OPTIMIZERFLOW_H
#define TORCH_TIDY_UTILS_OPTIMIZERFLOW_H

#include "TorchModules.h"
#include "clang/AST/ASTContext.h"
#include <vector>

namespace clang::tidy::torch::utils {

struct StaleReplacement {
  enum KindTy { Reassigned, ReplaceModule, MemberReassigned, CloneTrained };
  KindTy Kind;
  const Expr *Replacing = nullptr;    ///< assignment, call, or clone() call
  ModuleRef Model;                    ///< the model (and member) replaced
  const ValueDecl *Optimizer = nullptr;
  const Expr *Construction = nullptr; ///< where the optimizer was built
  const CXXMemberCallExpr *Params = nullptr; ///< `net->parameters()`
  const CXXMemberCallExpr *Step = nullptr;   ///< the later `opt.step()`
  const ValueDecl *Clone = nullptr;   ///< CloneTrained: the clone
  const Expr *CloneUse = nullptr;     ///< CloneTrained: its forward call
};

/// The replacements in \p Body followed by a step() of an optimizer built
/// from the replaced model's parameters, one per replacing expression.
std::vector<StaleReplacement> findStaleReplacements(const Stmt *Body,
                                                    const SourceManager &SM);

} // namespace clang::tidy::torch::utils

#endif
