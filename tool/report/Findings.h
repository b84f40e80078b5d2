//===- Findings.h - findings of a whole-codebase run ---------------------===//
// The model behind batch mode: a finding read from one worker's
// --export-fixes YAML, located (line/column) by reading the file, and given a
// fingerprint that survives unrelated edits which shift lines.
#ifndef TORCH_TIDY_TOOL_FINDINGS_H
#define TORCH_TIDY_TOOL_FINDINGS_H

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace torch_tidy {

/// A position in a file; Line and Column are 1-based (Column in bytes).
struct Position {
  std::string File; ///< absolute, dots removed
  unsigned Offset = 0, Line = 0, Column = 0;
};

/// One fix-it replacement: [Begin, End) becomes Text.
struct Edit {
  Position Begin, End;
  unsigned Length = 0;
  std::string Text;
};

struct Note {
  Position Pos; ///< File empty when the note has no location
  std::string Message;
};

/// What torch-tidy-probe counted on a finding's line (RuntimeReport.h).
struct RuntimeSeen {
  uint64_t Count = 0, Bytes = 0;
};

struct Finding {
  std::string Check, Message;
  bool IsError = false;  ///< level error (e.g. under --warnings-as-errors)
  bool IsRemark = false; ///< level remark (--verbose): not a finding
  Position Pos;
  std::vector<Note> Notes;
  std::vector<Edit> Fixes;
  std::string Fingerprint;
  std::optional<RuntimeSeen> Runtime; ///< with --runtime-report
};

/// The diagnostics of one worker's --export-fixes file, positions carrying
/// offsets only (see SourceCache::locate). Relative paths are resolved
/// against the diagnostic's build directory.
llvm::Expected<std::vector<Finding>> readExportedFixes(llvm::StringRef Path);
/// The same from the YAML text itself; \p Path names it in errors.
llvm::Expected<std::vector<Finding>> parseExportedFixes(llvm::StringRef Text,
                                                        llvm::StringRef Path);

/// Source files read once and shared by every finding that points into them.
class SourceCache {
public:
  /// Fills Line/Column of every position of \p F from its Offset.
  void locate(Finding &F);
  /// Sets F.Fingerprint: a hash of the check, the file (relative to \p Root),
  /// the whitespace-normalized flagged line, the enclosing function's header
  /// line, the occurrence index of identical lines between the two, and the
  /// message with digits masked. Line numbers are not part of it.
  void fingerprint(Finding &F, llvm::StringRef Root);

private:
  struct Text {
    std::string Content;
    std::vector<unsigned> LineStarts;
  };
  const Text *get(llvm::StringRef File);
  void locate(Position &P);
  llvm::StringMap<std::unique_ptr<Text>> Files;
};

/// Removes repeats of the same (file, offset, check, message), as a header
/// finding is reported by every translation unit that includes the header,
/// and sorts by file, line, column, check.
void dedupeAndSort(std::vector<Finding> &Findings);

/// \p Path relative to \p Root when it lies under it, else \p Path.
std::string displayPath(llvm::StringRef Path, llvm::StringRef Root);

/// \p File made absolute against \p Base (when relative), without "." and
/// ".." components.
std::string absolutePath(llvm::StringRef File, llvm::StringRef Base);

/// Whitespace runs collapsed to one space, trimmed.
std::string normalizeSpace(llvm::StringRef S);

/// The JSON document in \p Path; the error names only what went wrong, so
/// callers can prefix which file it was and what it was for.
llvm::Expected<llvm::json::Value> readJsonFile(llvm::StringRef Path);

} // namespace torch_tidy

#endif // TORCH_TIDY_TOOL_FINDINGS_H
