//===- TorchClangdMain.cpp - clangd with the torch-* checks --------------===//
// The torch module registers itself from checks/TorchTidyModule.cpp, which is
// linked into this executable; clangd picks it up from the registry.
namespace clang::clangd {
int clangdMain(int argc, char *argv[]);
} // namespace clang::clangd

extern volatile int TorchTidyModuleAnchorSource;

int main(int argc, char *argv[]) {
  (void)TorchTidyModuleAnchorSource;
  return clang::clangd::clangdMain(argc, argv);
}
