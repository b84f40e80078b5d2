#include "tool/ResourceDir.h"
#include "Version.h"
#include "clang/Options/OptionUtils.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

namespace torch_tidy {
namespace {

bool holdsClangHeaders(const std::string &Dir) {
  llvm::SmallString<256> Probe(Dir);
  llvm::sys::path::append(Probe, "include", "stddef.h");
  return llvm::sys::fs::exists(Probe);
}

std::string findResourceDir() {
  static int Anchor;
  std::string Self = llvm::sys::fs::getMainExecutable(
      "torch-tidy", reinterpret_cast<void *>(&Anchor));
  if (!Self.empty()) {
    std::string Beside = clang::GetResourcesPath(Self);
    if (holdsClangHeaders(Beside))
      return Beside;
  }
  if (llvm::sys::fs::is_directory(TORCH_TIDY_RESOURCE_DIR))
    return TORCH_TIDY_RESOURCE_DIR;
  return "";
}

} // namespace

const std::string &resourceDir() {
  static const std::string Dir = findResourceDir();
  return Dir;
}

} // namespace torch_tidy
