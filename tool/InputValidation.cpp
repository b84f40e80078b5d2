//===- InputValidation.cpp ------------------------------------------------===//
#include "tool/InputValidation.h"
#include "clang-tidy/ClangTidy.h"
#include "clang-tidy/ClangTidyOptions.h"
#include "clang-tidy/GlobList.h"
#include "tool/batch/CudaCommand.h"
#include "clang/Tooling/JSONCompilationDatabase.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

using llvm::StringRef;

namespace torch_tidy {

std::optional<std::string> checkSourceFile(StringRef Path) {
  llvm::sys::fs::file_status St;
  if (std::error_code EC = llvm::sys::fs::status(Path, St)) {
    if (EC == std::errc::no_such_file_or_directory)
      return "no such file: '" + Path.str() + "'";
    return "cannot read '" + Path.str() + "': " + EC.message();
  }
  if (St.type() == llvm::sys::fs::file_type::directory_file)
    return "'" + Path.str() + "' is a directory, not a source file";
  return std::nullopt;
}

std::string databaseFile(StringRef Path) {
  llvm::SmallString<256> File(Path);
  if (llvm::sys::fs::is_directory(File))
    llvm::sys::path::append(File, "compile_commands.json");
  return File.str().str();
}

static std::optional<std::string>
checkDatabase(StringRef Path,
              std::unique_ptr<clang::tooling::CompilationDatabase> *Out) {
  std::string File = databaseFile(Path);
  if (!llvm::sys::fs::exists(File))
    return "no compilation database at '" + File + "'";
  std::string Err;
  auto DB = clang::tooling::JSONCompilationDatabase::loadFromFile(
      File, Err, clang::tooling::JSONCommandLineSyntax::AutoDetect);
  if (!DB) {
    StringRef First = StringRef(Err).split('\n').first;
    return "malformed compilation database '" + File + "': " + First.str();
  }
  if (Out)
    *Out = std::move(DB);
  return std::nullopt;
}

std::optional<std::string> findDatabase(StringRef Source) {
  llvm::SmallString<256> Dir(Source);
  (void)llvm::sys::fs::make_absolute(Dir); // on failure: searched as given
  for (StringRef D = llvm::sys::path::parent_path(Dir); !D.empty();
       D = llvm::sys::path::parent_path(D)) {
    llvm::SmallString<256> Candidate(D);
    llvm::sys::path::append(Candidate, "compile_commands.json");
    if (llvm::sys::fs::exists(Candidate))
      return Candidate.str().str();
  }
  return std::nullopt;
}

static std::optional<std::string> checkGlobs(StringRef Globs, StringRef From) {
  clang::tidy::ChecksAndOptions Known = clang::tidy::getAllChecksAndOptions(
      /*AllowEnablingAnalyzerAlphaCheckers=*/false,
      /*ExperimentalCustomChecks=*/false);
  clang::tidy::GlobList List(Globs);
  for (const auto &Item : List.getItems()) {
    if (!Item.IsPositive || Item.Text.starts_with("clang-diagnostic"))
      continue;
    bool Matches = llvm::any_of(Known.Checks.keys(), [&](StringRef Name) {
      return Item.Regex.match(Name);
    });
    if (Matches)
      continue;
    std::string Msg =
        (Item.Text.contains('*') ? "check glob '" : "unknown check '") +
        Item.Text.str() + "'" +
        (Item.Text.contains('*') ? " matches no check" : "");
    unsigned Best = 4;
    StringRef Closest;
    for (StringRef Name : Known.Checks.keys()) {
      unsigned D = Name.edit_distance(Item.Text, true, Best);
      if (D < Best) {
        Best = D;
        Closest = Name;
      }
    }
    if (!Closest.empty())
      Msg += "; did you mean '" + Closest.str() + "'?";
    return Msg + " (in " + From.str() + ")";
  }
  return std::nullopt;
}

static std::optional<std::string> checkConfigText(StringRef Text,
                                                  StringRef From) {
  auto Parsed =
      clang::tidy::parseConfiguration(llvm::MemoryBufferRef(Text, From));
  if (!Parsed)
    return "invalid configuration in " + From.str() + ": " +
           Parsed.getError().message();
  if (const std::optional<std::string> &Checks = Parsed->Checks)
    return checkGlobs(*Checks, From);
  return std::nullopt;
}

std::optional<std::string>
validateInputs(const CommandLine &Inv,
               std::unique_ptr<clang::tooling::CompilationDatabase> *DB) {
  for (const std::string &S : Inv.Sources)
    if (auto Err = checkSourceFile(S))
      return Err;
  if (Inv.BuildPath) {
    if (auto Err = checkDatabase(*Inv.BuildPath, DB))
      return Err;
  } else if (!Inv.HasFixed && !Inv.Sources.empty()) {
    if (auto Found = findDatabase(Inv.Sources.front()))
      if (auto Err = checkDatabase(*Found, DB))
        return Err;
  }
  if (Inv.CudaPath)
    if (auto Problem = cudaToolkitProblem(*Inv.CudaPath))
      return "--cuda-path: " + *Problem;
  if (Inv.Checks)
    if (auto Err = checkGlobs(*Inv.Checks, "--checks"))
      return Err;
  if (Inv.Config)
    if (auto Err = checkConfigText(*Inv.Config, "--config"))
      return Err;
  if (Inv.ConfigFile) {
    auto Buf = llvm::MemoryBuffer::getFile(*Inv.ConfigFile);
    if (!Buf)
      return "cannot read config file '" + *Inv.ConfigFile +
             "': " + Buf.getError().message();
    if (auto Err = checkConfigText((*Buf)->getBuffer(), *Inv.ConfigFile))
      return Err;
  }
  return std::nullopt;
}

/// The Checks of the .clang-tidy in \p Dir, if it has one that sets them.
static std::optional<std::string> checksConfigIn(StringRef Dir) {
  llvm::SmallString<256> File(Dir);
  llvm::sys::path::append(File, ".clang-tidy");
  auto Buf = llvm::MemoryBuffer::getFile(File);
  if (!Buf)
    return std::nullopt;
  auto Parsed = clang::tidy::parseConfiguration((*Buf)->getMemBufferRef());
  if (!Parsed)
    return std::nullopt;
  return Parsed->Checks;
}

/// The registered torch-* checks' names, listed once per process.
static const std::vector<std::string> &torchCheckNames() {
  static const std::vector<std::string> Names = [] {
    std::vector<std::string> N;
    clang::tidy::ChecksAndOptions Known = clang::tidy::getAllChecksAndOptions(
        /*AllowEnablingAnalyzerAlphaCheckers=*/false,
        /*ExperimentalCustomChecks=*/false);
    for (StringRef Name : Known.Checks.keys())
      if (Name.starts_with("torch-"))
        N.push_back(Name.str());
    return N;
  }();
  return Names;
}

TorchChecksInConfig torchChecksInConfig(StringRef Source) {
  llvm::SmallString<256> Path(Source.empty() ? StringRef(".") : Source);
  (void)llvm::sys::fs::make_absolute(Path); // on failure: searched as given
  for (StringRef D = llvm::sys::path::parent_path(Path); !D.empty();
       D = llvm::sys::path::parent_path(D)) {
    std::optional<std::string> Checks = checksConfigIn(D);
    if (!Checks)
      continue;
    clang::tidy::GlobList List(*Checks);
    for (const auto &Item : List.getItems())
      if (!Item.IsPositive && Item.Text.starts_with("torch"))
        return TorchChecksInConfig::Disabled;
    for (const std::string &Name : torchCheckNames())
      if (List.contains(Name))
        return TorchChecksInConfig::Enabled;
    return TorchChecksInConfig::NotMentioned;
  }
  return TorchChecksInConfig::NoConfig;
}

} // namespace torch_tidy
