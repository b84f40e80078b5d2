//===- TorchCheck.cpp - what every torch-* check shares -------------------===//
#include "TorchCheck.h"
#include "utils/ASTHelpers.h"
#include "utils/CallerDevices.h"
#include "utils/CheckOptions.h"
#include "utils/DeviceFlow.h"
#include "utils/GpuUse.h"
#include "utils/HotLoops.h"

namespace clang::tidy::torch {

void TorchCheck::onStartOfTranslationUnit() {
  Reported.clear();
  utils::clearHotLoopCache();
  utils::clearGpuUseCache();
  utils::clearCallerDevicesCache();
}

TorchCheck::NoFix TorchCheck::whyNoFix(bool InMacro, const DeclContext *DC) {
  if (InMacro)
    return NoFix::InMacro;
  return utils::isTemplateCode(DC) ? NoFix::InTemplate : NoFix::Fixable;
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
      Verbose(utils::getBoolOption(*this, Options, "Verbose",
                                   utils::verboseByDefault())) {}

void DeviceFlowCheck::storeOptions(ClangTidyOptions::OptionMap &Opts) {
  Options.store(Opts, "Verbose", Verbose);
}

void DeviceFlowCheck::onStartOfTranslationUnit() {
  TorchCheck::onStartOfTranslationUnit();
  utils::DeviceFlow::clearCache();
}

void DeviceFlowCheck::onEndOfTranslationUnit() {
  utils::DeviceFlow::clearCache();
}

} // namespace clang::tidy::torch
