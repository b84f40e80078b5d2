//===- TorchTidyModule.cpp - the 'torch' clang-tidy module ---------------===//
#include "DiscardedToCheck.h"
#include "LossAccumulationCheck.h"
#include "StaleOptimizerCheck.h"
#include "SyncInLoopCheck.h"
#include "UnregisteredMemberCheck.h"
#include "clang-tidy/ClangTidyModule.h"
#include "clang-tidy/ClangTidyModuleRegistry.h"

namespace clang::tidy::torch {

class TorchModule : public ClangTidyModule {
public:
  void addCheckFactories(ClangTidyCheckFactories &Factories) override {
    Factories.registerCheck<DiscardedToCheck>("torch-discarded-to");
    Factories.registerCheck<LossAccumulationCheck>(
        "torch-loss-accumulation");
    Factories.registerCheck<StaleOptimizerCheck>("torch-stale-optimizer");
    Factories.registerCheck<UnregisteredMemberCheck>(
        "torch-unregistered-member");
    Factories.registerCheck<SyncInLoopCheck>("torch-sync-in-loop");
  }
};

// Registers the module in whichever clang-tidy this object is linked or
// loaded into: torch-tidy, torch-clangd or the plugin.
static ClangTidyModuleRegistry::Add<TorchModule>
    X("torch-module", "Device-management checks for LibTorch code.");

} // namespace clang::tidy::torch

// Referenced by the executables so that linkers never drop this object.
volatile int TorchTidyModuleAnchorSource = 0;
