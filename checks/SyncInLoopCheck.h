//===- SyncInLoopCheck.h - torch-sync-in-loop ----------------------------===//
#ifndef TORCH_TIDY_SYNCINLOOPCHECK_H
#define TORCH_TIDY_SYNCINLOOPCHECK_H

#include "clang-tidy/ClangTidyCheck.h"
#include "utils/HotLoops.h"
#include "llvm/ADT/DenseSet.h"

namespace clang::tidy::torch {

/// Flags calls that make the host wait for the device (`item()`, `cpu()`,
/// printing a tensor, data-dependent shapes, `torch::cuda::synchronize()`)
/// on every iteration of a training or inference loop.
///
/// Documentation: docs/checks/torch-sync-in-loop.md
class SyncInLoopCheck : public ClangTidyCheck {
public:
  SyncInLoopCheck(StringRef Name, ClangTidyContext *Context);
  void storeOptions(ClangTidyOptions::OptionMap &Opts) override;
  void registerMatchers(ast_matchers::MatchFinder *Finder) override;
  void check(const ast_matchers::MatchFinder::MatchResult &Result) override;
  void onStartOfTranslationUnit() override;
  void onEndOfTranslationUnit() override;
  bool isLanguageVersionSupported(const LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus;
  }
  std::optional<TraversalKind> getCheckTraversalKind() const override {
    return TK_AsIs;
  }

  /// The built-in synchronizing operations, by option name.
  enum SyncKind : unsigned {
    SK_Item = 1 << 0,
    SK_Cpu = 1 << 1,
    SK_To = 1 << 2,
    SK_Stream = 1 << 3,
    SK_Equal = 1 << 4,
    SK_Allclose = 1 << 5,
    SK_IsNonzero = 1 << 6,
    SK_Nonzero = 1 << 7,
    SK_MaskedSelect = 1 << 8,
    SK_Unique = 1 << 9,
    SK_Synchronize = 1 << 10,
  };

private:
  struct Walk;
  /// If \p E is an enabled synchronizing call, the subject of the warning
  /// ("'Tensor::item'") and its category; otherwise an empty subject.
  std::pair<std::string, unsigned> classify(const Expr *E, bool ResultUsed,
                                            ASTContext &Ctx) const;
  void report(const Expr *Call, StringRef Subject, unsigned Kind,
              const utils::HotMarker &Marker, const SourceManager &SM);

  std::vector<std::string> SyncFunctions;
  const bool AllowInPeriodicGuard;
  unsigned Enabled = 0;
  /// Entries of SyncFunctions that name no built-in operation: a bare name
  /// is a Tensor method or an at::/torch::/c10:: function, a qualified name
  /// is that function.
  std::vector<std::string> Custom;
  llvm::DenseSet<SourceLocation> Reported;
};

} // namespace clang::tidy::torch

#endif
