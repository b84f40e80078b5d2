//===- SyncInLoopCheck.h - torch-sync-in-loop -------------------*- C++ -*-===//
#ifndef TORCH_TIDY_SYNCINLOOPCHECK_H
#define TORCH_TIDY_SYNCINLOOPCHECK_H

#include "TorchCheck.h"
#include "device/DeviceFacts.h"
#include "program/HotLoops.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace clang::tidy::torch {

namespace libtorch {
struct SyncOperation;
} // namespace libtorch

/// Flags calls that make the host wait for the device (`item()`, `cpu()`,
/// printing a tensor, data-dependent shapes, `torch::cuda::synchronize()`)
/// on every iteration of a training or inference loop.
///
/// Documentation: docs/checks/torch-sync-in-loop.md
class SyncInLoopCheck : public TorchCheck {
public:
  SyncInLoopCheck(StringRef Name, ClangTidyContext *Context);
  void storeOptions(ClangTidyOptions::OptionMap &Opts) override;
  void registerMatchers(ast_matchers::MatchFinder *Finder) override;
  void check(const ast_matchers::MatchFinder::MatchResult &Result) override;
  void onStartOfTranslationUnit() override;
  void onEndOfTranslationUnit() override;

private:
  struct Walk;
  /// If \p E is an enabled synchronizing call, the subject of the warning
  /// ("'Tensor::item'") and the built-in operation it is (null for one of
  /// the Custom entries); otherwise an empty subject. \p Fn, the function
  /// holding \p E, lets the device analysis place a `to()`'s target.
  std::pair<std::string, const libtorch::SyncOperation *>
  classify(const Expr *E, bool ResultUsed, ASTContext &Ctx,
           bool InPatternOnly = false, const FunctionDecl *Fn = nullptr) const;
  void report(const Expr *Call, StringRef Subject,
              const libtorch::SyncOperation *Op,
              const program::HotMarker &Marker, const SourceManager &SM,
              const CallExpr *Inside = nullptr,
              device::DeviceValue Read = device::DeviceValue::unknown());

  /// What the finding at \p Loc, made with \p Marker, needs from the
  /// whole program (batch mode): a GPU named somewhere; and when made as if
  /// its function ran once per step, another file that calls it so. \p Read
  /// is the device of the tensor read there, if known.
  void needsProgram(SourceLocation Loc, const program::HotMarker &Marker,
                    const SourceManager &SM, device::DeviceValue Read);

  std::vector<std::string> SyncFunctions;
  /// The Q and Z lines of this unit (device::ProgramFacts).
  std::set<std::string> ProgramNeeds;
  /// In a batch worker: the unit whose facts onEndOfTranslationUnit()
  /// writes (CallerDevices.h).
  ASTContext *Unit = nullptr;
  const bool AllowInPeriodicGuard;
  /// Also report copies from the device into CPU tensors.
  const bool HostBufferCopies;
  /// The enabled built-in operations, one bit per SyncOperations entry.
  unsigned Enabled = 0;
  /// Entries of SyncFunctions that name no built-in operation: a bare name
  /// is a Tensor method or an at::/torch::/c10:: function, a qualified name
  /// is that function.
  std::vector<std::string> Custom;
};

} // namespace clang::tidy::torch

#endif // TORCH_TIDY_SYNCINLOOPCHECK_H
