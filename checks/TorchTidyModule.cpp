//===- TorchTidyModule.cpp - the 'torch' clang-tidy module ---------------===//
#include "DeviceMismatchCheck.h"
#include "DiscardedToCheck.h"
#include "HostAccessDeviceTensorCheck.h"
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
    Factories.registerCheck<DeviceMismatchCheck>("torch-device-mismatch");
    Factories.registerCheck<HostAccessDeviceTensorCheck>(
        "torch-host-access-device-tensor");
  }
};

// Registers the module in whichever clang-tidy this object is linked or
// loaded into: torch-tidy, torch-clangd or the plugin.
static ClangTidyModuleRegistry::Add<TorchModule>
    X("torch-module", "Device-management checks for LibTorch code.");

} // namespace clang::tidy::torch

// Referenced by the executables so that linkers never drop this object.
volatile int TorchTidyModuleAnchorSource = 0;
