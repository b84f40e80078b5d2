//===- TempFiles.h - temporary files removed when they go out of scope ----===//
// The worker's export and log files and git's output in --diff: created
// together, removed together (best effort), none left behind on failure.
#ifndef TORCH_TIDY_TOOL_TEMPFILES_H
#define TORCH_TIDY_TOOL_TEMPFILES_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include <system_error>

namespace torch_tidy {

class TempFiles {
public:
  TempFiles() = default;
  TempFiles(const TempFiles &) = delete;
  TempFiles &operator=(const TempFiles &) = delete;
  ~TempFiles() { removeAll(); }

  /// Creates one file PREFIX-*.SUFFIX per suffix; on failure none is left.
  std::error_code create(llvm::StringRef Prefix,
                         llvm::ArrayRef<llvm::StringRef> Suffixes) {
    for (llvm::StringRef Suffix : Suffixes) {
      Paths.emplace_back();
      if (std::error_code EC = llvm::sys::fs::createTemporaryFile(
              Prefix, Suffix, Paths.back())) {
        removeAll();
        return EC;
      }
    }
    return {};
  }
  /// The path of the \p I-th file, in the order of the suffixes.
  llvm::StringRef operator[](size_t I) const { return Paths[I]; }

private:
  void removeAll() {
    for (const auto &P : Paths)
      if (!P.empty())
        (void)llvm::sys::fs::remove(P); // best effort
    Paths.clear();
  }
  llvm::SmallVector<llvm::SmallString<128>, 2> Paths;
};

} // namespace torch_tidy

#endif // TORCH_TIDY_TOOL_TEMPFILES_H
