//===- BatchDriver.cpp ----------------------------------------------------===//
#include "BatchDriver.h"
#include "BatchOptions.h"
#include "Baseline.h"
#include "DiffFilter.h"
#include "Findings.h"
#include "InputValidation.h"
#include "Reporters.h"
#include "clang-tidy/GlobList.h"
#include "clang/Tooling/JSONCompilationDatabase.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Threading.h"
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <mutex>
#include <thread>

using llvm::StringRef;

static llvm::cl::extrahelp BatchHelp(R"(
Whole-codebase runs (batch mode; see docs/ci.md):
  torch-tidy -p <build-dir> [flags]   analyses every entry of
      compile_commands.json. Batch mode is also entered by any of these flags:
  -j N                 parallel workers (default: the number of cores)
  --format=text|json|sarif   report format (default text)
  --output FILE        write the report to FILE (default standard output)
  --write-baseline FILE      record the current findings
  --baseline FILE      hide the findings recorded in FILE; only new ones count
  --diff REF           report only findings on lines changed since git REF
  --diff-file PATCH    same, from a unified diff (- reads standard input)
  --shard K/N          analyse the K-th of N deterministic parts of the
                       database (1 <= K <= N), for a CI matrix
  --doc-base-url URL   SARIF helpUri base of torch-* checks (default
                       https://github.com/torch-tidy/torch-tidy/blob/main/docs/checks/)
  --source-root DIR    paths are reported relative to DIR (default: the
                       working directory; SARIF's %SRCROOT%)
  --merge-sarif A B... merge SARIF files (e.g. one per shard) into one
  A progress line is shown on a terminal, unless CI is set or --quiet.
  The run ends with a summary: findings per check, files analysed, files
  that failed to compile. Header findings are reported once.
  Exit status: 0 clean; 1 findings under --warnings-as-errors; 2 analysis
  failure (a file that does not compile, a bad compilation database or flag).
)");

namespace torch_tidy {
namespace {

int fail(const llvm::Twine &Msg) {
  llvm::errs() << "torch-tidy: error: " << Msg << "\n";
  return 2;
}

/// Opens --output into \p File when given; the error says which file.
std::optional<std::string> openOutput(const BatchOptions &O,
                                      std::optional<llvm::raw_fd_ostream> &File) {
  if (!O.Output)
    return std::nullopt;
  std::error_code EC;
  File.emplace(*O.Output, EC);
  if (EC)
    return "cannot write '" + *O.Output + "': " + EC.message();
  return std::nullopt;
}

struct WorkerResult {
  std::vector<Finding> Findings;
  std::optional<std::string> Failure; ///< why the file could not be analysed
  std::optional<Position> FailurePos; ///< where its first error is
  uint64_t PeakKiB = 0;
};

/// First line of \p Log that mentions an error, else its last line.
std::string logReason(StringRef Log) {
  llvm::SmallVector<StringRef, 0> Lines;
  Log.split(Lines, '\n', -1, false);
  for (StringRef L : Lines)
    if (L.contains("error"))
      return L.trim().str();
  return Lines.empty() ? "" : Lines.back().trim().str();
}

class Batch {
public:
  Batch(const BatchOptions &O, std::string Self) : O(O), Self(std::move(Self)) {
    if (O.WarningsAsErrors)
      WAE.emplace(*O.WarningsAsErrors);
  }
  int run();

private:
  std::optional<std::string> selectFiles(std::vector<std::string> &Files);
  WorkerResult analyse(const std::string &File);
  bool isCompileError(const Finding &F) const {
    return StringRef(F.Check).starts_with("clang-diagnostic-") && F.IsError &&
           (F.Check == "clang-diagnostic-error" || !WAE || !WAE->contains(F.Check));
  }
  void progress(size_t Done, size_t Total, StringRef File);

  const BatchOptions &O;
  std::string Self, Root;
  std::optional<clang::tidy::GlobList> WAE;
  std::optional<ChangedLines> Diff;
  std::mutex ProgressLock;
  bool ShowProgress = false;
};

void Batch::progress(size_t Done, size_t Total, StringRef File) {
  if (!ShowProgress)
    return;
  std::lock_guard<std::mutex> L(ProgressLock);
  llvm::errs() << "\r\x1b[K[" << Done << "/" << Total << "] "
               << displayPath(File, Root);
  if (Done == Total)
    llvm::errs() << "\r\x1b[K";
  llvm::errs().flush();
}

WorkerResult Batch::analyse(const std::string &File) {
  WorkerResult R;
  llvm::SmallString<128> Yaml, Log;
  llvm::sys::fs::createTemporaryFile("torch-tidy-worker", "yaml", Yaml);
  llvm::sys::fs::createTemporaryFile("torch-tidy-worker", "log", Log);
  std::string ExportArg = "--export-fixes=" + Yaml.str().str();
  std::vector<StringRef> Argv = {Self, File, ExportArg, "--quiet"};
  Argv.insert(Argv.end(), O.TidyArgs.begin(), O.TidyArgs.end());
  if (O.HasFixed) {
    Argv.push_back("--");
    Argv.insert(Argv.end(), O.Fixed.begin(), O.Fixed.end());
  }
  std::optional<StringRef> Redirects[] = {StringRef(""), StringRef(Log),
                                          StringRef(Log)};
  std::string ErrMsg;
  std::optional<llvm::sys::ProcessStatistics> Stats;
  int RC = llvm::sys::ExecuteAndWait(Self, Argv, std::nullopt, Redirects, 0, 0,
                                     &ErrMsg, nullptr, &Stats);
  if (Stats)
    R.PeakKiB = Stats->PeakMemory;
  auto LogBuf = llvm::MemoryBuffer::getFile(Log);
  std::string LogText = LogBuf ? (*LogBuf)->getBuffer().str() : "";
  auto Diags = readExportedFixes(Yaml);
  llvm::sys::fs::remove(Yaml);
  llvm::sys::fs::remove(Log);
  if (RC < 0) {
    R.Failure = "torch-tidy worker failed: " + (ErrMsg.empty() ? "crashed" : ErrMsg);
    return R;
  }
  if (!Diags) {
    R.Failure = llvm::toString(Diags.takeError());
    return R;
  }
  for (Finding &F : *Diags) {
    if (isCompileError(F)) {
      if (!R.Failure) {
        R.Failure = F.Message;
        R.FailurePos = F.Pos;
      }
      continue;
    }
    R.Findings.push_back(std::move(F));
  }
  bool Gated = llvm::any_of(R.Findings, [](const Finding &F) { return F.IsError; });
  if (!R.Failure && RC != 0 && !Gated) {
    std::string Why = logReason(LogText);
    R.Failure = Why.empty() ? "exit code " + std::to_string(RC) : Why;
  }
  return R;
}

bool isHeader(StringRef Path) {
  StringRef Ext = llvm::sys::path::extension(Path);
  return llvm::is_contained({".h", ".hh", ".hpp", ".hxx", ".h++", ".cuh",
                             ".inc", ".inl", ".ipp", ".tpp"},
                            Ext.lower());
}

std::string absolute(StringRef P) {
  llvm::SmallString<256> S(P);
  llvm::sys::fs::make_absolute(S);
  llvm::sys::path::remove_dots(S, true);
  return S.str().str();
}

/// The translation units to analyse: the sources given, else every file of
/// the compilation database; then this shard's part; then, under --diff,
/// the changed ones (all of them if a header changed).
std::optional<std::string> Batch::selectFiles(std::vector<std::string> &Files) {
  if (!O.Sources.empty()) {
    for (const std::string &S : O.Sources)
      Files.push_back(absolute(S));
  } else {
    if (!O.BuildPath)
      return std::string("batch mode needs -p <build dir> or source files");
    llvm::SmallString<256> DB(*O.BuildPath);
    if (llvm::sys::fs::is_directory(DB))
      llvm::sys::path::append(DB, "compile_commands.json");
    std::string Err;
    auto Cmds = clang::tooling::JSONCompilationDatabase::loadFromFile(
        DB, Err, clang::tooling::JSONCommandLineSyntax::AutoDetect);
    if (!Cmds)
      return "malformed compilation database '" + DB.str().str() + "': " +
             StringRef(Err).split('\n').first.str();
    for (const std::string &F : Cmds->getAllFiles())
      Files.push_back(absolute(F));
  }
  llvm::sort(Files);
  Files.erase(std::unique(Files.begin(), Files.end()), Files.end());

  if (O.Shard) {
    StringRef K, N;
    std::tie(K, N) = StringRef(*O.Shard).split('/');
    unsigned Ki = 0, Ni = 0;
    if (K.getAsInteger(10, Ki) || N.getAsInteger(10, Ni) || Ni == 0 ||
        Ki == 0 || Ki > Ni)
      return "invalid --shard '" + *O.Shard +
             "': expected K/N with 1 <= K <= N, e.g. --shard 1/4";
    std::vector<std::string> Mine;
    for (size_t I = 0; I < Files.size(); ++I)
      if (I % Ni == Ki - 1)
        Mine.push_back(Files[I]);
    Files = std::move(Mine);
  }

  if (Diff) {
    llvm::StringSet<> Set;
    for (const std::string &F : Files)
      Set.insert(F);
    bool HeaderChanged = llvm::any_of(Diff->files(), [&](const std::string &F) {
      return isHeader(F) && !Set.count(F);
    });
    if (!HeaderChanged)
      llvm::erase_if(Files, [&](const std::string &F) { return !Diff->touches(F); });
  }
  return std::nullopt;
}

int Batch::run() {
  auto Start = std::chrono::steady_clock::now();
  if (O.Format != "text" && O.Format != "json" && O.Format != "sarif")
    return fail("unknown --format '" + O.Format + "': expected text, json or sarif");
  if (O.Unsupported)
    return fail(*O.Unsupported +
                " is not supported in batch mode; run torch-tidy on a file");
  if (O.DiffRef && O.DiffFile)
    return fail("--diff and --diff-file are exclusive");
  Root = absolute(O.SourceRoot ? *O.SourceRoot : ".");

  // Reject what every worker would reject, once.
  std::vector<std::string> Check{"torch-tidy"};
  Check.insert(Check.end(), O.TidyArgs.begin(), O.TidyArgs.end());
  Check.insert(Check.end(), O.Sources.begin(), O.Sources.end());
  if (O.HasFixed)
    Check.push_back("--");
  if (auto Err = validateInputs(parseInvocation(Check)))
    return fail(*Err);

  if (O.DiffRef || O.DiffFile) {
    auto D = O.DiffRef ? gitDiff(*O.DiffRef) : diffFile(*O.DiffFile);
    if (!D)
      return fail(llvm::toString(D.takeError()));
    Diff = std::move(*D);
  }
  Baseline Known;
  if (O.Baseline) {
    auto B = readBaseline(*O.Baseline);
    if (!B)
      return fail(llvm::toString(B.takeError()));
    Known = std::move(*B);
  }

  std::vector<std::string> Files;
  if (auto Err = selectFiles(Files))
    return fail(*Err);

  RunSummary S;
  S.Files = Files;
  S.Jobs = O.Jobs ? *O.Jobs : llvm::hardware_concurrency().compute_thread_count();
  ShowProgress = !O.Quiet && !std::getenv("CI") &&
                 llvm::sys::Process::StandardErrIsDisplayed();

  std::vector<WorkerResult> Results(Files.size());
  std::atomic<size_t> Next{0}, Done{0};
  auto Work = [&] {
    for (size_t I; (I = Next++) < Files.size();) {
      progress(Done, Files.size(), Files[I]);
      Results[I] = analyse(Files[I]);
      progress(++Done, Files.size(), Files[I]);
    }
  };
  std::vector<std::thread> Threads;
  for (unsigned J = 0; J < std::min<size_t>(S.Jobs, Files.size()); ++J)
    Threads.emplace_back(Work);
  for (std::thread &T : Threads)
    T.join();

  SourceCache Sources;
  std::vector<Finding> Findings;
  uint64_t SumKiB = 0;
  for (size_t I = 0; I < Files.size(); ++I) {
    WorkerResult &R = Results[I];
    S.PeakKiB = std::max(S.PeakKiB, R.PeakKiB);
    SumKiB += R.PeakKiB;
    if (R.Failure) {
      std::string Where;
      if (R.FailurePos && !R.FailurePos->File.empty()) {
        Finding Tmp;
        Tmp.Pos = *R.FailurePos;
        Sources.locate(Tmp);
        Where = displayPath(Tmp.Pos.File, Root) + ":" +
                std::to_string(Tmp.Pos.Line) + ":" +
                std::to_string(Tmp.Pos.Column) + ": error: ";
      }
      S.Failures.push_back({Files[I], Where + *R.Failure});
    }
    for (Finding &F : R.Findings)
      Findings.push_back(std::move(F));
  }
  S.MeanPeakKiB = Files.empty() ? 0 : SumKiB / Files.size();
  for (Finding &F : Findings)
    Sources.locate(F);
  dedupeAndSort(Findings);
  for (Finding &F : Findings)
    Sources.fingerprint(F, Root);

  if (O.WriteBaseline)
    if (auto Err = writeBaseline(*O.WriteBaseline, Findings, Root))
      return fail(llvm::toString(std::move(Err)));
  if (O.Baseline)
    S.SuppressedByBaseline = applyBaseline(Findings, std::move(Known));
  if (Diff) {
    size_t Before = Findings.size();
    llvm::erase_if(Findings, [&](const Finding &F) {
      return !Diff->contains(F.Pos.File, F.Pos.Line);
    });
    S.OutsideDiff = Before - Findings.size();
  }
  S.Seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                            Start).count();

  ReportOptions R{Root, O.DocBaseUrl};
  std::optional<llvm::raw_fd_ostream> File;
  if (auto Err = openOutput(O, File))
    return fail(*Err);
  llvm::raw_ostream &OS = File ? *File : llvm::outs();
  if (O.Format == "text") {
    writeText(OS, Findings, R);
    writeSummary(OS, Findings, S, R);
  } else {
    if (O.Format == "json")
      writeJson(OS, Findings, S, R);
    else
      writeSarif(OS, Findings, S, R);
    writeSummary(llvm::errs(), Findings, S, R);
  }
  if (!S.Failures.empty())
    return 2;
  return llvm::any_of(Findings, [](const Finding &F) { return F.IsError; }) ? 1 : 0;
}

} // namespace

bool isBatchInvocation(const std::vector<std::string> &Args) {
  BatchOptions O = parseBatchOptions(Args);
  if (O.SawInfoFlag)
    return false;
  return O.SawBatchFlag || O.Error ||
         (O.Sources.empty() && O.BuildPath && !O.HasFixed);
}

int runBatch(const std::vector<std::string> &Args) {
  BatchOptions O = parseBatchOptions(Args);
  if (O.Error)
    return fail(*O.Error);
  if (O.MergeSarif) {
    if (O.Sources.empty())
      return fail("--merge-sarif needs SARIF files to merge");
    std::optional<llvm::raw_fd_ostream> File;
    if (auto Err = openOutput(O, File))
      return fail(*Err);
    if (auto Err = mergeSarif(O.Sources, File ? *File : llvm::outs()))
      return fail(llvm::toString(std::move(Err)));
    return 0;
  }
  std::string Self = llvm::sys::fs::getMainExecutable(
      Args.empty() ? "torch-tidy" : Args[0].c_str(),
      reinterpret_cast<void *>(&runBatch));
  return Batch(O, Self).run();
}

} // namespace torch_tidy
