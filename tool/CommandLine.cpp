//===- CommandLine.cpp ----------------------------------------------------===//
#include "tool/CommandLine.h"
#include "tool/cache/ResultCache.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

using llvm::StringRef;

namespace torch_tidy {

// clang-tidy options that take a value, as "-opt value" or "-opt=value".
static const char *const TidyValueOptions[] = {"checks",
                                               "config",
                                               "config-file",
                                               "export-fixes",
                                               "extra-arg",
                                               "extra-arg-before",
                                               "format-style",
                                               "header-filter",
                                               "exclude-header-filter",
                                               "line-filter",
                                               "p",
                                               "store-check-profile",
                                               "vfsoverlay",
                                               "warnings-as-errors",
                                               "load"};
// clang-tidy options that only print information.
static const char *const InfoOptions[] = {
    "help",        "help-hidden",   "help-list",        "help-list-hidden",
    "list-checks", "dump-config",   "explain-config",   "verify-config",
    "version",     "print-options", "print-all-options"};
static const char *const BatchValueOptions[] = {
    "j",        "jobs",           "format",      "output",
    "baseline", "write-baseline", "diff",        "diff-file",
    "shard",    "doc-base-url",   "source-root", "runtime-report"};
static const char *const NotInBatch[] = {"fix", "fix-errors", "fix-notes",
                                         "export-fixes"};

static const char *const OwnValueOptions[] = {
    "cache-dir", "cache-max-size",  "shared-preamble",
    "cuda-path", "export-database", UnitFactsFlag.data()};

unsigned ownFlagArity(StringRef A) {
  if (A == WorkerFlag || A == BuildPreambleFlag || A == "--verbose" ||
      A == "-verbose")
    return 1;
  if (!A.starts_with("-"))
    return 0;
  auto [Name, Value] = A.ltrim('-').split('=');
  if (!llvm::is_contained(OwnValueOptions, Name))
    return 0;
  return A.contains('=') ? 1 : 2;
}

/// Stores torch-tidy's own flag \p Name; false (with C.Error set) for a bad
/// value.
static bool setOwnFlag(CommandLine &C, StringRef Name, const std::string &V) {
  if (Name == "cache-dir") {
    C.CacheDir = V;
  } else if (Name == UnitFactsFlag) {
    C.UnitFacts = V;
  } else if (Name == "cuda-path") {
    C.CudaPath = V;
  } else if (Name == "export-database") {
    C.ExportDatabase = V;
  } else if (Name == "cache-max-size") {
    auto N = parseSize(V);
    if (!N) {
      C.Error = "invalid --cache-max-size '" + V +
                "': expected a size such as 500M, 2G or 65536";
      return false;
    }
    C.CacheMaxBytes = *N;
  } else if (Name == "shared-preamble") {
    if (V != "on" && V != "off") {
      C.Error = "invalid --shared-preamble '" + V + "': expected on or off";
      return false;
    }
    C.SharedPreamble = V == "on";
  }
  return true;
}

bool tidyOptionTakesValue(StringRef Name) {
  return llvm::is_contained(TidyValueOptions, Name);
}

/// Stores batch flag \p Name; false (with C.Error set) for a bad value.
static bool setBatchFlag(CommandLine &C, StringRef Name, const std::string &V) {
  if (Name == "j" || Name == "jobs") {
    unsigned N = 0;
    if (StringRef(V).getAsInteger(10, N) || N == 0) {
      C.Error = "invalid -j value '" + V + "': expected a positive number";
      return false;
    }
    C.Jobs = N;
  } else if (Name == "format") {
    C.Format = V;
  } else if (Name == "output") {
    C.Output = V;
  } else if (Name == "baseline") {
    C.Baseline = V;
  } else if (Name == "write-baseline") {
    C.WriteBaseline = V;
  } else if (Name == "diff") {
    C.DiffRef = V;
  } else if (Name == "diff-file") {
    C.DiffFile = V;
  } else if (Name == "shard") {
    C.Shard = V;
  } else if (Name == "doc-base-url") {
    C.DocBaseUrl = V;
  } else if (Name == "source-root") {
    C.SourceRoot = V;
  } else if (Name == "runtime-report") {
    C.RuntimeReport = V;
  }
  return true;
}

/// Records what torch-tidy needs to know of clang-tidy option \p Name.
static void noteTidyOption(CommandLine &C, StringRef Name,
                           const std::string &V) {
  if (Name == "version")
    C.WantsVersion = true;
  else if (Name == "p")
    C.BuildPath = V;
  else if (Name == "checks")
    C.Checks = C.Checks ? *C.Checks + "," + V : V;
  else if (Name == "config")
    C.Config = V;
  else if (Name == "config-file")
    C.ConfigFile = V;
  else if (Name == "warnings-as-errors")
    C.WarningsAsErrors = C.WarningsAsErrors ? *C.WarningsAsErrors + "," + V : V;
  else if ((Name == "extra-arg" || Name == "extra-arg-before") &&
           StringRef(V).contains("-resource-dir"))
    C.HasResourceDir = true;
  if (llvm::is_contained(InfoOptions, Name))
    C.SawInfoFlag = true;
  if (llvm::is_contained(NotInBatch, Name))
    C.Unsupported = "--" + Name.str();
}

CommandLine parseCommandLine(const std::vector<std::string> &Args) {
  CommandLine C;
  for (size_t I = 1; I < Args.size(); ++I) {
    StringRef A = Args[I];
    if (A == "--") {
      C.HasFixed = true;
      C.Fixed.assign(Args.begin() + I + 1, Args.end());
      for (const std::string &F : C.Fixed)
        C.HasResourceDir |= StringRef(F).contains("-resource-dir");
      break;
    }
    if (unsigned Arity = ownFlagArity(A)) {
      if (A == WorkerFlag)
        C.IsWorker = true;
      else if (A == BuildPreambleFlag)
        C.BuildsPreamble = true;
      else if (A == "--verbose" || A == "-verbose")
        C.Verbose = true; // travels as an environment variable
      else if (Arity == 2 && I + 1 >= Args.size()) {
        C.Error = "missing value for '" + A.str() + "'";
        return C;
      } else if (!setOwnFlag(C, A.ltrim('-').split('=').first,
                             Arity == 2 ? Args[++I]
                                        : A.split('=').second.str()))
        return C;
      continue;
    }
    if (!A.starts_with("-") || A == "-") {
      C.Sources.push_back(A.str());
      continue;
    }
    StringRef Opt = A.ltrim('-');
    auto [Name, Value] = Opt.split('=');
    bool Inline = Opt.contains('=');
    if (!A.starts_with("--") && Name.size() > 1 && Name[0] == 'j' &&
        llvm::isDigit(Name[1])) { // -j4
      Value = Name.drop_front();
      Name = "j";
      Inline = true;
    }
    if (llvm::is_contained(BatchValueOptions, Name)) {
      C.SawBatchFlag = true;
      if (!Inline && I + 1 >= Args.size()) {
        C.Error = "missing value for '" + A.str() + "'";
        return C;
      }
      if (!setBatchFlag(C, Name, Inline ? Value.str() : Args[++I]))
        return C;
      continue;
    }
    if (Name == "merge-sarif") {
      C.MergeSarif = C.SawBatchFlag = true;
      continue;
    }
    if (Name == "quiet") { // workers always get --quiet
      C.Quiet = true;
      continue;
    }
    C.TidyArgs.push_back(A.str());
    std::string V = Value.str();
    if (!Inline && tidyOptionTakesValue(Name) && I + 1 < Args.size()) {
      V = Args[++I];
      C.TidyArgs.push_back(V);
    }
    noteTidyOption(C, Name, V);
  }
  return C;
}

} // namespace torch_tidy
