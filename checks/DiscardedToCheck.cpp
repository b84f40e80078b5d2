//===- DiscardedToCheck.cpp - torch-discarded-to --------------------------===//
#include "DiscardedToCheck.h"
#include "ast/ASTHelpers.h"
#include "ast/CheckOptions.h"
#include "libtorch/TorchTypes.h"
#include "clang/AST/ASTContext.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch {

static constexpr llvm::StringLiteral DefaultMethods =
    "to;cuda;cpu;toType;pin_memory;type_as;contiguous;detach;clone";

DiscardedToCheck::DiscardedToCheck(StringRef Name, ClangTidyContext *Context)
    : TorchCheck(Name, Context),
      Methods(ast::getListOption(*this, Options, "Methods", DefaultMethods)),
      AllowCastToVoid(
          ast::getBoolOption(*this, Options, "AllowCastToVoid", true)) {}

void DiscardedToCheck::storeOptions(ClangTidyOptions::OptionMap &Opts) {
  Options.store(Opts, "Methods", ast::joinList(Methods));
  Options.store(Opts, "AllowCastToVoid", AllowCastToVoid);
}

bool DiscardedToCheck::isListed(const CXXMethodDecl *Method) const {
  return Method && Method->getDeclName().isIdentifier() &&
         llvm::is_contained(Methods, Method->getName());
}

void DiscardedToCheck::registerMatchers(MatchFinder *Finder) {
  // Any tensor method call whose value is thrown away; check() decides
  // whether it is a listed conversion or an in-place op on one.
  auto Call = ignoringImplicit(ignoringParens(ignoringImplicit(
      cxxMemberCallExpr(callee(libtorch::tensorMethod())).bind("call"))));
  auto Discarded =
      AllowCastToVoid
          ? expr(Call)
          : expr(
                anyOf(Call, ignoringImplicit(
                                explicitCastExpr(hasDestinationType(voidType()),
                                                 hasSourceExpression(Call))
                                    .bind("voidcast"))));
  auto Statement =
      stmt(eachOf(compoundStmt(forEach(Discarded)),
                  ifStmt(eachOf(hasThen(Discarded), hasElse(Discarded))),
                  forStmt(eachOf(hasBody(Discarded), hasIncrement(Discarded))),
                  cxxForRangeStmt(hasBody(Discarded)),
                  whileStmt(hasBody(Discarded)), doStmt(hasBody(Discarded)),
                  switchCase(has(Discarded)), labelStmt(has(Discarded))));
  // Binding the function walks only function bodies, never the parent map.
  Finder->addMatcher(
      functionDecl(isDefinition(), unless(ast::lambdaInFunction()),
                   hasBody(eachOf(Statement, forEachDescendant(Statement))))
          .bind("fn"),
      this);
}

/// What the caller still has after the call is thrown away.
static StringRef lostEffect(const CXXMemberCallExpr *Conv) {
  StringRef Name = Conv->getMethodDecl()->getName();
  if (Name == "cuda" || Name == "cpu")
    return "stays on its original device";
  if (Name == "toType")
    return "keeps its original dtype";
  if (Name == "type_as")
    return "keeps its original dtype and device";
  if (Name == "pin_memory")
    return "stays in pageable memory";
  if (Name == "contiguous")
    return "keeps its original memory layout";
  if (Name == "detach")
    return "keeps its autograd history";
  if (Name == "clone")
    return "the copy is lost";
  if (Name == "to" && Conv->getNumArgs() > 0) {
    // Look through the implicit conversion to TensorOptions.
    const Expr *A = Conv->getArg(0)->IgnoreImplicit();
    if (const auto *CE = dyn_cast<CXXConstructExpr>(A))
      if (CE->getNumArgs() == 1 && !isa<CXXTemporaryObjectExpr>(CE))
        A = CE->getArg(0)->IgnoreImplicit();
    std::string Arg =
        A->getType().getNonReferenceType().getUnqualifiedType().getAsString();
    if (StringRef(Arg).contains("ScalarType"))
      return "keeps its original dtype";
    if (StringRef(Arg).contains("Device"))
      return "stays on its original device";
    return "keeps its original device and dtype";
  }
  return "is not converted";
}

static bool hasWrittenArgs(const CallExpr *Call) {
  return llvm::any_of(Call->arguments(),
                      [](const Expr *A) { return !isa<CXXDefaultArgExpr>(A); });
}

namespace {
/// How the receiver of a conversion can be written as an assignment target.
struct Receiver {
  std::string Text;   ///< source text of the receiver, "" if unnamed
  std::string Target; ///< assignment target: "x" or "*p"; "" if none
  const ValueDecl *Decl = nullptr;
};
} // namespace

