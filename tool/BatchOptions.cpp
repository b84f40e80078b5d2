//===- BatchOptions.cpp ---------------------------------------------------===//
#include "BatchOptions.h"
#include "InputValidation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"

using llvm::StringRef;

namespace torch_tidy {

// clang-tidy options that only print information.
static const char *const InfoOptions[] = {
    "help", "help-hidden", "help-list", "help-list-hidden", "list-checks",
    "dump-config", "explain-config", "verify-config", "version",
    "print-options", "print-all-options"};
static const char *const BatchValueOptions[] = {
    "j", "jobs", "format", "output", "baseline", "write-baseline", "diff",
    "diff-file", "shard", "doc-base-url", "source-root"};
static const char *const NotInBatch[] = {"fix", "fix-errors", "fix-notes",
                                         "export-fixes"};

BatchOptions parseBatchOptions(const std::vector<std::string> &Args) {
  BatchOptions O;
  for (size_t I = 1; I < Args.size(); ++I) {
    StringRef A = Args[I];
    if (A == "--") {
      O.HasFixed = true;
      O.Fixed.assign(Args.begin() + I + 1, Args.end());
      break;
    }
    if (!A.starts_with("-") || A == "-") {
      O.Sources.push_back(A.str());
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
      O.SawBatchFlag = true;
      std::string V = Value.str();
      if (!Inline) {
        if (I + 1 >= Args.size()) {
          O.Error = "missing value for '" + A.str() + "'";
          return O;
        }
        V = Args[++I];
      }
      if (Name == "j" || Name == "jobs") {
        unsigned N = 0;
        if (StringRef(V).getAsInteger(10, N) || N == 0) {
          O.Error = "invalid -j value '" + V + "': expected a positive number";
          return O;
        }
        O.Jobs = N;
      } else if (Name == "format") {
        O.Format = V;
      } else if (Name == "output") {
        O.Output = V;
      } else if (Name == "baseline") {
        O.Baseline = V;
      } else if (Name == "write-baseline") {
        O.WriteBaseline = V;
      } else if (Name == "diff") {
        O.DiffRef = V;
      } else if (Name == "diff-file") {
        O.DiffFile = V;
      } else if (Name == "shard") {
        O.Shard = V;
      } else if (Name == "doc-base-url") {
        O.DocBaseUrl = V;
      } else if (Name == "source-root") {
        O.SourceRoot = V;
      }
      continue;
    }
    if (Name == "merge-sarif") {
      O.MergeSarif = O.SawBatchFlag = true;
      continue;
    }
    if (Name == "quiet") {
      O.Quiet = true;
      continue;
    }
    if (llvm::is_contained(InfoOptions, Name))
      O.SawInfoFlag = true;
    if (llvm::is_contained(NotInBatch, Name))
      O.Unsupported = "--" + Name.str();
    O.TidyArgs.push_back(A.str());
    std::string V = Value.str();
    if (!Inline && tidyOptionTakesValue(Name) &&
        I + 1 < Args.size()) {
      V = Args[++I];
      O.TidyArgs.push_back(V);
    }
    if (Name == "p")
      O.BuildPath = V;
    else if (Name == "warnings-as-errors")
      O.WarningsAsErrors =
          O.WarningsAsErrors ? *O.WarningsAsErrors + "," + V : V;
  }
  return O;
}

} // namespace torch_tidy
