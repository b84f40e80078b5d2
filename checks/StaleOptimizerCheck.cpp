//===- StaleOptimizerCheck.cpp - torch-stale-optimizer --------------------===//
#include "StaleOptimizerCheck.h"
#include "ast/ASTHelpers.h"
#include "program/OptimizerFlow.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch {

/// An optimizer built in the function: a construction of a class derived
/// from torch::optim::Optimizer, directly or through make_shared/unique.
static StatementMatcher optimizerConstruction() {
  auto OptClass =
      cxxRecordDecl(isSameOrDerivedFrom("::torch::optim::Optimizer"));
  return expr(anyOf(
      cxxConstructExpr(hasDeclaration(cxxConstructorDecl(ofClass(OptClass)))),
      callExpr(callee(functionDecl(
          hasAnyName("::std::make_shared", "::std::make_unique"),
          hasTemplateArgument(0, refersToType(qualType(hasCanonicalType(
                                     hasDeclaration(OptClass))))))))));
}

void StaleOptimizerCheck::registerMatchers(MatchFinder *Finder) {
  // Only functions that build an optimizer; check() scans them in order.
  Finder->addMatcher(
      functionDecl(isDefinition(), unless(ast::lambdaInFunction()),
                   hasBody(hasDescendant(optimizerConstruction())))
          .bind("fn"),
      this);
}

void StaleOptimizerCheck::check(const MatchFinder::MatchResult &Result) {
  const auto *Fn = Result.Nodes.getNodeAs<FunctionDecl>("fn");
  if (Fn->isDependentContext() || Fn->isTemplateInstantiation())
    return;
  const SourceManager &SM = *Result.SourceManager;
  const LangOptions &LO = Result.Context->getLangOpts();
  using program::StaleReplacement;
  for (const StaleReplacement &R : Modules->staleReplacements(Fn, SM)) {
    std::string Model = R.Model.Root->getName().str();
    std::string Opt = R.Optimizer->getName().str();
    // `opt.step()`, or `train_step(...)` for a call given the optimizer.
    std::string Step = ast::sourceText(R.Step->getCallee(), SM, LO).str() +
                       (isa<CXXMemberCallExpr>(R.Step) ? "()" : "(...)");
    switch (R.Kind) {
    case StaleReplacement::Reassigned:
      diag(R.Replacing->getBeginLoc(),
           "'%0' is replaced after optimizer '%1' was built from its "
           "parameters; '%2' keeps updating the old tensors, so the new "
           "model never trains")
          << ast::sourceText(ast::asAssignment(R.Replacing).first, SM, LO)
          << Opt << Step;
      break;
    case StaleReplacement::ReplaceModule:
      diag(R.Replacing->getExprLoc(),
           "a submodule of '%0' is replaced after optimizer '%1' was built "
           "from its parameters; '%2' keeps updating the old submodule's "
           "tensors, so the new one never trains")
          << Model << Opt << Step;
      break;
    case StaleReplacement::MemberReassigned: {
      const Expr *LHS = ast::asAssignment(R.Replacing).first;
      bool Tensor = libtorch::moduleMemberKind(LHS->getType()) ==
                    libtorch::MemberKind::Tensor;
      diag(R.Replacing->getBeginLoc(),
           "'%0' is replaced after optimizer '%1' was built from the "
           "parameters of '%2'; '%3' keeps updating the old tensors, and "
           "forward() uses a %select{layer|tensor}4 that is neither "
           "registered nor optimized")
          << ast::sourceText(LHS, SM, LO) << Opt << Model << Step << Tensor;
      break;
    }
    case StaleReplacement::CloneTrained:
      diag(R.Replacing->getExprLoc(),
           "'%0' is a clone of '%1' trained in its place, but optimizer '%2' "
           "was built from the parameters of '%1'; '%3' updates the "
           "original's tensors, never the clone's, so the clone never trains")
          << R.Clone->getName() << Model << Opt << Step;
      diag(R.CloneUse->getBeginLoc(), "'%0' is run forward here",
           DiagnosticIDs::Note)
          << R.Clone->getName();
      break;
    }
    diag(R.Construction->getBeginLoc(), "optimizer '%0' built from '%1' here",
         DiagnosticIDs::Note)
        << Opt << ast::sourceText(R.Params, SM, LO);
    diag(R.Step->getBeginLoc(), "'%0' runs here", DiagnosticIDs::Note) << Step;
  }
}

} // namespace clang::tidy::torch
