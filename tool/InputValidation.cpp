//===- InputValidation.cpp ------------------------------------------------===//
#include "InputValidation.h"
#include "clang-tidy/ClangTidy.h"
#include "clang-tidy/ClangTidyOptions.h"
#include "clang-tidy/GlobList.h"
#include "clang/Tooling/JSONCompilationDatabase.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

using llvm::StringRef;

namespace torch_tidy {

// clang-tidy options that take a value, as "-opt value" or "-opt=value".
static const char *const ValueOptions[] = {
    "checks",      "config",        "config-file",   "export-fixes",
    "extra-arg",   "extra-arg-before", "format-style", "header-filter",
    "exclude-header-filter", "line-filter", "p",       "store-check-profile",
    "vfsoverlay",  "warnings-as-errors", "load"};

bool tidyOptionTakesValue(llvm::StringRef Name) {
  return llvm::is_contained(ValueOptions, Name);
}

Invocation parseInvocation(const std::vector<std::string> &Args) {
  Invocation Inv;
  for (size_t I = 1; I < Args.size(); ++I) {
    StringRef A = Args[I];
    if (A == "--") {
      Inv.HasFixedCommand = true;
      for (size_t J = I + 1; J < Args.size(); ++J)
        Inv.HasResourceDir |= StringRef(Args[J]).contains("-resource-dir");
      break;
    }
    if (!A.starts_with("-") || A == "-") {
      Inv.Sources.push_back(A.str());
      continue;
    }
    StringRef Opt = A.ltrim('-');
    auto [Name, Value] = Opt.split('=');
    bool Inline = Opt.contains('=');
    std::string V = Value.str();
    if (!Inline && tidyOptionTakesValue(Name) && I + 1 < Args.size())
      V = Args[++I];
    if (Name == "version")
      Inv.WantsVersion = true;
    else if (Name == "p")
      Inv.BuildPath = V;
    else if (Name == "checks")
      Inv.Checks = Inv.Checks ? *Inv.Checks + "," + V : V;
    else if (Name == "config")
      Inv.Config = V;
    else if (Name == "config-file")
      Inv.ConfigFile = V;
    else if ((Name == "extra-arg" || Name == "extra-arg-before") &&
             StringRef(V).contains("-resource-dir"))
      Inv.HasResourceDir = true;
  }
  return Inv;
}

static std::optional<std::string> checkDatabase(StringRef Path) {
  llvm::SmallString<256> File(Path);
  if (llvm::sys::fs::is_directory(File))
    llvm::sys::path::append(File, "compile_commands.json");
  if (!llvm::sys::fs::exists(File))
    return "no compilation database at '" + File.str().str() + "'";
  std::string Err;
  auto DB = clang::tooling::JSONCompilationDatabase::loadFromFile(
      File, Err, clang::tooling::JSONCommandLineSyntax::AutoDetect);
  if (!DB) {
    StringRef First = StringRef(Err).split('\n').first;
    return "malformed compilation database '" + File.str().str() +
           "': " + First.str();
  }
  return std::nullopt;
}

/// The compile_commands.json clang-tidy would find for \p Source, if any.
static std::optional<std::string> findDatabase(StringRef Source) {
  llvm::SmallString<256> Dir(Source);
  llvm::sys::fs::make_absolute(Dir);
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
    std::string Msg = (Item.Text.contains('*') ? "check glob '" : "unknown check '") +
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

static std::optional<std::string> checkConfigText(StringRef Text, StringRef From) {
  auto Parsed = clang::tidy::parseConfiguration(llvm::MemoryBufferRef(Text, From));
  if (!Parsed)
    return "invalid configuration in " + From.str() + ": " +
           Parsed.getError().message();
  if (Parsed->Checks)
    return checkGlobs(*Parsed->Checks, From);
  return std::nullopt;
}

std::optional<std::string> validateInputs(const Invocation &Inv) {
  for (const std::string &S : Inv.Sources) {
    if (!llvm::sys::fs::exists(S))
      return "no such file: '" + S + "'";
    if (llvm::sys::fs::is_directory(S))
      return "'" + S + "' is a directory, not a source file";
  }
  if (Inv.BuildPath) {
    if (auto Err = checkDatabase(*Inv.BuildPath))
      return Err;
  } else if (!Inv.HasFixedCommand && !Inv.Sources.empty()) {
    if (auto DB = findDatabase(Inv.Sources.front()))
      if (auto Err = checkDatabase(*DB))
        return Err;
  }
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

static bool dirHasChecksConfig(StringRef Dir) {
  llvm::SmallString<256> File(Dir);
  llvm::sys::path::append(File, ".clang-tidy");
  auto Buf = llvm::MemoryBuffer::getFile(File);
  if (!Buf)
    return false;
  auto Parsed = clang::tidy::parseConfiguration((*Buf)->getMemBufferRef());
  return Parsed && Parsed->Checks;
}

bool configFileSetsChecks(const Invocation &Inv) {
  std::vector<std::string> Starts = Inv.Sources;
  if (Starts.empty())
    Starts.push_back(".");
  for (const std::string &S : Starts) {
    llvm::SmallString<256> Path(S);
    llvm::sys::fs::make_absolute(Path);
    for (StringRef D = llvm::sys::path::parent_path(Path); !D.empty();
         D = llvm::sys::path::parent_path(D))
      if (dirHasChecksConfig(D))
        return true;
  }
  return false;
}

} // namespace torch_tidy
