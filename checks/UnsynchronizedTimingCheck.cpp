//===- UnsynchronizedTimingCheck.cpp - torch-unsynchronized-timing --------===//
#include "UnsynchronizedTimingCheck.h"
#include "utils/ASTHelpers.h"
#include "utils/TorchTypes.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch {

// TODO:
// This skeleton flags `x.cuda()` and rewrites it to `x.to(torch::kCUDA)`, so
// that the generated test has something to check. Replace the matcher, the
// check and the wording; docs/adding-a-check.md says which shared analysis in
// checks/utils answers which question.

void UnsynchronizedTimingCheck::registerMatchers(MatchFinder *Finder) {
  // Bind the enclosing function top-down: hasParent/hasAncestor would build
  // the parent map of the whole translation unit.
  auto Call = cxxMemberCallExpr(
      callee(cxxMethodDecl(hasName("cuda"), utils::tensorMethod())));
  Finder->addMatcher(
      functionDecl(isDefinition(), forEachDescendant(Call.bind("call")))
          .bind("fn"),
      this);
}

void UnsynchronizedTimingCheck::check(const MatchFinder::MatchResult &Result) {
  const auto *Call = Result.Nodes.getNodeAs<CXXMemberCallExpr>("call");
  const auto *Fn = Result.Nodes.getNodeAs<FunctionDecl>("fn");
  const auto *Member = dyn_cast<MemberExpr>(Call->getCallee());
  if (!Member)
    return;
  const SourceManager &SM = *Result.SourceManager;
  SourceLocation Loc = Member->getMemberLoc();
  const bool InMacro = Loc.isMacroID() || Call->getEndLoc().isMacroID();
  if (InMacro)
    Loc = SM.getExpansionLoc(Loc);
  if (!reportOnce(Loc))
    return;

  const bool WrittenArgs = llvm::any_of(Call->arguments(), [](const Expr *A) {
    return !isa<CXXDefaultArgExpr>(A);
  });
  const NoFix Why = whyNoFix(InMacro, Fn);
  {
    auto D = diag(Loc, "'Tensor::cuda' is called here; TODO: say what happens "
                       "at run time and what to write instead");
    if (Why == NoFix::Fixable && !WrittenArgs)
      D << FixItHint::CreateReplacement(
          CharSourceRange::getTokenRange(Loc, Call->getRParenLoc()),
          "to(torch::kCUDA)");
  }
  noFixNote(Loc, Why);
}

} // namespace clang::tidy::torch
