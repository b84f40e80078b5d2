//===- RemoteIndexStub.cpp - no remote index in torch-clangd -------------===//
// clangdMain refers to the gRPC remote-index client; torch-clangd is built
// without gRPC, so a remote index configured by the user is simply absent.
#include "llvm/ADT/StringRef.h"
#include <memory>

namespace clang::clangd {
class SymbolIndex;
namespace remote {
std::unique_ptr<SymbolIndex> getClient(llvm::StringRef, llvm::StringRef) {
  return nullptr;
}
} // namespace remote
} // namespace clang::clangd
