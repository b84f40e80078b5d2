//===- DeviceMismatchCheck.h - torch-device-mismatch ---------------------===//
#ifndef TORCH_TIDY_DEVICEMISMATCHCHECK_H
#define TORCH_TIDY_DEVICEMISMATCHCHECK_H

#include "TorchCheck.h"
#include "device/DeviceFlow.h"
#include "llvm/ADT/DenseSet.h"

namespace clang::tidy::torch {

/// Flags an op whose tensor operands are on different devices: one is a
/// CPU tensor with at least one dimension, the other is on CUDA, on a
/// torch::Device variable, or on the module's device. On a GPU machine the
/// op throws "Expected all tensors to be on the same device".
///
/// Documentation: docs/checks/torch-device-mismatch.md
class DeviceMismatchCheck : public DeviceFlowCheck {
public:
  using DeviceFlowCheck::DeviceFlowCheck;
  void registerMatchers(ast_matchers::MatchFinder *Finder) override;
  void check(const ast_matchers::MatchFinder::MatchResult &Result) override;
  void onStartOfTranslationUnit() override;

  /// One op and its tensor operands.
  struct Op {
    const Expr *E;      ///< the call or operator
    SourceLocation Loc; ///< where to report
    llvm::SmallVector<const Expr *, 4> Operands;
    const Expr *Module = nullptr; ///< a module call: the module
  };

private:
  void checkOp(const Op &O, const device::DeviceFlow &Flow,
               const FunctionDecl *Fn, ASTContext &Ctx,
               const llvm::DenseMap<const VarDecl *, unsigned> &Uses);
  void reportModuleCall(const Op &O, const Expr *Input,
                        const device::DeviceFact &InputFact,
                        const device::DeviceFact &ModuleFact,
                        const SourceManager &SM, const LangOptions &LO);

  llvm::DenseSet<const Expr *> Fixed;
};

} // namespace clang::tidy::torch

#endif // TORCH_TIDY_DEVICEMISMATCHCHECK_H
