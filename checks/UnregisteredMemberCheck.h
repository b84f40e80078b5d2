//===- UnregisteredMemberCheck.h - torch-unregistered-member -------------===//
#ifndef TORCH_TIDY_UNREGISTEREDMEMBERCHECK_H
#define TORCH_TIDY_UNREGISTEREDMEMBERCHECK_H

#include "clang-tidy/ClangTidyCheck.h"
#include "utils/TorchModules.h"

namespace clang::tidy::torch {

/// Flags tensor, ModuleHolder and shared_ptr<Module> members of a module
/// class that are assigned but never registered (missing from parameters(),
/// not moved by to(device)), and registered members later reassigned
/// without registering the new object.
///
/// Documentation: docs/checks/torch-unregistered-member.md
class UnregisteredMemberCheck : public ClangTidyCheck {
public:
  UnregisteredMemberCheck(StringRef Name, ClangTidyContext *Context)
      : ClangTidyCheck(Name, Context), Context(Context) {}
  void registerMatchers(ast_matchers::MatchFinder *Finder) override;
  void check(const ast_matchers::MatchFinder::MatchResult &Result) override;
  bool isLanguageVersionSupported(const LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus;
  }
  std::optional<TraversalKind> getCheckTraversalKind() const override {
    return TK_AsIs;
  }

private:
  void checkClass(const CXXRecordDecl *RD,
                  const ast_matchers::MatchFinder::MatchResult &Result);
  void checkReassignments(const FunctionDecl *Fn,
                          const ast_matchers::MatchFinder::MatchResult &Result);

  void onEndOfTranslationUnit() override { Registrations.clear(); }

  ClangTidyContext *Context;
  llvm::DenseMap<const CXXRecordDecl *, utils::ModuleRegistrations>
      Registrations;
};

} // namespace clang::tidy::torch

#endif
