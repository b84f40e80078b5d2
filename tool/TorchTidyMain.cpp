//===- TorchTidyMain.cpp - the torch-tidy command line -------------------===//
// clang-tidy's command line with the torch module linked in. Before handing
// over to clangTidyMain it rejects bad input with one line, supplies the
// clang resource directory, and runs torch-* alone unless configured.
#include "BatchDriver.h"
#include "InputValidation.h"
#include "Version.h"
#include "clang-tidy/tool/ClangTidyMain.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"
#include <string>
#include <vector>

extern volatile int TorchTidyModuleAnchorSource;

int main(int argc, const char **argv) {
  (void)TorchTidyModuleAnchorSource;
  std::vector<std::string> Args(argv, argv + argc);
  torch_tidy::Invocation Inv = torch_tidy::parseInvocation(Args);

  if (Inv.WantsVersion) {
    llvm::outs() << "torch-tidy version " << TORCH_TIDY_VERSION << "\n"
                 << "  clang-tidy and LLVM version " << LLVM_VERSION_STRING
                 << "\n  checks: torch-* (LibTorch device management)\n";
    return 0;
  }
  if (torch_tidy::isBatchInvocation(Args))
    return torch_tidy::runBatch(Args);
  if (auto Err = torch_tidy::validateInputs(Inv)) {
    llvm::errs() << "torch-tidy: error: " << *Err << "\n";
    return 2;
  }

  std::vector<std::string> Extra;
  if (!Inv.HasResourceDir &&
      llvm::sys::fs::is_directory(TORCH_TIDY_RESOURCE_DIR))
    Extra.push_back(std::string("--extra-arg-before=-resource-dir=") +
                    TORCH_TIDY_RESOURCE_DIR);
  if (!Inv.Checks && !Inv.Config && !Inv.ConfigFile &&
      !torch_tidy::configFileSetsChecks(Inv))
    Extra.push_back("--checks=-*,torch-*");

  // Our additions go right after argv[0], before any "--".
  std::vector<const char *> NewArgv{argv[0]};
  for (const std::string &E : Extra)
    NewArgv.push_back(E.c_str());
  NewArgv.insert(NewArgv.end(), argv + 1, argv + argc);
  return clang::tidy::clangTidyMain(static_cast<int>(NewArgv.size()),
                                    NewArgv.data());
}
