//===- BatchDriver.cpp ----------------------------------------------------===//
#include "BatchDriver.h"
#include "Baseline.h"
#include "CommandLine.h"
#include "DiffFilter.h"
#include "Findings.h"
#include "InputValidation.h"
#include "Reporters.h"
#include "TempFiles.h"
#include "clang-tidy/GlobList.h"
#include "llvm/ADT/StringMap.h"
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
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <functional>
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
  that failed to compile or crashed. Header findings are reported once.
  Report and baseline files are written whole or not at all.
  Exit status: 0 clean; 1 findings under --warnings-as-errors; 2 analysis
  failure (a file that does not compile, a crashed analysis, a bad
  compilation database or flag).

In every mode:
  --verbose            the checks built on the device analysis (device-mismatch,
                       host-access-device-tensor and the four transfer checks)
                       add a remark for each function the analysis skipped,
                       and why (sets TORCH_TIDY_VERBOSE=1, which a
                       clang-tidy or clangd loading the checks also reads)
)");

namespace torch_tidy {
namespace {

int fail(const llvm::Twine &Msg) {
  llvm::errs() << "torch-tidy: error: " << Msg << "\n";
  return 2;
}

/// Why a report can not be written to \p Path, checked before the analysis
/// so a typo in --output does not cost a whole run.
std::optional<std::string> checkWritable(StringRef Flag, StringRef Path) {
  if (Path == "-")
    return std::nullopt;
  llvm::SmallString<256> Dir(Path);
  (void)llvm::sys::fs::make_absolute(Dir); // on failure: judged as given
  llvm::sys::path::remove_filename(Dir);
  if (!llvm::sys::fs::is_directory(Dir))
    return "cannot write " + Flag.str() + " '" + Path.str() +
           "': no such directory '" + Dir.str().str() + "'";
  if (llvm::sys::fs::is_directory(Path))
    return "cannot write " + Flag.str() + " '" + Path.str() +
           "': it is a directory";
  return std::nullopt;
}

/// Writes a report to --output (atomically: complete or not at all) or to
/// standard output. An error from \p Write leaves no file behind.
llvm::Error
writeReport(const CommandLine &C,
            const std::function<llvm::Error(llvm::raw_ostream &)> &Write) {
  if (!C.Output)
    return Write(llvm::outs());
  return llvm::writeToOutput(*C.Output, Write);
}

struct WorkerResult {
  std::vector<Finding> Findings;
  std::optional<std::string> Failure; ///< why the file could not be analysed
  std::optional<Position> FailurePos; ///< where its first error is
  bool Crashed = false;
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

/// The number of the signal that strsignal() describes as \p Name (LLVM
/// reports a killed child by that text only), or 0.
int signalNumber(StringRef Name) {
  Name.consume_back(" (core dumped)");
  for (int Sig = 1; Sig < 65; ++Sig)
    if (const char *S = strsignal(Sig); S && Name == S)
      return Sig;
  return 0;
}

bool isHeader(StringRef Path) {
  StringRef Ext = llvm::sys::path::extension(Path);
  return llvm::is_contained({".h", ".hh", ".hpp", ".hxx", ".h++", ".cuh",
                             ".inc", ".inl", ".ipp", ".tpp"},
                            Ext.lower());
}

std::string absolute(StringRef P) {
  llvm::SmallString<256> S(P);
  (void)llvm::sys::fs::make_absolute(S); // on failure: left as given
  llvm::sys::path::remove_dots(S, true);
  return S.str().str();
}

/// One batch run: select -> analyse -> collect -> filter -> report.
class Batch {
public:
  Batch(const CommandLine &C, std::string Self) : C(C), Self(std::move(Self)) {
    if (C.WarningsAsErrors)
      WAE.emplace(*C.WarningsAsErrors);
  }
  int run();

private:
  std::optional<std::string> prepare();
  std::optional<std::string> select();
  void analyseAll();
  WorkerResult analyse(const std::string &File);
  void collect();
  void filter();
  std::optional<std::string> report();

  bool isCompileError(const Finding &F) const {
    return StringRef(F.Check).starts_with("clang-diagnostic-") && F.IsError &&
           (F.Check == "clang-diagnostic-error" || !WAE ||
            !WAE->contains(F.Check));
  }
  void progress(size_t Done, size_t Total, StringRef File);

  const CommandLine &C;
  std::string Self, Root;
  std::optional<clang::tidy::GlobList> WAE;
  std::optional<ChangedLines> Diff;
  std::unique_ptr<clang::tooling::CompilationDatabase> DB;
  Baseline Known;
  std::chrono::steady_clock::time_point Start;

