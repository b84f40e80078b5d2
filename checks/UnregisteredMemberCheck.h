//===- UnregisteredMemberCheck.h - torch-unregistered-member ----*- C++ -*-===//
#ifndef TORCH_TIDY_UNREGISTEREDMEMBERCHECK_H
#define TORCH_TIDY_UNREGISTEREDMEMBERCHECK_H

#include "TorchCheck.h"
#include "program/ModuleAnalysisCache.h"
#include <memory>

namespace clang::tidy::torch {

/// Flags tensor, ModuleHolder and shared_ptr<Module> members of a module
/// class that are assigned but never registered (missing from parameters(),
/// not moved by to(device)), and registered members later reassigned
/// without registering the new object.
///
/// Documentation: docs/checks/torch-unregistered-member.md
class UnregisteredMemberCheck : public TorchCheck {
public:
  UnregisteredMemberCheck(StringRef Name, ClangTidyContext *Context)
      : TorchCheck(Name, Context),
        Modules(program::ModuleAnalysisCache::forContext(Context)) {}
  void registerMatchers(ast_matchers::MatchFinder *Finder) override;
  void check(const ast_matchers::MatchFinder::MatchResult &Result) override;
  void onStartOfTranslationUnit() override {
    TorchCheck::onStartOfTranslationUnit();
    Modules->clear();
  }

private:
  void checkClass(const CXXRecordDecl *RD,
                  const ast_matchers::MatchFinder::MatchResult &Result);
  void checkReassignments(const FunctionDecl *Fn,
                          const ast_matchers::MatchFinder::MatchResult &Result);

  std::shared_ptr<program::ModuleAnalysisCache> Modules;
};

} // namespace clang::tidy::torch

#endif // TORCH_TIDY_UNREGISTEREDMEMBERCHECK_H
