//===- CachedRun.cpp ------------------------------------------------------===//
#include "tool/cache/CachedRun.h"
#include "tool/TempFiles.h"
#include "tool/cache/ResultCache.h"
#include "tool/cache/UnitKey.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

using llvm::StringRef;

namespace torch_tidy {

static StringRef optionName(StringRef A) {
  return A.ltrim('-').split('=').first;
}

bool cacheApplies(const CommandLine &C) {
  if (!C.CacheDir || C.CacheDir->empty() || C.IsWorker ||
      C.Sources.size() != 1 || C.SawInfoFlag)
    return false;
  return llvm::none_of(C.TidyArgs, [](StringRef A) {
    return llvm::is_contained({"fix", "fix-errors", "fix-notes",
                               "enable-check-profile", "store-check-profile"},
                              optionName(A));
  });
}

/// The value of --export-fixes, if given.
static std::optional<std::string> exportFixesPath(const CommandLine &C) {
  for (size_t I = 0; I < C.TidyArgs.size(); ++I) {
    StringRef A = C.TidyArgs[I];
    if (optionName(A) != "export-fixes")
      continue;
    if (A.contains('='))
      return A.split('=').second.str();
    if (I + 1 < C.TidyArgs.size())
      return C.TidyArgs[I + 1];
  }
  return std::nullopt;
}

static std::string readAll(StringRef Path) {
  auto Buf = llvm::MemoryBuffer::getFile(Path);
  return Buf ? (*Buf)->getBuffer().str() : "";
}

static int replay(const CachedResult &R,
                  const std::optional<std::string> &Export) {
  if (Export)
    if (llvm::Error E =
            llvm::writeToOutput(*Export, [&](llvm::raw_ostream &OS) {
              OS << R.ExportedFixes;
              return llvm::Error::success();
            })) {
      llvm::errs() << "torch-tidy: error: cannot write '" << *Export
                   << "': " << llvm::toString(std::move(E)) << "\n";
      return 2;
    }
  llvm::outs() << R.Out;
  llvm::outs().flush();
  llvm::errs() << R.Err;
  return R.ExitCode;
}

int runCached(const CommandLine &C,
              const clang::tooling::CompilationDatabase *DB, StringRef Self,
              const std::vector<std::string> &Args) {
  bool ColorGiven = llvm::any_of(
      C.TidyArgs, [](StringRef A) { return optionName(A) == "use-color"; });
  // The child prints to files: colour is decided here, and keyed.
  bool Color = !ColorGiven && llvm::sys::Process::StandardOutHasColors();
  const std::string &Source = C.Sources.front();
  llvm::SmallString<256> Dir(C.CacheDir.value_or(".")); // cacheApplies
  (void)llvm::sys::fs::make_absolute(Dir);
  ResultCache Cache(Dir.str().str(), C.CacheMaxBytes);
  FileHashes Hashes;
  UnitInputs U = unitInputs(C, DB, Source);
  std::string Key =
      unitKey(C, Source, U, Color ? "single color" : "single", Hashes);
  std::optional<std::string> Export = exportFixesPath(C);
  if (!Key.empty())
    if (auto Hit = Cache.lookup(Key, Hashes))
      return replay(*Hit, Export);

  TempFiles Temp;
  if (std::error_code EC = Temp.create("torch-tidy-run", {"out", "err", "d"})) {
    llvm::errs() << "torch-tidy: error: cannot create a temporary file: "
                 << EC.message() << "\n";
    return 2;
  }
  std::vector<std::string> Child = {Self.str(), WorkerFlag.str()};
  if (Color)
    Child.push_back("--use-color");
  for (std::string &A : dependencyFileArgs(Temp[2]))
    Child.push_back(std::move(A));
  Child.insert(Child.end(), Args.begin(), Args.end());
  std::vector<StringRef> Argv(Child.begin(), Child.end());
  std::optional<StringRef> Redirects[] = {std::nullopt, Temp[0], Temp[1]};
  std::string ErrMsg;
  int RC = llvm::sys::ExecuteAndWait(Self, Argv, std::nullopt, Redirects, 0, 0,
                                     &ErrMsg);
  CachedResult R{RC, readAll(Temp[0]), readAll(Temp[1]),
                 Export ? readAll(*Export) : ""};
  llvm::outs() << R.Out;
  llvm::outs().flush();
  llvm::errs() << R.Err;
  if (RC < 0) {
    llvm::errs() << "torch-tidy: error: the analysis of '" << Source
                 << "' did not finish: " << ErrMsg << "\n";
    return 2;
  }
  // A unit that does not compile may compile later without any file it read
  // changing (a header created where none was found): never stored.
  if (Key.empty() || StringRef(R.Err).contains("Found compiler error"))
    return RC;
  if (auto Deps = readDependencyFile(Temp[2], U.directory())) {
    Cache.store(Key, *Deps, R, Hashes);
    Cache.trim();
  }
  return RC;
}

} // namespace torch_tidy
