//===- DiffFilter.h - --diff REF / --diff-file PATCH ---------------------===//
// The lines a change adds or modifies, from `git diff -U0 REF` or a unified
// diff, so that batch mode reports only findings on those lines.
#ifndef TORCH_TIDY_TOOL_DIFFFILTER_H
#define TORCH_TIDY_TOOL_DIFFFILTER_H

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <utility>
#include <vector>

namespace torch_tidy {

class ChangedLines {
public:
  /// Parses a unified diff; file paths ("+++ b/x.cpp") are resolved against
  /// \p BaseDir, a leading "b/" dropped as `patch -p1` would.
  static ChangedLines parse(llvm::StringRef Diff, llvm::StringRef BaseDir);
  bool contains(llvm::StringRef File, unsigned Line) const;
  bool touches(llvm::StringRef File) const { return Ranges.count(File); }
  std::vector<std::string> files() const;

private:
  llvm::StringMap<std::vector<std::pair<unsigned, unsigned>>> Ranges;
};

/// Runs `git diff -U0 REF` in the repository containing the working
/// directory; paths are relative to its top level.
llvm::Expected<ChangedLines> gitDiff(llvm::StringRef Ref);
/// Reads a unified diff from \p Path ("-": standard input); paths are
/// relative to the working directory.
llvm::Expected<ChangedLines> diffFile(llvm::StringRef Path);

} // namespace torch_tidy

#endif // TORCH_TIDY_TOOL_DIFFFILTER_H