static Receiver describeReceiver(const CXXMemberCallExpr *Conv,
                                 const SourceManager &SM,
                                 const LangOptions &LO) {
  Receiver R;
  const Expr *Obj = ast::receiverOf(Conv);
  if (!Obj)
    return R;
  const auto *Callee = dyn_cast<MemberExpr>(Conv->getCallee()->IgnoreParens());
  const bool Arrow = Callee && Callee->isArrow();
  const Expr *Named = Obj;
  bool IsName = false;
  if (const auto *DRE = dyn_cast<DeclRefExpr>(Named)) {
    IsName = isa<VarDecl>(DRE->getDecl());
    R.Decl = DRE->getDecl();
  } else if (const auto *ME = dyn_cast<MemberExpr>(Named)) {
    IsName = isa<FieldDecl>(ME->getMemberDecl());
    R.Decl = ME->getMemberDecl();
  } else if (isa<ArraySubscriptExpr>(Named)) {
    IsName = true;
  } else if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Named)) {
    IsName = Op->getOperator() == OO_Subscript;
  }
  if (!IsName)
    return R;
  R.Text = ast::sourceText(Obj, SM, LO).str();
  if (R.Text.empty())
    return R;
  QualType Assigned = Arrow ? Obj->getType()->getPointeeType() : Obj->getType();
  bool Writable = !Assigned.isNull() && !Assigned.isConstQualified() &&
                  libtorch::isTensorType(Assigned) &&
                  (Arrow || Obj->isLValue());
  if (Writable)
    R.Target = Arrow ? "*" + R.Text : R.Text;
  return R;
}

void DiscardedToCheck::check(const MatchFinder::MatchResult &Result) {
  const auto *Call = Result.Nodes.getNodeAs<CXXMemberCallExpr>("call");
  const auto *Fn = Result.Nodes.getNodeAs<FunctionDecl>("fn");
  const SourceManager &SM = *Result.SourceManager;
  const LangOptions &LO = Result.Context->getLangOpts();

  // Find the conversion: the call itself, or below a chain of in-place ops.
  const CXXMemberCallExpr *Conv = nullptr;
  if (isListed(Call->getMethodDecl())) {
    Conv = Call;
  } else {
    const CXXMemberCallExpr *Cur = Call;
    while (Cur && libtorch::isInPlaceTensorMethod(Cur->getMethodDecl())) {
      Cur = dyn_cast_or_null<CXXMemberCallExpr>(ast::receiverOf(Cur));
      if (Cur && isListed(Cur->getMethodDecl()))
        Conv = Cur;
      if (Conv)
        break;
    }
  }
  if (!Conv)
    return;

  SourceLocation Loc = Call->getExprLoc();
  const bool InMacro = Loc.isMacroID() || Call->getBeginLoc().isMacroID();
  if (Loc.isMacroID())
    Loc = SM.getExpansionLoc(Loc);
  if (!reportOnce(Loc))
    return;

  StringRef ConvName = Conv->getMethodDecl()->getName();
  Receiver R = describeReceiver(Conv, SM, LO);
  std::string Shown = R.Text.empty() ? "the tensor" : "'" + R.Text + "'";
  std::string Suggestion =
      R.Target.empty()
          ? ""
          : (R.Target + " = " + R.Text + (R.Target[0] == '*' ? "->" : ".") +
             ConvName + (hasWrittenArgs(Conv) ? "(...)" : "()"))
                .str();

  if (Call != Conv) {
    diag(Loc, "'Tensor::%0' modifies the temporary returned by 'Tensor::%1'; "
              "%2 is unchanged")
        << Call->getMethodDecl()->getName() << ConvName << Shown;
    diag(Conv->getExprLoc(),
         Suggestion.empty()
             ? "store the result of 'Tensor::%0' in a variable and apply the "
               "in-place operation to that"
             : "assign the converted tensor first: '%1', then apply the "
               "in-place operation to it",
         DiagnosticIDs::Note)
        << ConvName << Suggestion;
    return;
  }

  const NoFix Why = whyNoFix(InMacro, Fn);
  const bool Fixable = !Suggestion.empty() && Why == NoFix::Fixable &&
                       !Result.Nodes.getNodeAs<Expr>("voidcast");
  if (Suggestion.empty()) {
    diag(Loc, "result of 'Tensor::%0' is discarded; %1")
        << ConvName
        << (R.Text.empty()
                ? std::string("the returned tensor is destroyed "
                              "unused")
                : Shown + " is unchanged and " + lostEffect(Conv).str());
  } else {
    auto D = diag(Loc, "result of 'Tensor::%0' is discarded; %1 is unchanged "
                       "and %2; assign it: '%3'")
             << ConvName << Shown << lostEffect(Conv) << Suggestion;
    if (Fixable)
      D << FixItHint::CreateInsertion(Conv->getBeginLoc(), R.Target + " = ");
  }
  if (Fixable)
    return;
  if (!Suggestion.empty() && Why != NoFix::Fixable)
    noFixNote(Loc, Why,
              Why == NoFix::InMacro
                  ? "assign the result where the macro is defined or used"
                  : "assign the result in the template's source");
  else if (!R.Text.empty() && R.Target.empty() && R.Decl)
    diag(R.Decl->getLocation(),
         "'%0' cannot be reassigned; store the result in a new variable",
         DiagnosticIDs::Note)
        << R.Decl->getName();
}

} // namespace clang::tidy::torch
