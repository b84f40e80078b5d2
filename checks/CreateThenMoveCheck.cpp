//===- CreateThenMoveCheck.cpp - torch-create-then-move -------------------===//
#include "CreateThenMoveCheck.h"
#include "ast/ASTHelpers.h"
#include "device/DeviceDiagnostics.h"
#include "device/DeviceFlow.h"
#include "libtorch/DeviceRules.h"
#include "libtorch/TorchTypes.h"
#include "clang/AST/ASTContext.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Lex/Lexer.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch {

using device::DeviceFlow;
using device::DeviceValue;
using libtorch::FactoryKind;

void CreateThenMoveCheck::registerMatchers(MatchFinder *Finder) {
  // A conversion whose receiver is a call; check() asks whether the call is
  // a factory that allocates on the CPU.
  auto Move = cxxMemberCallExpr(
      callee(cxxMethodDecl(hasAnyName("to", "cuda"), libtorch::tensorMethod())),
      on(ignoringImplicit(callExpr(unless(cxxMemberCallExpr())))));
  Finder->addMatcher(functionDecl(isDefinition(),
                                  unless(isExpansionInSystemHeader()),
                                  unless(ast::lambdaInFunction()),
                                  hasBody(forEachDescendant(Move.bind("move"))))
                         .bind("fn"),
                     this);
}

/// Factories that allocate and fill new memory: not torch::tensor(data) or
/// from_blob (host data that has to cross anyway), not *_like (their
/// device comes from the other tensor).
static bool allocatesOnItsOwn(FactoryKind K) {
  return K == FactoryKind::Sized || K == FactoryKind::Scalar ||
         K == FactoryKind::Vector || K == FactoryKind::Matrix;
}

/// Random factories draw from the generator of the device they run on.
static bool isRandom(StringRef Name) {
  return Name.starts_with("rand") || Name == "normal" || Name == "bernoulli" ||
         Name == "multinomial";
}

/// The device argument of a conversion that moves only the device
/// (`.to(device)`, `.to(torch::kCUDA)`, `.to("cuda:0")`), or null.
static const Expr *soleDeviceArgument(const CXXMemberCallExpr *Move) {
  const Expr *Device = nullptr;
  for (const Expr *A : Move->arguments()) {
    if (isa<CXXDefaultArgExpr>(A))
      continue;
    if (Device)
      return nullptr;
    Device = A;
  }
  if (!Device)
    return nullptr;
  const Expr *Written = ast::stripCopiesAndConversions(Device);
  libtorch::Carrier C = libtorch::carrierOf(Written->getType());
  bool String =
      Written->getType()->isPointerType() || Written->getType()->isArrayType();
  return C == libtorch::Carrier::Device || C == libtorch::Carrier::DeviceType ||
                 String
             ? Device
             : nullptr;
}

/// The device \p Move moves to, as the fix-it writes it: `torch::kCUDA` for
/// `.cuda()`, the sole device argument of `.to(...)` as written; "" when the
/// conversion does more than move (a dtype, another tensor, non_blocking).
static std::string deviceText(const CXXMemberCallExpr *Move,
                              const SourceManager &SM, const LangOptions &LO) {
  if (Move->getMethodDecl()->getName() == "cuda")
    return Move->getNumArgs() == 0 ? "torch::kCUDA" : "";
  const Expr *DeviceArg = soleDeviceArgument(Move);
  return DeviceArg ? ast::sourceText(ast::stripCopiesAndConversions(DeviceArg),
                                     SM, LO)
                         .str()
                   : "";
}

/// The index of \p FD's TensorOptions parameter, or -1.
static int optionsParameter(const FunctionDecl *FD) {
  for (unsigned I = 0; I < FD->getNumParams(); ++I)
    if (libtorch::carrierOf(FD->getParamDecl(I)->getType()) ==
        libtorch::Carrier::Options)
      return static_cast<int>(I);
  return -1;
}

