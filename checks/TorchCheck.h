//===- TorchCheck.h - what every torch-* check shares -----------*- C++ -*-===//
//
// The base of every torch-* check (and DeviceFlowCheck, of those built on
// the device analysis): C++ only, matchers traverse the AST as
// written (TK_AsIs: implicit nodes are visible, the checks strip them where
// they mean to), one warning per source location and file, and one wording
// for the note that says why a warning comes without a fix-it. In a CUDA
// unit, device code (kernels, __device__ functions and lambdas:
// ast/DeviceCode.h) is left alone: a match there never reaches check(), and
// reportOnce() refuses a location in a device lambda of the matched function.
//
//===----------------------------------------------------------------------===//
#ifndef TORCH_TIDY_TORCHCHECK_H
#define TORCH_TIDY_TORCHCHECK_H

#include "clang-tidy/ClangTidyCheck.h"
#include "clang/AST/Decl.h"
#include "clang/AST/DeclBase.h"
#include "clang/Basic/SourceLocation.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include <optional>
#include <string>

namespace clang::tidy::torch {

class TorchCheck : public ClangTidyCheck {
public:
  using ClangTidyCheck::ClangTidyCheck;

  bool isLanguageVersionSupported(const LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus;
  }
  std::optional<TraversalKind> getCheckTraversalKind() const override {
    return TK_AsIs;
  }
  /// Checks that override this call it first. Drops the hot-loop caches
  /// (program/HotLoops.h) of the previous translation unit, and narrows the
  /// matchers' traversal of a unit read with a precompiled header to the
  /// program's declarations (libtorch/PrecompiledLibrary.h).
  void onStartOfTranslationUnit() override;
  /// Checks that override this call it. In a batch worker, the first check
  /// to end a CUDA unit with compile errors writes where its device code is
  /// (program::deviceCodeFacts), for the driver to judge the errors.
  void onEndOfTranslationUnit() override;
  /// Checks that override this call it: a unit read with a precompiled
  /// header leaves the vtables its library code used undefined
  /// (libtorch/PrecompiledLibrary.h).
  void registerPPCallbacks(const SourceManager &SM, Preprocessor *PP,
                           Preprocessor *ModuleExpanderPP) override;

protected:
  /// True the first time it is called with \p Loc in this file, unless
  /// \p Loc is in device code.
  bool reportOnce(SourceLocation Loc) {
    return !inDeviceLambda(Loc) && Reported.insert(Loc).second;
  }
  /// True if reportOnce(\p Loc) was called in this file.
  bool isReported(SourceLocation Loc) const { return Reported.contains(Loc); }

  /// Why a warning comes without its fix-it.
  enum class NoFix : unsigned char { Fixable, InMacro, InTemplate };
  /// InMacro if the code comes from a macro expansion, else InTemplate if
  /// \p DC is template code (ast::isTemplateCode), else Fixable.
  static NoFix whyNoFix(bool InMacro, const DeclContext *DC);
  /// Notes at \p Loc "no automatic fix inside a macro expansion" (or "...a
  /// template"), followed by "; " and \p Advice when one is given.
  void noFixNote(SourceLocation Loc, NoFix Why, llvm::StringRef Advice = "");

private:
  /// Every match passes here on its way to check(): in a CUDA unit, one
  /// whose function is device code is dropped (ClangTidyCheck::run does
  /// nothing but call check()).
  void run(const ast_matchers::MatchFinder::MatchResult &Result) override;
  bool inDeviceLambda(SourceLocation Loc) const;

  llvm::DenseSet<SourceLocation> Reported;
  ASTContext *MatchedUnit = nullptr;
  /// The function of the current match, and its device lambdas' bodies.
  const FunctionDecl *MatchedFn = nullptr;
  llvm::SmallVector<SourceRange, 2> DeviceBodies;
  const SourceManager *SM = nullptr;
};

/// The base of checks built on the device analysis (device/DeviceFlow.h): its
/// cache is dropped at both ends of each translation unit, and the Verbose
/// option (a remark for each function the analysis skipped, and why;
/// `torch-tidy --verbose` or TORCH_TIDY_VERBOSE=1 sets its default) is read
/// and stored. Checks that override the hooks call these first.
class DeviceFlowCheck : public TorchCheck {
public:
  DeviceFlowCheck(llvm::StringRef Name, ClangTidyContext *Context);
  void storeOptions(ClangTidyOptions::OptionMap &Opts) override;
  void onStartOfTranslationUnit() override;
  void onEndOfTranslationUnit() override;

protected:
  const bool Verbose;
};

/// The base of the checks of extension code (program/KernelLaunches.h): each
/// host function definition of the user's code (not a lambda inside one, not
/// a template instantiation: the template itself is checked once) reaches
/// checkFunction(). Fix-its that write CUDA or LibTorch names ask
/// isDeclared() / isMacroDefined() first, so that the fixed code compiles.
class KernelCheck : public DeviceFlowCheck {
public:
  using DeviceFlowCheck::DeviceFlowCheck;
  void registerMatchers(ast_matchers::MatchFinder *Finder) final;
  void registerPPCallbacks(const SourceManager &SM, Preprocessor *PP,
                           Preprocessor *ModuleExpanderPP) final;
  void check(const ast_matchers::MatchFinder::MatchResult &Result) final;
  void onEndOfTranslationUnit() override;

protected:
  virtual void checkFunction(const FunctionDecl *Fn, ASTContext &Ctx) = 0;
  /// In a batch worker: what the unit tells the other units, written with
  /// the deferred findings at the end of the unit (device/ProgramFacts.h).
  virtual std::string unitFacts(ASTContext &) { return ""; }
  /// Where a finding about \p Fn goes (its name), or an invalid location
  /// when one was reported there already. In a batch worker the finding
  /// stands only if the program's calls do not prove all of \p Needs
  /// ("guard <fn>", "proof <i> <fn>": device/ProgramFacts.h); a static
  /// function's calls are its unit's, its callers' may be anywhere.
  SourceLocation reportAtFunction(const FunctionDecl *Fn,
                                  llvm::ArrayRef<std::string> Needs,
                                  const SourceManager &SM);
  /// In a batch worker, for a finding at \p Loc: it stands only if the
  /// program's calls do not prove all of \p Needs.
  void deferToCallers(SourceLocation Loc, llvm::ArrayRef<std::string> Needs,
                      const SourceManager &SM);
  /// In a batch worker: the finding at \p Loc stands only if another unit
  /// shows that \p Launcher starts unguarded GPU work (no \p Param) or
  /// hands it its parameter \p Param (device/ProgramFacts.h N lines).
  void needLauncher(SourceLocation Loc, const FunctionDecl *Launcher,
                    std::optional<unsigned> Param, const SourceManager &SM);
  /// True when the qualified name (a namespace path and a name) is declared.
  bool isDeclared(ASTContext &Ctx, llvm::StringRef QualifiedName) const;
  bool isMacroDefined(llvm::StringRef Name) const;
  /// Where a diagnostic about \p E goes: its start, where it is written in
  /// a macro argument (an AT_DISPATCH lambda), or where its macro is used.
  static SourceLocation reportLoc(const Expr *E, const SourceManager &SM);
  /// \p Loc in the file, when a fix-it can edit it there: a file location,
  /// or one written in a macro argument; invalid inside a macro body.
  static SourceLocation editableLoc(SourceLocation Loc,
                                    const SourceManager &SM);

private:
  Preprocessor *PP = nullptr;
  ASTContext *Unit = nullptr;
  std::string Deferred;
};

} // namespace clang::tidy::torch

#endif // TORCH_TIDY_TORCHCHECK_H
