//===- TorchCheck.cpp - what every torch-* check shares -------------------===//
#include "TorchCheck.h"
#include "ast/ASTHelpers.h"
#include "ast/CheckOptions.h"
#include "ast/DeviceCode.h"
#include "device/CallerDevices.h"
#include "device/DeviceFlow.h"
#include "device/ProgramFacts.h"
#include "libtorch/CudaApi.h"
#include "libtorch/PrecompiledLibrary.h"
#include "libtorch/ProgramCode.h"
#include "libtorch/TorchTypes.h"
#include "program/GpuUse.h"
#include "program/HotLoops.h"
#include "program/KernelLaunches.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Lex/Preprocessor.h"

namespace clang::tidy::torch {

void TorchCheck::onStartOfTranslationUnit() {
  libtorch::narrowTraversalToProgram();
  Reported.clear();
  MatchedFn = nullptr;
  DeviceBodies.clear();
  program::clearHotLoopCache();
  program::clearGpuUseCache();
  device::clearCallerDevicesCache();
  program::clearKernelLaunchCache();
}

void TorchCheck::registerPPCallbacks(const SourceManager &SM, Preprocessor *PP,
                                     Preprocessor *) {
  libtorch::skipPrecompiledLibrary(SM, *PP);
}

void TorchCheck::onEndOfTranslationUnit() {
  thread_local const ASTContext *Written = nullptr;
  if (MatchedUnit && MatchedUnit != Written && device::exportsUnitFacts()) {
    Written = MatchedUnit;
    device::appendUnitFacts(program::deviceCodeFacts(*MatchedUnit));
  }
  MatchedUnit = nullptr;
}

void TorchCheck::run(const ast_matchers::MatchFinder::MatchResult &Result) {
  MatchedUnit = Result.Context;
  if (Result.Context->getLangOpts().CUDA) {
    const FunctionDecl *Fn = Result.Nodes.getNodeAs<FunctionDecl>("fn");
    for (const auto &[ID, Node] : Result.Nodes.getMap())
      if (const auto *FD = Node.get<FunctionDecl>()) {
        if (ast::isDeviceFunction(FD))
          return;
        Fn = Fn ? Fn : FD;
      }
    if (Fn != MatchedFn) {
      MatchedFn = Fn;
      DeviceBodies = ast::deviceLambdaBodies(Fn);
    }
    SM = Result.SourceManager;
  }
  check(Result);
}

bool TorchCheck::inDeviceLambda(SourceLocation Loc) const {
  if (DeviceBodies.empty() || !SM)
    return false;
  Loc = SM->getExpansionLoc(Loc);
  return llvm::any_of(DeviceBodies, [&](SourceRange R) {
    return SM->isPointWithin(Loc, SM->getExpansionLoc(R.getBegin()),
                             SM->getExpansionLoc(R.getEnd()));
  });
}

TorchCheck::NoFix TorchCheck::whyNoFix(bool InMacro, const DeclContext *DC) {
  if (InMacro)
    return NoFix::InMacro;
  return ast::isTemplateCode(DC) ? NoFix::InTemplate : NoFix::Fixable;
}

void TorchCheck::noFixNote(SourceLocation Loc, NoFix Why,
                           llvm::StringRef Advice) {
  if (Why == NoFix::Fixable)
    return;
  diag(Loc, "no automatic fix inside %select{a macro expansion|a template}0%1",
       DiagnosticIDs::Note)
      << (Why == NoFix::InTemplate)
      << (Advice.empty() ? std::string() : ("; " + Advice).str());
}

DeviceFlowCheck::DeviceFlowCheck(llvm::StringRef Name,
                                 ClangTidyContext *Context)
    : TorchCheck(Name, Context),
      Verbose(ast::getBoolOption(*this, Options, "Verbose",
                                 ast::verboseByDefault())) {}

void DeviceFlowCheck::storeOptions(ClangTidyOptions::OptionMap &Opts) {
  Options.store(Opts, "Verbose", Verbose);
}

void DeviceFlowCheck::onStartOfTranslationUnit() {
  TorchCheck::onStartOfTranslationUnit();
  device::DeviceFlow::clearCache();
}

void DeviceFlowCheck::onEndOfTranslationUnit() {
  TorchCheck::onEndOfTranslationUnit();
  device::DeviceFlow::clearCache();
}

void KernelCheck::registerMatchers(ast_matchers::MatchFinder *Finder) {
  using namespace ast_matchers;
  Finder->addMatcher(functionDecl(isDefinition(),
                                  unless(libtorch::isLibraryCode()),
                                  unless(ast::lambdaInFunction()))
                         .bind("fn"),
                     this);
}

void KernelCheck::registerPPCallbacks(const SourceManager &SM, Preprocessor *P,
                                      Preprocessor *Expander) {
  TorchCheck::registerPPCallbacks(SM, P, Expander);
  PP = P;
}

void KernelCheck::check(const ast_matchers::MatchFinder::MatchResult &Result) {
  const auto *Fn = Result.Nodes.getNodeAs<FunctionDecl>("fn");
  if (Fn->isTemplateInstantiation() || libtorch::isLibTorchDecl(Fn) ||
      !Fn->getBody())
    return;
  if (const auto *MD = dyn_cast<CXXMethodDecl>(Fn))
    if (MD->getParent()->isLambda() ||
        MD->getParent()->getTemplateSpecializationKind() >=
            TSK_ImplicitInstantiation)
      return;
  Unit = Result.Context;
  checkFunction(Fn, *Result.Context);
}

void KernelCheck::onEndOfTranslationUnit() {
  if (Unit && device::exportsUnitFacts())
    device::appendUnitFacts(unitFacts(*Unit) + Deferred);
  Unit = nullptr;
  Deferred.clear();
  DeviceFlowCheck::onEndOfTranslationUnit();
}

SourceLocation KernelCheck::reportAtFunction(const FunctionDecl *Fn,
                                             llvm::ArrayRef<std::string> Needs,
                                             const SourceManager &SM) {
  SourceLocation Loc = SM.getFileLoc(Fn->getLocation());
  if (!reportOnce(Loc))
    return SourceLocation();
  deferToCallers(Loc, Needs, SM);
  return Loc;
}

void KernelCheck::deferToCallers(SourceLocation Loc,
                                 llvm::ArrayRef<std::string> Needs,
                                 const SourceManager &SM) {
  if (device::exportsUnitFacts())
    if (auto Pos = device::findingPosition(Loc, SM))
      for (const std::string &Value : Needs)
        Deferred += device::ProgramFacts::callerDeferredFact(
            getID(), Pos->first, Pos->second, Value);
}

void KernelCheck::needLauncher(SourceLocation Loc, const FunctionDecl *Launcher,
                               std::optional<unsigned> Param,
                               const SourceManager &SM) {
  if (device::exportsUnitFacts())
    if (auto Pos = device::findingPosition(Loc, SM))
      Deferred += device::ProgramFacts::launcherNeedFact(
          getID(), Pos->first, Pos->second, device::functionKey(Launcher),
          Param);
}

bool KernelCheck::isDeclared(ASTContext &Ctx,
                             llvm::StringRef QualifiedName) const {
  return libtorch::declaresQualifiedName(Ctx, QualifiedName);
}

bool KernelCheck::isMacroDefined(llvm::StringRef Name) const {
  return PP && PP->isMacroDefined(Name);
}

SourceLocation KernelCheck::reportLoc(const Expr *E, const SourceManager &SM) {
  return SM.getFileLoc(E->getBeginLoc());
}

SourceLocation KernelCheck::editableLoc(SourceLocation Loc,
                                        const SourceManager &SM) {
  while (Loc.isMacroID()) {
    if (!SM.isMacroArgExpansion(Loc))
      return SourceLocation();
    Loc = SM.getImmediateSpellingLoc(Loc);
  }
  return Loc;
}

} // namespace clang::tidy::torch
