//===- BatchDriver.cpp ----------------------------------------------------===//
#include "tool/batch/BatchDriver.h"
#include "checks/device/ProgramFacts.h"
#include "clang-tidy/GlobList.h"
#include "tool/CommandLine.h"
#include "tool/InputValidation.h"
#include "tool/SingleFileCuda.h"
#include "tool/TempFiles.h"
#include "tool/batch/RealDatabase.h"
#include "tool/batch/SharedPreamble.h"
#include "tool/cache/ResultCache.h"
#include "tool/cache/UnitKey.h"
#include "tool/report/Baseline.h"
#include "tool/report/DiffFilter.h"
#include "tool/report/Findings.h"
#include "tool/report/Reporters.h"
#include "tool/report/RuntimeReport.h"
#include "clang/Tooling/JSONCompilationDatabase.h"
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
#include <condition_variable>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iterator>
#include <mutex>
#include <set>
#include <thread>
#include <tuple>

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
  --runtime-report RUN.json  join what libtorch-tidy-probe.so counted in a
                       run of the program (syncs, transfers) with the
                       findings: counts per finding, run-time sites with no
                       finding, findings never seen (docs/runtime-report.md)
  A progress line is shown on a terminal, unless CI is set or --quiet.
  The run ends with a summary: findings per check, files analysed, files
  that failed to compile or crashed. Header findings are reported once.
  Report and baseline files are written whole or not at all.
  Exit status: 0 clean; 1 findings under --warnings-as-errors; 2 analysis
  failure (a file that does not compile, a crashed analysis, a bad
  compilation database or flag).

In every mode:
  --cache-dir DIR      keep each unit's result in DIR (also
                       TORCH_TIDY_CACHE_DIR) and replay it while the unit, the
                       files it includes, its arguments, the configuration and
                       torch-tidy are unchanged; --fix runs are not cached
  --cache-max-size SIZE  bound of the cache (default 1G; e.g. 500M, 2G); the
                       least recently used entries are evicted first
  --shared-preamble=on|off   batch mode: units that start with the same
                       LibTorch includes, read from the same files, share one
                       precompiled header (default on; same results); with
                       --cache-dir it is kept there for the next run
  --cuda-path DIR      the CUDA toolkit for CUDA sources (.cu, nvcc entries),
                       whose host side is analysed (clang --cuda-host-only);
                       default: $CUDA_HOME, $CUDA_PATH, the folder of the
                       entry's nvcc, /usr/local/cuda, /usr/lib/cuda
  --export-database DIR   with -p: write the database torch-tidy analyses
                       (nvcc entries as clang's host-side commands, launchers
                       stripped, ...) to DIR/compile_commands.json, for
                       torch-clangd --compile-commands-dir=DIR, and stop
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

/// What one worker printed and exported, or a cache entry replays.
struct RawResult {
  int RC = 0;
  std::string ErrMsg, Log, Yaml;
  std::string Facts; ///< the unit's device facts (device::ProgramFacts)
  std::optional<std::string> SetupError; ///< no worker could be started
  std::optional<std::string> YamlError;  ///< the export could not be read
  std::optional<std::vector<std::string>> Deps; ///< with a cache
  uint64_t PeakKiB = 0;
};

struct WorkerResult {
  std::vector<Finding> Findings;
  std::string Facts;
  std::optional<std::string> Failure; ///< why the file could not be analysed
  std::optional<Position> FailurePos; ///< where its first error is
  /// Its compile errors are all in device code: its host side is analysed.
  bool DeviceCodeErrors = false;
  bool Crashed = false;
  uint64_t PeakKiB = 0;
};

