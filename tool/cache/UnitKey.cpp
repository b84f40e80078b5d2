//===- UnitKey.cpp --------------------------------------------------------===//
#include "tool/cache/UnitKey.h"
#include "Version.h"
#include "clang-tidy/ClangTidy.h"
#include "tool/InputValidation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/Chrono.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using clang::tidy::ClangTidyOptions;
using llvm::StringRef;

namespace torch_tidy {

std::optional<std::string> addedChecks(const CommandLine &C, StringRef Source) {
  if (C.Checks || C.Config || C.ConfigFile)
    return std::nullopt;
  switch (torchChecksInConfig(Source)) {
  case TorchChecksInConfig::NoConfig:
    return std::string("-*,torch-*");
  case TorchChecksInConfig::NotMentioned:
    return std::string("torch-*"); // appended to the file's Checks
  case TorchChecksInConfig::Enabled:
  case TorchChecksInConfig::Disabled:
    break;
  }
  return std::nullopt;
}

ClangTidyOptions effectiveOptions(const CommandLine &C, StringRef Source) {
  ClangTidyOptions Defaults = ClangTidyOptions::getDefaults();
  ClangTidyOptions Override;
  if (C.Checks)
    Override.Checks = *C.Checks;
  else
    Override.Checks = addedChecks(C, Source);
  std::optional<std::string> ConfigText = C.Config;
  if (!ConfigText && C.ConfigFile)
    if (auto Buf = llvm::MemoryBuffer::getFile(*C.ConfigFile))
      ConfigText = (*Buf)->getBuffer().str();
  if (ConfigText) {
    auto Parsed = clang::tidy::parseConfiguration(
        llvm::MemoryBufferRef(*ConfigText, "config"));
    clang::tidy::ConfigOptionsProvider P(
        {}, Defaults, Parsed ? *Parsed : ClangTidyOptions(), Override);
    return P.getOptions(Source);
  }
  clang::tidy::FileOptionsProvider P({}, Defaults, Override);
  return P.getOptions(Source);
}

bool onlyTorchChecks(const ClangTidyOptions &Options) {
  std::vector<std::string> Names = clang::tidy::getCheckNames(
      Options, /*AllowEnablingAnalyzerAlphaCheckers=*/false,
      /*ExperimentalCustomChecks=*/false);
  return llvm::all_of(Names, [](const std::string &N) {
    return StringRef(N).starts_with("torch-");
  });
}

std::optional<clang::tooling::CompileCommand>
compileCommandFor(const CommandLine &C,
                  const clang::tooling::CompilationDatabase *DB,
                  StringRef Source) {
  std::unique_ptr<clang::tooling::CompilationDatabase> Found;
  if (C.HasFixed) {
    Found = std::make_unique<clang::tooling::FixedCompilationDatabase>(".",
                                                                       C.Fixed);
    DB = Found.get();
  } else if (!DB) {
    std::string Err;
    Found =
        clang::tooling::CompilationDatabase::autoDetectFromSource(Source, Err);
    DB = Found.get();
  }
  if (!DB)
    return std::nullopt;
  std::vector<clang::tooling::CompileCommand> Cmds =
      DB->getCompileCommands(Source);
  if (Cmds.empty())
    return std::nullopt;
  return Cmds.front();
}

/// This build of torch-tidy: its version, LLVM's, and the executable's
/// size and modification time (a rebuild changes them).
std::string buildIdentity() {
  static int Anchor;
  std::string Self = llvm::sys::fs::getMainExecutable(nullptr, &Anchor);
  llvm::sys::fs::file_status St;
  std::string Id = std::string(TORCH_TIDY_VERSION) + " " + LLVM_VERSION_STRING;
  if (!llvm::sys::fs::status(Self, St))
    Id += " " + std::to_string(St.getSize()) + " " +
          std::to_string(llvm::sys::toTimeT(St.getLastModificationTime()));
  return Id;
}

UnitInputs unitInputs(const CommandLine &C,
                      const clang::tooling::CompilationDatabase *DB,
                      StringRef Source) {
  return {compileCommandFor(C, DB, Source), effectiveOptions(C, Source)};
}

std::string unitKey(const CommandLine &C, StringRef Source, const UnitInputs &U,
                    StringRef Mode, FileHashes &Hashes) {
  std::string Content = Hashes.get(Source);
  if (Content.empty())
    return "";
  std::string Material;
  llvm::raw_string_ostream OS(Material);
  static const std::string Build = buildIdentity();
  OS << "build " << Build << "\nmode " << Mode << "\nsource " << Source << " "
     << Content << "\nargs";
  // Where the fixes are exported is not part of the result; whether they
  // are is (the entry holds them).
  for (size_t I = 0; I < C.TidyArgs.size(); ++I) {
    StringRef A = C.TidyArgs[I];
    if (A.ltrim('-').split('=').first == "export-fixes") {
      OS << " --export-fixes";
      I += !A.contains('=');
      continue;
    }
    OS << " " << A;
  }
  OS << "\nquiet " << C.Quiet << "\nfixed " << C.HasFixed;
  for (const std::string &A : C.Fixed)
    OS << " " << A;
  const char *Verbose = std::getenv("TORCH_TIDY_VERBOSE");
  OS << "\nverbose " << (Verbose ? Verbose : "") << "\ncommand ";
  if (U.Command) {
    OS << U.Command->Directory;
    for (const std::string &A : U.Command->CommandLine)
      OS << " " << A;
  }
  OS << "\nconfig\n" << clang::tidy::configurationAsText(U.Options);
  return hashHex(Material);
}

} // namespace torch_tidy
