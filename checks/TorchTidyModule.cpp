//===- TorchTidyModule.cpp - the 'torch' clang-tidy module ----------------===//
//
// The checks are listed in checks.json; scripts/gen_checks.py generates
// TorchChecks.inc from it: their headers and registerTorchChecks().
//
//===----------------------------------------------------------------------===//
#include "TorchChecks.inc"
#include "clang-tidy/ClangTidyModule.h"

namespace clang::tidy::torch {

class TorchModule : public ClangTidyModule {
public:
  void addCheckFactories(ClangTidyCheckFactories &Factories) override {
    registerTorchChecks(Factories);
  }
};

// Registers the module in whichever clang-tidy this object is linked or
// loaded into: torch-tidy, torch-clangd or the plugin.
static ClangTidyModuleRegistry::Add<TorchModule>
    X("torch-module", "Device-management checks for LibTorch code.");

} // namespace clang::tidy::torch

// Referenced by the executables so that linkers never drop this object.
volatile int TorchTidyModuleAnchorSource = 0;