/// The device code of a unit, from its V lines (device/ProgramFacts.h).
struct DeviceCode {
  std::map<std::string, std::vector<std::pair<unsigned, unsigned>>> Ranges;
  explicit DeviceCode(StringRef Facts) {
    llvm::SmallVector<StringRef, 0> Lines;
    Facts.split(Lines, '\n', -1, false);
    for (StringRef Line : Lines) {
      llvm::SmallVector<StringRef, 4> F;
      Line.split(F, '\t');
      unsigned B = 0, E = 0;
      if (F.size() == 4 && F[0] == "V" && !F[2].getAsInteger(10, B) &&
          !F[3].getAsInteger(10, E))
        Ranges[F[1].str()].push_back({B, E});
    }
  }
  bool contains(const Position &P) const {
    auto It = Ranges.find(P.File);
    return It != Ranges.end() &&
           llvm::any_of(It->second,
                        [&](const std::pair<unsigned, unsigned> &R) {
                          return R.first <= P.Offset && P.Offset < R.second;
                        });
  }
  /// An error in device code: at it, or in a template instantiated from it
  /// (an "in instantiation of" note there; not a candidate's note).
  bool holds(const Finding &Error) const {
    return contains(Error.Pos) || llvm::any_of(Error.Notes, [&](const Note &N) {
             return StringRef(N.Message).starts_with("in instantiation of") &&
                    contains(N.Pos);
           });
  }
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

/// The name in a function key of the facts: `ns::launch(float *,int)`
/// gives `launch`.
std::string launcherName(StringRef Key) {
  StringRef Name = Key.take_until([](char C) { return C == '('; });
  Name = Name.rsplit("::").second.empty() ? Name : Name.rsplit("::").second;
  return Name.rsplit('#').second.empty() ? Name.str()
                                         : Name.rsplit('#').second.str();
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
    if (C.CacheDir)
      Cache.emplace(absolute(*C.CacheDir), C.CacheMaxBytes);
  }
  ~Batch() {
    if (!DatabaseDir.empty())
      (void)llvm::sys::fs::remove_directories(DatabaseDir);
  }
  int run();

private:
  std::optional<std::string> prepare();
  std::optional<std::string> useRealDatabase(StringRef BuildPath);
  std::optional<std::string> select();
  /// A precompiled preamble shared by a group of units, built once.
  struct SharedPreamble {
    PreambleGroup Group;
    std::string Header, Pch, Log;
    bool Kept = false; ///< found in the cache: nothing to build
    enum : unsigned char { Pending, Ready, Failed } State = Pending;
    std::mutex M;
    std::condition_variable CV;
    bool await(); ///< waits for the build; true when it succeeded
  };

  void analyseAll();
  std::vector<size_t> lookUpCache();
  void planPreambles(llvm::ArrayRef<size_t> Units);
  void build(SharedPreamble &P);
  SharedPreamble *preambleOf(size_t I);
  WorkerResult analyse(size_t I, bool Unshared);
  RawResult runWorker(size_t I, llvm::ArrayRef<std::string> Extra);
  WorkerResult interpret(const std::string &File, const RawResult &Raw);
  void collect();
  void dropCPUReads(const clang::tidy::torch::device::ProgramFacts &Program,
                    unsigned Unit, std::vector<Finding> &Found);
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
  /// The clang-tidy arguments of the workers: C.TidyArgs, with -p naming
  /// the rewritten database in DatabaseDir when there is one.
  std::vector<std::string> WorkerTidyArgs;
  std::string DatabaseDir;
  /// Units that cannot be analysed, and why (RealDatabase.h).
  std::map<std::string, std::string> UnitErrors;
  std::set<std::string> CudaFiles; ///< the database's CUDA units
  Baseline Known;
  std::chrono::steady_clock::time_point Start;

