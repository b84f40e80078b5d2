//===- TorchTidyMain.cpp - the torch-tidy command line -------------------===//
// clang-tidy's command line with the torch module linked in. The command
// line is parsed once (CommandLine.h). Batch mode goes to BatchDriver; a
// single-file run is validated, then handed to clangTidyMain with the clang
// resource directory supplied and torch-* alone enabled unless configured.
#include "Version.h"
#include "clang-tidy/tool/ClangTidyMain.h"
#include "tool/CommandLine.h"
#include "tool/InputValidation.h"
#include "tool/ResourceDir.h"
#include "tool/SingleFileCuda.h"
#include "tool/batch/BatchDriver.h"
#include "tool/batch/RealDatabase.h"
#include "tool/batch/SharedPreamble.h"
#include "tool/cache/CachedRun.h"
#include "tool/cache/UnitKey.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include <csignal>
#include <cstdlib>
#include <string>
#include <vector>

extern volatile int TorchTidyModuleAnchorSource;

/// Test-only fault injection for batch workers, so tests can prove that the
/// driver survives them: TORCH_TIDY_FAULT_INJECTION=ACTION:NAME makes the
/// worker whose source path contains NAME kill itself (kill, abort, segv,
/// term) or
/// delete its source first (delete: a file gone between listing and
/// analysis).
static void injectFault(const torch_tidy::CommandLine &C) {
  const char *Spec = std::getenv("TORCH_TIDY_FAULT_INJECTION");
  if (!Spec || C.Sources.empty())
    return;
  auto [Action, Name] = llvm::StringRef(Spec).split(':');
  if (Name.empty() || !llvm::StringRef(C.Sources.front()).contains(Name))
    return;
  if (Action == "kill")
    std::raise(SIGKILL);
  else if (Action == "abort")
    std::raise(SIGABRT);
  else if (Action == "segv")
    std::raise(SIGSEGV);
  else if (Action == "term")
    std::raise(SIGTERM);
  else if (Action == "delete")
    (void)llvm::sys::fs::remove(C.Sources.front());
}

/// True for a header suffix that clang's driver does not know (`.tpp`,
/// `.ipp`, `.inl`, `.inc`, `.tcc`, `.txx`).
static bool isUnknownHeaderSuffix(const std::string &Path) {
  std::string Ext = llvm::sys::path::extension(Path).lower();
  return llvm::is_contained({".tpp", ".ipp", ".inl", ".inc", ".tcc", ".txx"},
                            Ext);
}

/// argv[1..] without torch-tidy's own flags (ownFlagArity), which clang-tidy
/// must never see; everything from "--" on is kept as it is.
static std::vector<std::string> argsWithoutOwnFlags(int argc,
                                                    const char **argv) {
  std::vector<std::string> Rest;
  for (int I = 1; I < argc; ++I) {
    if (llvm::StringRef(argv[I]) == "--") {
      Rest.insert(Rest.end(), argv + I, argv + argc);
      break;
    }
    if (unsigned Own = torch_tidy::ownFlagArity(argv[I]))
      I += Own - 1;
    else
      Rest.push_back(argv[I]);
  }
  return Rest;
}

