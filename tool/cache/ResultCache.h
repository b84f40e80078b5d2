//===- ResultCache.h - analysis results kept between runs ----------------===//
// Answers: was this translation unit, with these arguments and this
// configuration, analysed before by this build, and what did that analysis
// print? An entry is found by a key over everything known before the parse
// (see UnitKey.h) and stays valid while every file the preprocessor read for
// the unit (its dependency list) has the content it had. Entries are written
// atomically, checksummed (a corrupt one is a miss) and evicted least
// recently used first. See docs/performance.md.
#ifndef TORCH_TIDY_TOOL_RESULTCACHE_H
#define TORCH_TIDY_TOOL_RESULTCACHE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace torch_tidy {

/// 32 hex digits of a 128-bit hash of \p Data.
std::string hashHex(llvm::StringRef Data);

/// Writes \p Data to \p Path under a unique name, then renames it: readers
/// see all or nothing. False when it could not.
bool writeFileAtomically(llvm::StringRef Path, llvm::StringRef Data);

/// Marks the cache file \p Path as used now (trim() evicts by modification
/// time).
void markRecentlyUsed(llvm::StringRef Path);

/// Content hashes of files, each file read once per process; thread-safe.
class FileHashes {
public:
  /// The hash of \p Path's content, or "" when it cannot be read.
  std::string get(llvm::StringRef Path);

private:
  std::mutex Lock;
  llvm::StringMap<std::string> Known;
};

/// What one analysis printed: what a hit replays.
struct CachedResult {
  int ExitCode = 0;
  /// Standard output and error; for a batch worker, its unit facts and log.
  std::string Out, Err;
  std::string ExportedFixes; ///< the --export-fixes YAML, if any
};

class ResultCache {
public:
  ResultCache(std::string Dir, uint64_t MaxBytes)
      : Dir(std::move(Dir)), MaxBytes(MaxBytes) {}

  /// The entry for \p Key if every file it depends on is unchanged; marks it
  /// recently used. Anything unreadable or inconsistent is a miss.
  std::optional<CachedResult> lookup(llvm::StringRef Key, FileHashes &Hashes);
  /// Stores \p R under \p Key, valid while \p Deps keep their content. Best
  /// effort: a cache that cannot be written only costs the next run time.
  void store(llvm::StringRef Key, llvm::ArrayRef<std::string> Deps,
             const CachedResult &R, FileHashes &Hashes);
  /// Removes the least recently used entries until the cache fits.
  void trim();

  const std::string &dir() const { return Dir; }

private:
  std::string pathOf(llvm::StringRef Key) const;
  std::string Dir;
  uint64_t MaxBytes;
};

/// The clang-tidy arguments that make it write a unit's dependency list,
/// system headers included, to \p DepFile. Joined -Xclang=: clang-tidy
/// strips "-M..." arguments from compile commands.
std::vector<std::string> dependencyFileArgs(llvm::StringRef DepFile);

/// The files a Make-style dependency file lists as prerequisites, absolute
/// (relative ones resolved against \p Dir); nothing when it is unreadable.
std::optional<std::vector<std::string>> readDependencyFile(llvm::StringRef Path,
                                                           llvm::StringRef Dir);

/// A size such as "500M", "2G", "64K" or a number of bytes.
std::optional<uint64_t> parseSize(llvm::StringRef S);

/// The default bound of the cache: 1 GiB.
inline constexpr uint64_t DefaultCacheBytes = 1ull << 30;

} // namespace torch_tidy

#endif // TORCH_TIDY_TOOL_RESULTCACHE_H