  std::vector<std::string> Files;
  std::vector<WorkerResult> Results;
  std::optional<ResultCache> Cache;
  FileHashes Hashes;
  std::vector<UnitInputs> Inputs; ///< per file, with a cache or preamble
  std::vector<std::string> Keys;  ///< per file; "" when not cached
  std::vector<std::unique_ptr<SharedPreamble>> Preambles;
  std::vector<int> GroupOf; ///< per file: its preamble or -1
  /// Where this run's preambles go: a temporary folder, or the cache's.
  std::string PreambleDir;
  bool PreambleDirIsTemporary = false;
  std::vector<Finding> Findings;
  std::vector<RuntimeSite> RuntimeSites; ///< --runtime-report
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
  WorkerTidyArgs = C.TidyArgs;
  if (C.BuildPath && DB)
    if (auto Err = useRealDatabase(*C.BuildPath))
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

/// Rewrites the compilation database where clang cannot use it as it is
/// (RealDatabase.h): the workers and the parent then read the rewrite.
std::optional<std::string> Batch::useRealDatabase(StringRef BuildPath) {
  auto Rewrite =
      rewriteDatabase(databaseFile(BuildPath), C.CudaPath.value_or(""));
  if (!Rewrite)
    return "compilation database " + llvm::toString(Rewrite.takeError());
  CudaFiles = std::move(Rewrite->CudaFiles);
  S.DroppedFlags = Rewrite->DroppedFlags;
  UnitErrors = std::move(Rewrite->UnitErrors);
  if (Rewrite->Json.empty())
    return std::nullopt;
  llvm::SmallString<128> Dir;
  if (std::error_code EC =
          llvm::sys::fs::createUniqueDirectory("torch-tidy-db", Dir))
    return "cannot create a temporary folder: " + EC.message();
  DatabaseDir = Dir.str().str();
  llvm::SmallString<256> Out(Dir);
  llvm::sys::path::append(Out, "compile_commands.json");
  {
    std::error_code EC;
    llvm::raw_fd_ostream OS(Out, EC);
    if (EC)
      return "cannot write '" + Out.str().str() + "': " + EC.message();
    OS << Rewrite->Json;
  }
  std::string Err;
  DB = clang::tooling::JSONCompilationDatabase::loadFromFile(
      Out, Err, clang::tooling::JSONCommandLineSyntax::AutoDetect);
  if (!DB)
    return "rewritten compilation database: " + Err;
  pointBuildPathAt(WorkerTidyArgs, DatabaseDir);
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

/// Runs one worker on unit \p I with \p Extra arguments; with a cache, it
/// also writes the unit's dependency list.
RawResult Batch::runWorker(size_t I, llvm::ArrayRef<std::string> Extra) {
  const std::string &File = Files[I];
  RawResult Raw;
  TempFiles Temp;
  if (std::error_code EC =
          Temp.create("torch-tidy-worker", {"yaml", "log", "d", "facts"})) {
    Raw.SetupError = "cannot create a temporary file: " + EC.message();
    return Raw;
  }
  StringRef Yaml = Temp[0], Log = Temp[1], Deps = Temp[2], Facts = Temp[3];
  std::vector<std::string> Args = {Self,
                                   WorkerFlag.str(),
                                   File,
                                   "--export-fixes=" + Yaml.str(),
                                   "--" + UnitFactsFlag.str() + "=" +
                                       Facts.str(),
                                   "--quiet"};
  Args.insert(Args.end(), Extra.begin(), Extra.end());
  if (Cache)
    for (std::string &A : dependencyFileArgs(Deps))
      Args.push_back(std::move(A));
  Args.insert(Args.end(), WorkerTidyArgs.begin(), WorkerTidyArgs.end());
  if (C.HasFixed) {
    Args.push_back("--");
    Args.insert(Args.end(), C.Fixed.begin(), C.Fixed.end());
  }
  std::vector<StringRef> Argv(Args.begin(), Args.end());
  std::optional<StringRef> Redirects[] = {StringRef(""), StringRef(Log),
                                          StringRef(Log)};
  std::optional<llvm::sys::ProcessStatistics> Stats;
  Raw.RC = llvm::sys::ExecuteAndWait(Self, Argv, std::nullopt, Redirects, 0, 0,
                                     &Raw.ErrMsg, nullptr, &Stats);
  if (Stats)
    Raw.PeakKiB = Stats->PeakMemory;
  if (auto Buf = llvm::MemoryBuffer::getFile(Log))
    Raw.Log = (*Buf)->getBuffer().str();
  if (auto Buf = llvm::MemoryBuffer::getFile(Facts))
    Raw.Facts = (*Buf)->getBuffer().str();
  if (auto Buf = llvm::MemoryBuffer::getFile(Yaml))
    Raw.Yaml = (*Buf)->getBuffer().str();
  else
    Raw.YamlError =
        "cannot read '" + Yaml.str() + "': " + Buf.getError().message();
  if (Cache) {
    Raw.Deps = readDependencyFile(Deps, Inputs[I].directory());
    if (Raw.Deps) // the shared preamble's own files are not the unit's
      llvm::erase_if(*Raw.Deps, [&](const std::string &D) {
        return !PreambleDir.empty() && StringRef(D).starts_with(PreambleDir);
      });
  }
  return Raw;
}

WorkerResult Batch::interpret(const std::string &File, const RawResult &Raw) {
  WorkerResult R;
  R.PeakKiB = Raw.PeakKiB;
  R.Facts = Raw.Facts;
  if (Raw.SetupError) {
    R.Failure = *Raw.SetupError;
    return R;
  }
  if (Raw.RC == -2) { // killed by a signal: whatever it exported is incomplete
    R.Crashed = true;
    R.Failure = "analysis crashed on " + displayPath(File, Root) + " (signal " +
                std::to_string(signalNumber(Raw.ErrMsg)) + ")";
    return R;
  }
  if (Raw.RC < 0) {
    R.Failure = "could not run the torch-tidy worker: " + Raw.ErrMsg;
    return R;
  }
  if (Raw.YamlError) {
    R.Failure = *Raw.YamlError;
    return R;
  }
  auto Diags = parseExportedFixes(Raw.Yaml, File);
  if (!Diags) {
    R.Failure = llvm::toString(Diags.takeError());
    return R;
  }
  // Errors in device code alone leave the host side analysed, as nvcc's
  // host pass never sees them (clang instantiates device templates there).
  std::optional<DeviceCode> Device;
  bool HostError = false, DeviceError = false;
  for (Finding &F : *Diags) {
    if (isCompileError(F)) {
      if (!Device)
        Device.emplace(Raw.Facts);
      if (Device->holds(F)) {
        DeviceError = true;
        continue;
      }
      HostError = true;
      if (!R.Failure) {
        R.Failure = F.Message;
        R.FailurePos = F.Pos;
      }
      continue;
    }
    R.Findings.push_back(std::move(F));
  }
  R.DeviceCodeErrors = DeviceError && !HostError;
  if (R.DeviceCodeErrors)
    return R;
  bool Gated =
      llvm::any_of(R.Findings, [](const Finding &F) { return F.IsError; });
  if (!R.Failure && Raw.RC != 0 && !Gated) {
    std::string Why = logReason(Raw.Log);
    R.Failure = Why.empty() ? "exit code " + std::to_string(Raw.RC) : Why;
  }
  return R;
}

WorkerResult Batch::analyse(size_t I, bool Unshared) {
  const std::string &File = Files[I];
  if (auto Err = checkSourceFile(File)) { // no worker for a missing file
    WorkerResult R;
    R.Failure = *Err;
    return R;
  }
  if (auto It = UnitErrors.find(File); It != UnitErrors.end()) {
    WorkerResult R;
    R.Failure = It->second;
    return R;
  }
  SharedPreamble *P = Unshared ? nullptr : preambleOf(I);
  if (P && !P->await())
    P = nullptr;
  std::vector<std::string> Extra;
  if (P)
    Extra = {"--extra-arg=-include-pch", "--extra-arg=" + P->Pch};
  RawResult Raw = runWorker(I, Extra);
  WorkerResult R = interpret(File, Raw);
  if (P && R.Failure) { // the unshared analysis decides what went wrong
    Raw = runWorker(I, {});
    R = interpret(File, Raw);
    P = nullptr;
  }
  if (P)
    ++S.PreambleUnits;
  if (Cache && !Keys[I].empty() && !R.Failure && Raw.Deps)
    Cache->store(Keys[I], *Raw.Deps, {Raw.RC, Raw.Facts, Raw.Log, Raw.Yaml},
                 Hashes);
  return R;
}

/// The shared preamble unit \p I waits for, if any.
Batch::SharedPreamble *Batch::preambleOf(size_t I) {
  return GroupOf[I] < 0 ? nullptr : Preambles[GroupOf[I]].get();
}

bool Batch::SharedPreamble::await() {
  std::unique_lock<std::mutex> L(M);
  CV.wait(L, [&] { return State != Pending; });
  return State == Ready;
}

/// Builds one shared preamble in a child process (in its first unit's
/// directory, so relative include paths resolve as they do for the unit);
/// written under a temporary name and renamed, as a cache entry is.
void Batch::build(SharedPreamble &P) {
  std::string Tmp =
      P.Pch + ".tmp" + std::to_string(llvm::sys::Process::getProcessId());
  bool Ok = writeFileAtomically(P.Header, P.Group.Directives);
  if (Ok) {
    std::vector<std::string> Args = {Self, BuildPreambleFlag.str(),
                                     P.Group.Directory, "--"};
    for (std::string &A : preambleCommand(P.Group.UnitArgs, P.Header, Tmp))
      Args.push_back(std::move(A));
    std::vector<StringRef> Argv(Args.begin(), Args.end());
    std::optional<StringRef> Redirects[] = {StringRef(""), StringRef(P.Log),
                                            StringRef(P.Log)};
    Ok = llvm::sys::ExecuteAndWait(Self, Argv, std::nullopt, Redirects) == 0 &&
         !llvm::sys::fs::rename(Tmp, P.Pch);
  }
  if (!Ok)
    (void)llvm::sys::fs::remove(Tmp);
  std::lock_guard<std::mutex> L(P.M);
  P.State = Ok ? SharedPreamble::Ready : SharedPreamble::Failed;
  P.CV.notify_all();
}

/// With a cache: the units it answers are done; the others are analysed.
std::vector<size_t> Batch::lookUpCache() {
  std::vector<size_t> Misses;
  Keys.assign(Files.size(), "");
  for (size_t I = 0; I < Files.size(); ++I) {
    if (!Cache) {
      Misses.push_back(I);
      continue;
    }
    if (!checkSourceFile(Files[I]) && !UnitErrors.count(Files[I]))
      Keys[I] = unitKey(C, Files[I], Inputs[I], "batch", Hashes);
    if (!Keys[I].empty())
      if (auto Hit = Cache->lookup(Keys[I], Hashes)) {
        ++S.CacheHits;
        RawResult Raw;
        Raw.RC = Hit->ExitCode;
        Raw.Log = std::move(Hit->Err);
        Raw.Facts = std::move(Hit->Out);
        Raw.Yaml = std::move(Hit->ExportedFixes);
        Results[I] = interpret(Files[I], Raw);
        continue;
      }
    ++S.CacheMisses;
    Misses.push_back(I);
  }
  return Misses;
}

/// Groups of units to analyse that share a preamble, and where it goes: in
/// the cache, under a key over the files it reads and their content, so a
/// later run finds it; otherwise in a temporary folder.
void Batch::planPreambles(llvm::ArrayRef<size_t> Units) {
  GroupOf.assign(Files.size(), -1);
  if (!C.SharedPreamble || Units.empty())
    return;
  std::vector<PreambleGroup> Groups =
      torch_tidy::planPreambles(C, Files, Inputs, Units, S.Jobs);
  if (Groups.empty())
    return;
  llvm::SmallString<128> Dir;
  if (Cache) {
    Dir = Cache->dir();
    llvm::sys::path::append(Dir, "preambles");
    if (llvm::sys::fs::create_directories(Dir))
      Dir.clear();
  }
  if (Dir.empty()) {
    if (llvm::sys::fs::createUniqueDirectory("torch-tidy-preamble", Dir))
      return; // analysed unshared
    PreambleDirIsTemporary = true;
  }
  PreambleDir = Dir.str().str();
  for (PreambleGroup &G : Groups) {
    auto P = std::make_unique<SharedPreamble>();
    std::string Base = PreambleDir + "/";
    if (PreambleDirIsTemporary) {
      Base += "p" + std::to_string(Preambles.size());
    } else {
      std::string Key = buildIdentity() + '\n' + G.Key;
      for (const std::string &F : G.Files)
        Key += Hashes.get(F) + "\n";
      Base += hashHex(Key);
    }
    P->Header = Base + ".h";
    P->Pch = Base + ".pch";
    P->Log = Base + ".log";
    P->Kept = !PreambleDirIsTemporary && llvm::sys::fs::exists(P->Header) &&
              llvm::sys::fs::exists(P->Pch);
    // A build pays from two units: it costs about one parse (with
    // templates instantiated once) and saves nearly all of two.
    if (G.Units.size() < (P->Kept ? 1u : 2u))
      continue;
    if (P->Kept) {
      P->State = SharedPreamble::Ready;
      markRecentlyUsed(P->Pch);
    }
    for (size_t I : G.Units)
      GroupOf[I] = static_cast<int>(Preambles.size());
    P->Group = std::move(G);
    Preambles.push_back(std::move(P));
  }
}

/// One worker process per file, C.Jobs at a time; results in file order.
/// Each shared preamble is built first; with two or more workers, its
/// first unit is analysed unshared meanwhile.
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
  S.Cached = Cache.has_value();
  // Each unit's command and configuration, looked up once for the cache
  // key, the preamble groups and the dependency list.
  if (Cache || C.SharedPreamble)
    for (const std::string &F : Files)
      Inputs.push_back(unitInputs(C, DB.get(), F));
  std::vector<size_t> Todo = lookUpCache();
  std::vector<size_t> Analysable; // a unit that cannot be shares nothing
  llvm::copy_if(Todo, std::back_inserter(Analysable),
                [&](size_t I) { return !UnitErrors.count(Files[I]); });
  planPreambles(Analysable);

  struct Job {
    int Preamble = -1; ///< a preamble to build, else unit Unit
    size_t Unit = 0;
    bool Unshared = false;
  };
  // A unit analysed unshared while its group's preamble builds, when the
  // other workers would otherwise wait: every unit is in a group, and there
  // are fewer builds than workers.
  size_t Grouped = 0, Builds = 0;
  for (const auto &P : Preambles) {
    Grouped += P->Group.Units.size();
    Builds += !P->Kept;
  }
  bool Idle = Grouped == Todo.size() && Builds < S.Jobs;
  auto UnsharedFirst = [&](const SharedPreamble &P) {
    return Idle && !P.Kept && P.Group.Units.size() >= 3;
  };
  std::vector<Job> Jobs;
  for (size_t G = 0; G < Preambles.size(); ++G) {
    if (Preambles[G]->Kept)
      continue;
    Jobs.push_back({static_cast<int>(G), 0, false});
    if (UnsharedFirst(*Preambles[G]))
      Jobs.push_back({-1, Preambles[G]->Group.Units.front(), true});
  }
  for (size_t I : Todo)
    if (GroupOf[I] < 0)
      Jobs.push_back({-1, I, false});
  for (const auto &P : Preambles)
    for (size_t I : P->Group.Units)
      if (!UnsharedFirst(*P) || I != P->Group.Units.front())
        Jobs.push_back({-1, I, false});

  std::atomic<size_t> Next{0}, Done{Files.size() - Todo.size()};
  auto Work = [&] {
    for (size_t J; (J = Next++) < Jobs.size();) {
      const Job &Jb = Jobs[J];
      if (Jb.Preamble >= 0) {
        build(*Preambles[Jb.Preamble]);
        continue;
      }
      progress(Done, Files.size(), Files[Jb.Unit]);
      Results[Jb.Unit] = analyse(Jb.Unit, Jb.Unshared);
      progress(++Done, Files.size(), Files[Jb.Unit]);
    }
  };
  std::vector<std::thread> Threads;
  for (unsigned J = 0; J < std::min<size_t>(S.Jobs, Jobs.size()); ++J)
    Threads.emplace_back(Work);
  for (std::thread &T : Threads)
    T.join();
  if (PreambleDirIsTemporary)
    (void)llvm::sys::fs::remove_directories(PreambleDir);
  for (const auto &P : Preambles)
    (void)llvm::sys::fs::remove(P->Log);
  if (Cache)
    Cache->trim();
}

/// Findings of every worker, located, deduplicated, sorted, fingerprinted.
void Batch::collect() {
  uint64_t SumKiB = 0;
  for (size_t I = 0; I < Files.size(); ++I) {
    WorkerResult &R = Results[I];
    S.PeakKiB = std::max(S.PeakKiB, R.PeakKiB);
    SumKiB += R.PeakKiB;
    if (CudaFiles.count(Files[I]) && !R.Failure)
      ++S.CudaUnits;
    S.DeviceCodeErrorUnits += R.DeviceCodeErrors && !R.Failure;
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
  }
  size_t Measured = llvm::count_if(Results, [](const WorkerResult &R) {
    return R.PeakKiB > 0;
  }); // a cache hit runs no worker
  S.MeanPeakKiB = Measured ? SumKiB / Measured : 0;
  // Each unit's findings stand or go on that unit's own fact lines, before
  // the copies other units made of them are deduplicated.
  clang::tidy::torch::device::ProgramFacts Program;
  for (const WorkerResult &R : Results)
    Program.add(R.Facts);
  // A header that does not compile alone leans on what its includers put
  // before it: when a source file of the batch compiled, the findings of
  // that header's broken parse are left to the units that include it.
  bool SourceCompiled = false;
  for (size_t I = 0; I < Results.size(); ++I)
    SourceCompiled |= !isHeader(Files[I]) && !Results[I].Failure;
  std::vector<Finding> OfHeaders;
  for (size_t I = 0; I < Results.size(); ++I) {
    if (SourceCompiled && isHeader(Files[I]) && Results[I].Failure) {
      S.BrokenHeaderFindings += Results[I].Findings.size();
      continue;
    }
    dropCPUReads(Program, I, Results[I].Findings);
    for (Finding &F : Results[I].Findings)
      (isHeader(Files[I]) ? OfHeaders : Findings).push_back(std::move(F));
  }
  // Units that share a header can word one finding in it differently (the
  // loop each of them sees): one finding per place and check, the copy of
  // the first source file's unit, else the first header's.
  std::move(OfHeaders.begin(), OfHeaders.end(), std::back_inserter(Findings));
  std::set<std::tuple<std::string, unsigned, std::string>> Placed;
  llvm::erase_if(Findings, [&](const Finding &F) {
    return !F.IsRemark &&
           !Placed.insert({F.Pos.File, F.Pos.Offset, F.Check}).second;
  });
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

/// The findings unit \p Unit deferred to the whole program (CallerDevices.h,
/// HotLoops.h, KernelLaunches.h): those the program's facts disprove go.
void Batch::dropCPUReads(
    const clang::tidy::torch::device::ProgramFacts &Program, unsigned Unit,
    std::vector<Finding> &Found) {
  // D, W, Q and T lines (ProgramFacts.h) are torch-sync-in-loop's: another
  // check's finding at the same place stands on its own.
  auto Sync = [](const Finding &F) { return F.Check == "torch-sync-in-loop"; };
  size_t Before = Found.size();
  llvm::erase_if(Found, [&](const Finding &F) {
    return Sync(F) && Program.onCPUEverywhere(Unit, F.Pos.File, F.Pos.Offset);
  });
  S.OnCPUAcrossUnits += Before - Found.size();
  Before = Found.size();
  llvm::erase_if(Found, [&](const Finding &F) {
    return Sync(F) && Program.noDeviceReaches(Unit, F.Pos.File, F.Pos.Offset);
  });
  S.NoDeviceAcrossUnits += Before - Found.size();
  Before = Found.size();
  llvm::erase_if(Found, [&](const Finding &F) {
    return Program.provenByCallersEverywhere(Unit, F.Check, F.Pos.File,
                                             F.Pos.Offset);
  });
  S.ProvenByCallersAcrossUnits += Before - Found.size();
  // Findings of a function whose launcher is in another file: they stand
  // where that file's unit shows the launcher starts the work they need,
  // with a note there.
  llvm::erase_if(Found, [&](Finding &F) {
    auto Met = Program.launchersNeeded(Unit, F.Check, F.Pos.File, F.Pos.Offset);
    if (!Met)
      return false;
    for (const auto &Site : *Met)
      F.Notes.push_back(
          {Position{Site.File, Site.Offset, 0, 0},
           "'" + launcherName(Site.Fn) + "' starts " + Site.What + " here"});
    return Met->empty();
  });
  // Findings made as if a function ran once per step, which no unit calls
  // so, or as if a loop trained through a function of another file, none of
  // which trains: they were never findings of the program (not counted).
  llvm::erase_if(Found, [&](const Finding &F) {
    return Sync(F) && (Program.perStepNowhere(Unit, F.Pos.File, F.Pos.Offset) ||
                       Program.stepLoopNowhere(Unit, F.Pos.File, F.Pos.Offset));
  });
  // Waits for a GPU in a program that names none: every tensor is on the
  // CPU.
  Before = Found.size();
  llvm::erase_if(Found, [&](const Finding &F) {
    return Program.cpuOnlyProgram(Unit, F.Check, F.Pos.File, F.Pos.Offset);
  });
  S.OnCPUAcrossUnits += Before - Found.size();
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
  if (C.RuntimeReport) { // a bad report fails before any analysis
    auto Sites = readRuntimeReport(*C.RuntimeReport);
    if (!Sites)
      return fail(llvm::toString(Sites.takeError()));
    RuntimeSites = std::move(*Sites);
  }
  analyseAll();
  collect();
  // The baseline records what the analysis found, before any filtering.
  if (C.WriteBaseline)
    if (auto Err = writeBaseline(*C.WriteBaseline, Findings, Root))
      return fail(llvm::toString(std::move(Err)));
  if (C.RuntimeReport)
    S.Runtime = joinRuntime(Findings, RuntimeSites, *C.RuntimeReport);
  filter();
  if (S.Runtime)
    countRuntime(Findings, *S.Runtime);
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