  std::vector<std::string> Files;
  std::vector<WorkerResult> Results;
  std::vector<Finding> Findings;
  std::vector<Finding> Remarks; ///< --verbose: on stderr, not in reports
  SourceCache Sources;
  RunSummary S;

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

/// Everything that can be rejected before any file is analysed, once.
std::optional<std::string> Batch::prepare() {
  if (C.Format != "text" && C.Format != "json" && C.Format != "sarif")
    return "unknown --format '" + C.Format + "': expected text, json or sarif";
  if (C.Unsupported)
    return *C.Unsupported +
           " is not supported in batch mode; run torch-tidy on a file";
  if (C.DiffRef && C.DiffFile)
    return std::string("--diff and --diff-file are exclusive");
  if (C.Output)
    if (auto Err = checkWritable("--output", *C.Output))
      return Err;
  if (C.WriteBaseline)
    if (auto Err = checkWritable("--write-baseline", *C.WriteBaseline))
      return Err;
  Root = absolute(C.SourceRoot ? *C.SourceRoot : ".");
  if (auto Err = validateInputs(C, &DB))
    return Err;
  if (C.DiffRef || C.DiffFile) {
    auto D = C.DiffRef ? gitDiff(*C.DiffRef) : diffFile(*C.DiffFile);
    if (!D)
      return llvm::toString(D.takeError());
    Diff = std::move(*D);
  }
  if (C.Baseline) {
    auto B = readBaseline(*C.Baseline);
    if (!B)
      return llvm::toString(B.takeError());
    Known = std::move(*B);
  }
  return std::nullopt;
}

/// The translation units to analyse: the sources given, else every file of
/// the compilation database; then this shard's part; then, under --diff,
/// the changed ones (all of them if a header changed).
std::optional<std::string> Batch::select() {
  if (!C.Sources.empty()) {
    for (const std::string &Src : C.Sources)
      Files.push_back(absolute(Src));
  } else {
    if (!DB)
      return std::string("batch mode needs -p <build dir> or source files");
    for (const std::string &F : DB->getAllFiles())
      Files.push_back(absolute(F));
  }
  llvm::sort(Files);
  Files.erase(std::unique(Files.begin(), Files.end()), Files.end());

  if (C.Shard) {
    auto [K, N] = StringRef(*C.Shard).split('/');
    unsigned Ki = 0, Ni = 0;
    if (K.getAsInteger(10, Ki) || N.getAsInteger(10, Ni) || Ni == 0 ||
        Ki == 0 || Ki > Ni)
      return "invalid --shard '" + *C.Shard +
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
      llvm::erase_if(Files,
                     [&](const std::string &F) { return !Diff->touches(F); });
  }
  return std::nullopt;
}

WorkerResult Batch::analyse(const std::string &File) {
  WorkerResult R;
  if (auto Err = checkSourceFile(File)) { // no worker for a missing file
    R.Failure = *Err;
    return R;
  }
  TempFiles Temp;
  if (std::error_code EC = Temp.create("torch-tidy-worker", {"yaml", "log"})) {
    R.Failure = "cannot create a temporary file: " + EC.message();
    return R;
  }
  StringRef Yaml = Temp[0], Log = Temp[1];
  std::string ExportArg = "--export-fixes=" + Yaml.str();
  std::vector<StringRef> Argv = {Self, WorkerFlag, File, ExportArg, "--quiet"};
  Argv.insert(Argv.end(), C.TidyArgs.begin(), C.TidyArgs.end());
  if (C.HasFixed) {
    Argv.push_back("--");
    Argv.insert(Argv.end(), C.Fixed.begin(), C.Fixed.end());
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
  if (RC == -2) { // killed by a signal: whatever it exported is incomplete
    llvm::consumeError(Diags.takeError());
    R.Crashed = true;
    R.Failure = "analysis crashed on " + displayPath(File, Root) + " (signal " +
                std::to_string(signalNumber(ErrMsg)) + ")";
    return R;
  }
  if (RC < 0) {
    llvm::consumeError(Diags.takeError());
    R.Failure = "could not run the torch-tidy worker: " + ErrMsg;
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
  bool Gated =
      llvm::any_of(R.Findings, [](const Finding &F) { return F.IsError; });
  if (!R.Failure && RC != 0 && !Gated) {
    std::string Why = logReason(LogText);
    R.Failure = Why.empty() ? "exit code " + std::to_string(RC) : Why;
  }
  return R;
}

/// One worker process per file, C.Jobs at a time; results in file order.
void Batch::analyseAll() {
  S.Files = Files;
  if (!C.Checks && !C.Config && !C.ConfigFile) {
    // The answer depends on the directory only: read its configs once.
    llvm::StringMap<bool> DisabledIn;
    for (const std::string &F : Files) {
      auto [It, New] = DisabledIn.try_emplace(llvm::sys::path::parent_path(F));
      if (New)
        It->second = torchChecksInConfig(F) == TorchChecksInConfig::Disabled;
      if (It->second)
        S.TorchChecksDisabled.push_back(F);
    }
  }
  S.Jobs =
      C.Jobs ? *C.Jobs : llvm::hardware_concurrency().compute_thread_count();
  ShowProgress = !C.Quiet && !std::getenv("CI") &&
                 llvm::sys::Process::StandardErrIsDisplayed();
  Results.assign(Files.size(), WorkerResult());
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
}

/// Findings of every worker, located, deduplicated, sorted, fingerprinted.
void Batch::collect() {
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
      S.Failures.push_back({Files[I], Where + *R.Failure, R.Crashed});
    }
    for (Finding &F : R.Findings)
      Findings.push_back(std::move(F));
  }
  S.MeanPeakKiB = Files.empty() ? 0 : SumKiB / Files.size();
  for (Finding &F : Findings)
    Sources.locate(F);
  dedupeAndSort(Findings);
  std::vector<Finding> Kept;
  for (Finding &F : Findings)
    (F.IsRemark ? Remarks : Kept).push_back(std::move(F));
  Findings = std::move(Kept);
  for (Finding &F : Findings)
    Sources.fingerprint(F, Root);
}

/// Baseline and diff: what is hidden, and how much of it.
void Batch::filter() {
  if (C.Baseline)
    S.SuppressedByBaseline = applyBaseline(Findings, std::move(Known));
  if (Diff) {
    size_t Before = Findings.size();
    llvm::erase_if(Findings, [&](const Finding &F) {
      return !Diff->contains(F.Pos.File, F.Pos.Line);
    });
    S.OutsideDiff = Before - Findings.size();
  }
}

std::optional<std::string> Batch::report() {
  ReportOptions R{Root, C.DocBaseUrl};
  llvm::Error E = writeReport(C, [&](llvm::raw_ostream &OS) {
    if (C.Format == "text") {
      writeText(OS, Findings, R);
      writeSummary(OS, Findings, S, R);
    } else if (C.Format == "json") {
      writeJson(OS, Findings, S, R);
    } else {
      writeSarif(OS, Findings, S, R);
    }
    return llvm::Error::success();
  });
  if (E)
    return "cannot write '" + C.Output.value_or("-") +
           "': " + llvm::toString(std::move(E));
  if (C.Format != "text")
    writeSummary(llvm::errs(), Findings, S, R);
  for (const Finding &F : Remarks)
    llvm::errs() << displayPath(F.Pos.File, Root) << ":" << F.Pos.Line << ":"
                 << F.Pos.Column << ": remark: " << F.Message << " [" << F.Check
                 << "]\n";
  // Timing and memory vary from run to run: they stay out of the report.
  writeStats(llvm::errs(), S);
  return std::nullopt;
}

int Batch::run() {
  Start = std::chrono::steady_clock::now();
  if (auto Err = prepare())
    return fail(*Err);
  if (auto Err = select())
    return fail(*Err);
  analyseAll();
  collect();
  // The baseline records what the analysis found, before any filtering.
  if (C.WriteBaseline)
    if (auto Err = writeBaseline(*C.WriteBaseline, Findings, Root))
      return fail(llvm::toString(std::move(Err)));
  filter();
  S.Seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
          .count();
  if (auto Err = report())
    return fail(*Err);
  if (!S.Failures.empty())
    return 2;
  return llvm::any_of(Findings, [](const Finding &F) { return F.IsError; }) ? 1
                                                                            : 0;
}

} // namespace

int runBatch(const CommandLine &C, llvm::StringRef Argv0) {
  if (C.Error)
    return fail(*C.Error);
  if (C.MergeSarif) {
    if (C.Sources.empty())
      return fail("--merge-sarif needs SARIF files to merge");
    if (C.Output)
      if (auto Err = checkWritable("--output", *C.Output))
        return fail(*Err);
    if (llvm::Error E = writeReport(C, [&](llvm::raw_ostream &OS) {
          return mergeSarif(C.Sources, OS);
        }))
      return fail(llvm::toString(std::move(E)));
    return 0;
  }
  std::string Self = llvm::sys::fs::getMainExecutable(
      Argv0.str().c_str(), reinterpret_cast<void *>(&fail));
  return Batch(C, Self).run();
}

} // namespace torch_tidy
