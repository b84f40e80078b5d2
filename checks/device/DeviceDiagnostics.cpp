//===- DeviceDiagnostics.cpp - wording for checks built on DeviceFlow ----===//
#include "device/DeviceDiagnostics.h"
#include "ast/ASTHelpers.h"
#include "libtorch/ProgramCode.h"
#include "libtorch/TorchTypes.h"
#include "clang/Lex/Lexer.h"

namespace clang::tidy::torch::device {

std::string quotableText(const Expr *E, const SourceManager &SM,
                         const LangOptions &LO) {
  E = ast::stripImplicit(E);
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

bool isOwnOrigin(const Expr *Operand, const Stmt *Origin) {
  if (!Operand || !Origin)
    return false;
  const Expr *O = ast::stripImplicit(Operand);
  if (O == Origin)
    return true;
  const auto *DRE = dyn_cast<DeclRefExpr>(O);
  const auto *V = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
  const Expr *Init = V ? V->getInit() : nullptr;
  for (int I = 0; Init && I < 8; ++I) {
    Init = ast::stripImplicit(Init);
    if (Init == Origin)
      return true;
    const auto *CE = dyn_cast<CXXConstructExpr>(Init);
    if (!CE || CE->getNumArgs() != 1)
      return false;
    Init = CE->getArg(0); // a copy or move
  }
  return false;
}

const DeviceFlow *analyzedFlow(ClangTidyCheck &Check, const FunctionDecl *Fn,
                               ASTContext &Ctx, bool Verbose) {
  const DeviceFlow &Flow = DeviceFlow::get(Fn, Ctx);
  if (Flow.analyzed())
    return &Flow;
  if (Verbose)
    Check.diag(Fn->getLocation(), "device analysis skipped %0: %1",
               DiagnosticIDs::Remark)
        << Fn << Flow.skipReason();
  return nullptr;
}

void noteOrigin(ClangTidyCheck &Check, StringRef Name, const Expr *Operand,
                const DeviceFact &F, const SourceManager &SM) {
  if (!F.From)
    return;
  SourceLocation Loc = SM.getFileLoc(F.From.Loc);
  if (Loc.isInvalid() || libtorch::isLibraryLocation(SM, Loc))
    return;
  std::string Who = Name.empty() ? "the tensor" : ("'" + Name + "'").str();
  std::string Where = F.Device.name();
  const bool Own = isOwnOrigin(Operand, F.From.Where);
  std::string Text;
  switch (F.From.Kind) {
  case Origin::Factory:
    Text = Own ? Who + " is created here without a device, so it is on the CPU"
               : "created without a device, so on the CPU";
    break;
  case Origin::FactoryWithDevice:
    Text =
        Own ? Who + " is created on " + Where + " here" : "created on " + Where;
    break;
  case Origin::Moved:
    Text = Own ? Who + " is moved to " + Where + " here" : "moved to " + Where;
    break;
  case Origin::ModuleTensor:
    Text = Own ? Who + " belongs to a module on " + Where
               : "a tensor of a module on " + Where;
    break;
  case Origin::ModuleOutput:
    Text = Own ? Who + " is computed by a module on " + Where + " here"
               : "computed by a module on " + Where;
    break;
  case Origin::LoaderBatch:
    Text = Who + " comes from this data loader, which yields CPU tensors";
    break;
  case Origin::ForwardArgument:
    Text = "the tensor arguments of forward() are on the module's device";
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
  bool Derived = !Own && (F.From.Kind == Origin::Factory ||
                          F.From.Kind == Origin::FactoryWithDevice ||
                          F.From.Kind == Origin::Moved ||
                          F.From.Kind == Origin::ModuleTensor ||
                          F.From.Kind == Origin::ModuleOutput);
  if (Derived)
    Text = "the device of " + Who + " comes from here: " + Text;
  Check.diag(Loc, "%0", DiagnosticIDs::Note) << Text;
}

} // namespace clang::tidy::torch::device