/// The edits that create the tensor on \p DeviceText: the device goes into
/// the factory's options, the conversion goes. Empty if the call's shape
/// allows no safe edit.
static std::vector<FixItHint>
fixes(const CallExpr *Factory, const CXXMemberCallExpr *Move,
      StringRef DeviceText, const SourceManager &SM, const LangOptions &LO) {
  const auto *Member = dyn_cast<MemberExpr>(Move->getCallee());
  int Index = optionsParameter(Factory->getDirectCallee());
  if (!Member || Index < 0 ||
      static_cast<unsigned>(Index) >= Factory->getNumArgs())
    return {};
  std::vector<FixItHint> Edits;
  const Expr *Options = Factory->getArg(Index);
  if (isa<CXXDefaultArgExpr>(Options)) {
    // Only if every argument before the options is written.
    for (int I = 0; I < Index; ++I)
      if (isa<CXXDefaultArgExpr>(Factory->getArg(I)))
        return {};
    std::string Text = (Index > 0 ? ", torch::device(" : "torch::device(") +
                       DeviceText.str() + ")";
    Edits.push_back(FixItHint::CreateInsertion(Factory->getRParenLoc(), Text));
  } else {
    const Expr *Written = ast::stripCopiesAndConversions(Options);
    StringRef Text = ast::sourceText(Written, SM, LO);
    if (Text.empty())
      return {};
    std::string New;
    if (libtorch::carrierOf(Written->getType()) != libtorch::Carrier::Options)
      New = ("torch::TensorOptions(" + Text + ")").str();
    else if (isa<CallExpr, DeclRefExpr, ParenExpr, MemberExpr>(Written))
      New = Text.str();
    else
      New = ("(" + Text + ")").str();
    New += ".device(" + DeviceText.str() + ")";
    Edits.push_back(FixItHint::CreateReplacement(
        CharSourceRange::getTokenRange(Written->getSourceRange()), New));
  }
  Edits.push_back(FixItHint::CreateRemoval(CharSourceRange::getTokenRange(
      Member->getOperatorLoc(), Move->getRParenLoc())));
  return Edits;
}

void CreateThenMoveCheck::check(const MatchFinder::MatchResult &Result) {
  const auto *Move = Result.Nodes.getNodeAs<CXXMemberCallExpr>("move");
  const auto *Fn = Result.Nodes.getNodeAs<FunctionDecl>("fn");
  const auto *Factory =
      dyn_cast<CallExpr>(ast::stripImplicit(Move->getImplicitObjectArgument()));
  const FunctionDecl *FactoryFn =
      Factory ? Factory->getDirectCallee() : nullptr;
  if (!FactoryFn || !FactoryFn->getIdentifier() ||
      !allocatesOnItsOwn(libtorch::factoryKind(FactoryFn)))
    return;
  ASTContext &Ctx = *Result.Context;
  const DeviceFlow *Flow = device::analyzedFlow(*this, Fn, Ctx, Verbose);
  if (!Flow)
    return;
  device::DeviceFact Created = Flow->factOf(Factory);
  DeviceValue Target = Flow->conversionTarget(Move);
  if (!Created.Device.isCPU() || Created.From.Kind != device::Origin::Factory ||
      !Target.isDeviceSide())
    return;

  const SourceManager &SM = *Result.SourceManager;
  const LangOptions &LO = Ctx.getLangOpts();
  SourceLocation Loc = SM.getFileLoc(Move->getExprLoc());
  if (!reportOnce(Loc))
    return;
  const StringRef Method = Move->getMethodDecl()->getName();
  const std::string DeviceText = deviceText(Move, SM, LO);
  const std::string FactoryName = FactoryFn->getQualifiedNameAsString();
  const bool InMacro =
      Move->getBeginLoc().isMacroID() || Move->getEndLoc().isMacroID();
  const NoFix Why = whyNoFix(InMacro, Fn);
  std::vector<FixItHint> Edits;
  if (Why == NoFix::Fixable && !DeviceText.empty())
    Edits = fixes(Factory, Move, DeviceText, SM, LO);
  std::string Instead =
      DeviceText.empty() ? "the device" : "torch::device(" + DeviceText + ")";
  diag(Loc, "'%0' allocates and fills this tensor on the CPU, then '%1' "
            "copies it to %2; pass %3 to the factory to create it there")
      << FactoryName << Method << Target.name() << Instead << Edits;
  if (isRandom(FactoryFn->getName()))
    diag(Loc,
         "created on the device, the values come from its random generator, "
         "not the CPU's: a seeded run draws different numbers",
         DiagnosticIDs::Note);
  if (Why != NoFix::Fixable)
    noFixNote(Loc, Why);
}

} // namespace clang::tidy::torch