int main(int argc, const char **argv) {
  (void)TorchTidyModuleAnchorSource;
  std::vector<std::string> Args(argv, argv + argc);
  torch_tidy::CommandLine C = torch_tidy::parseCommandLine(Args);
  if (!C.CacheDir)
    if (const char *Dir = std::getenv("TORCH_TIDY_CACHE_DIR"))
      C.CacheDir = Dir;   // "" turns it off
  if (C.BuildsPreamble) { // for the batch driver: DIR -- CLANG ARGS...
    if (C.Sources.size() != 1 || C.Fixed.empty() ||
        llvm::sys::fs::set_current_path(C.Sources.front())) {
      llvm::errs() << "torch-tidy: error: bad preamble request\n";
      return 2;
    }
    if (auto Err = torch_tidy::buildPreamble(C.Fixed)) {
      llvm::errs() << "torch-tidy: error: shared preamble: " << *Err << "\n";
      return 2;
    }
    return 0;
  }

  if (C.WantsVersion) {
    llvm::outs() << "torch-tidy version " << TORCH_TIDY_VERSION << "\n"
                 << "  clang-tidy and LLVM version " << LLVM_VERSION_STRING
                 << "\n  checks: torch-* (LibTorch device management)\n";
    return 0;
  }
  if (C.ExportDatabase) {
    if (!C.BuildPath) {
      llvm::errs() << "torch-tidy: error: --export-database needs -p <build "
                      "dir>\n";
      return 2;
    }
    if (auto Err = torch_tidy::validateInputs(C)) {
      llvm::errs() << "torch-tidy: error: " << *Err << "\n";
      return 2;
    }
    auto Failed =
        torch_tidy::exportDatabase(torch_tidy::databaseFile(*C.BuildPath),
                                   C.CudaPath.value_or(""), *C.ExportDatabase);
    if (!Failed) {
      llvm::errs() << "torch-tidy: error: "
                   << llvm::toString(Failed.takeError()) << "\n";
      return 2;
    }
    for (const auto &[File, Why] : *Failed)
      llvm::errs() << "torch-tidy: warning: " << Why << "\n";
    llvm::outs() << "torch-tidy: wrote " << *C.ExportDatabase
                 << "/compile_commands.json\n";
    return Failed->empty() ? 0 : 2;
  }
  // The checks read it in every process: this one, the batch workers, and a
  // clang-tidy or clangd that loads them with the variable set.
  if (C.Verbose)
    setenv("TORCH_TIDY_VERBOSE", "1", 1);
  if (C.isBatch())
    return torch_tidy::runBatch(C, argv[0]);
  std::unique_ptr<clang::tooling::CompilationDatabase> DB;
  if (C.IsWorker) {
    injectFault(C);
    if (C.UnitFacts) // read by the checks (CallerDevices.h)
      setenv("TORCH_TIDY_UNIT_FACTS", C.UnitFacts->c_str(), 1);
    // The parent validated everything but the file itself, which may have
    // gone since it was listed.
    for (const std::string &Source : C.Sources)
      if (auto Err = torch_tidy::checkSourceFile(Source)) {
        llvm::errs() << "torch-tidy: error: " << *Err << "\n";
        return 2;
      }
  } else if (auto Err = torch_tidy::validateInputs(C, &DB)) {
    llvm::errs() << "torch-tidy: error: " << *Err << "\n";
    return 2;
  }
  std::vector<std::string> Rest = argsWithoutOwnFlags(argc, argv);
  std::string CudaDatabaseDir; // a rewritten database, removed at exit
  if (auto Err = torch_tidy::adjustForCudaSources(C, DB.get(), Rest,
                                                  CudaDatabaseDir)) {
    llvm::errs() << "torch-tidy: error: " << llvm::toString(std::move(Err))
                 << "\n";
    return 2;
  }
  llvm::scope_exit RemoveDatabase([&] {
    if (!CudaDatabaseDir.empty())
      (void)llvm::sys::fs::remove_directories(CudaDatabaseDir);
  });
  if (torch_tidy::cacheApplies(C)) {
    std::string Self = llvm::sys::fs::getMainExecutable(
        argv[0], reinterpret_cast<void *>(&injectFault));
    return torch_tidy::runCached(C, DB.get(), Self, Rest);
  }

  std::vector<std::string> Extra;
  // A template implementation file (`MD.tpp`, `impl.ipp`) named as a source:
  // clang's driver knows no language for it and would run no compiler job.
  if (!C.Sources.empty() && llvm::all_of(C.Sources, isUnknownHeaderSuffix))
    Extra.push_back("--extra-arg-before=-xc++-header");
  if (!C.HasResourceDir && !torch_tidy::resourceDir().empty())
    Extra.push_back("--extra-arg-before=-resource-dir=" +
                    torch_tidy::resourceDir());
  // Without checks on the command line: torch-* alone, or added to a
  // project's .clang-tidy that does not name them (the first source's
  // configuration decides; batch workers have one source).
  if (auto Checks = torch_tidy::addedChecks(
          C, C.Sources.empty() ? "" : C.Sources.front()))
    Extra.push_back("--checks=" + *Checks);

  // Our additions go right after argv[0], before any "--".
  std::vector<const char *> NewArgv{argv[0]};
  for (const std::string &E : Extra)
    NewArgv.push_back(E.c_str());
  for (const std::string &A : Rest)
    NewArgv.push_back(A.c_str());
  return clang::tidy::clangTidyMain(static_cast<int>(NewArgv.size()),
                                    NewArgv.data());
}
