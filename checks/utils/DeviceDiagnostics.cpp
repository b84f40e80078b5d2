//===- DeviceDiagnostics.cpp - wording for checks built on DeviceFlow ----===//
#include "DeviceDiagnostics.h"
#include "TorchTypes.h"
#include "clang/Lex/Lexer.h"

namespace clang::tidy::torch::utils {

std::string quotableText(const Expr *E, const SourceManager &SM,
                         const LangOptions &LO) {
  E = stripImplicit(E);
  if (!E || E->getBeginLoc().isMacroID() || E->getEndLoc().isMacroID())
    return "";
  StringRef Text = Lexer::getSourceText(
      CharSourceRange::getTokenRange(E->getSourceRange()), SM, LO);
  if (Text.empty() || Text.size() > 40 || Text.contains('\n'))
    return "";
  return Text.str();
}

std::string describeOperand(StringRef Name, const DeviceFact &F) {
  std::string S = Name.empty() ? "the tensor" : ("'" + Name + "'").str();
  S += " is " + F.Device.describe();
  if (F.From && !F.From.phrase().empty())
    S += " (" + F.From.phrase().str() + ")";
  return S;
}

void noteOrigin(ClangTidyCheck &Check, StringRef Name, const DeviceFact &F,
                const SourceManager &SM) {
  if (!F.From)
    return;
  SourceLocation Loc = SM.getFileLoc(F.From.Loc);
  if (Loc.isInvalid() || SM.isInSystemHeader(Loc))
    return;
  std::string Who = Name.empty() ? "the tensor" : ("'" + Name + "'").str();
  std::string Where = F.Device.name();
  std::string Text;
  switch (F.From.Kind) {
  case Origin::Factory:
    Text = Who + " is created here without a device, so it is on the CPU";
    break;
  case Origin::FactoryWithDevice:
    Text = Who + " is created on " + Where + " here";
    break;
  case Origin::Moved:
    Text = Who + " is moved to " + Where + " here";
    break;
  case Origin::LoaderBatch:
    Text = Who + " comes from this data loader, which yields CPU tensors";
    break;
  case Origin::ForwardArgument:
    Text = "the tensor arguments of forward() are on the module's device";
    break;
  case Origin::ModuleTensor:
    Text = "this tensor belongs to the module, so it is on " + Where;
    break;
  case Origin::ModuleOutput:
    Text = Who + " is computed by a module on " + Where + " here";
    break;
  case Origin::ModuleMoved:
    Text = "the module is moved to " + Where + " here";
    break;
  case Origin::ModuleCreated:
    Text = "the module is created here; modules start on the CPU";
    break;
  case Origin::DeviceValueDecl:
    Text = Where + " is chosen here";
    break;
  case Origin::None:
    return;
  }
  Check.diag(Loc, "%0", DiagnosticIDs::Note) << Text;
}

} // namespace clang::tidy::torch::utils
