//===- PluginLoader.cpp - TorchTidyPlugin.so -----------------------------===//
// Loaded with `clang-tidy --load TorchTidyPlugin.so`. It links nothing, so it
// loads into any clang-tidy; it registers the torch-* checks (by loading
// TorchTidyChecks.so beside it) only when the host is the LLVM version they
// were compiled against. Otherwise it prints one line and registers nothing.
#include <cstdio>
#include <dlfcn.h>
#include <string>

namespace {

using GetVersionFn = void (*)(unsigned *, unsigned *, unsigned *);

/// Major version of the LLVM in this process; 0 when older than LLVM 16
/// (which is when LLVMGetVersion appeared).
unsigned hostLLVMMajor() {
  auto *Get =
      reinterpret_cast<GetVersionFn>(dlsym(RTLD_DEFAULT, "LLVMGetVersion"));
  if (!Get)
    return 0;
  unsigned Major = 0, Minor = 0, Patch = 0;
  Get(&Major, &Minor, &Patch);
  return Major;
}

std::string ownDirectory() {
  Dl_info Info;
  if (!dladdr(reinterpret_cast<void *>(&hostLLVMMajor), &Info) ||
      !Info.dli_fname)
    return ".";
  std::string Path = Info.dli_fname;
  size_t Slash = Path.rfind('/');
  return Slash == std::string::npos ? "." : Path.substr(0, Slash);
}

__attribute__((constructor)) void loadTorchChecks() {
  unsigned Host = hostLLVMMajor();
  if (Host != TORCH_TIDY_LLVM_MAJOR) {
    std::string HostName = Host ? "clang-tidy " + std::to_string(Host)
                                : "a clang-tidy older than 16";
    std::fprintf(stderr,
                 "TorchTidyPlugin: built for clang-tidy %d but loaded into %s; "
                 "torch-* checks are not registered (use clang-tidy-%d or "
                 "torch-tidy)\n",
                 TORCH_TIDY_LLVM_MAJOR, HostName.c_str(),
                 TORCH_TIDY_LLVM_MAJOR);
    return;
  }
  std::string Checks = ownDirectory() + "/TorchTidyChecks.so";
  if (!dlopen(Checks.c_str(), RTLD_NOW | RTLD_GLOBAL))
    std::fprintf(stderr, "TorchTidyPlugin: cannot load %s: %s\n",
                 Checks.c_str(), dlerror());
}

} // namespace
