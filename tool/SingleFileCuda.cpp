//===- SingleFileCuda.cpp - CUDA sources in a single-file run ------------===//
#include "tool/SingleFileCuda.h"
#include "tool/InputValidation.h"
#include "tool/batch/CudaCommand.h"
#include "tool/batch/NvccHostPrelude.h"
#include "tool/batch/RealDatabase.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

namespace torch_tidy {

using llvm::StringRef;

void pointBuildPathAt(std::vector<std::string> &Args, StringRef Dir) {
  for (size_t I = 0; I < Args.size() && Args[I] != "--"; ++I) {
    StringRef Name = StringRef(Args[I]).ltrim('-');
    if (Name == "p" && I + 1 < Args.size()) {
      Args[I + 1] = Dir.str();
      return;
    }
    if (Name.starts_with("p=")) {
      Args[I] = "-p=" + Dir.str();
      return;
    }
  }
  Args.insert(Args.begin(), "-p=" + Dir.str());
}

/// Under "--": the host-side flags the fixed arguments lack.
static llvm::Error addHostFlags(const CommandLine &C,
                                std::vector<std::string> &Args) {
  std::vector<std::string> Compile = {"clang++"};
  Compile.insert(Compile.end(), C.Fixed.begin(), C.Fixed.end());
  if (!llvm::any_of(C.Sources, [&](const std::string &S) {
        return isCudaCommand(Compile, S);
      }))
    return llvm::Error::success();
  auto Has = [&](StringRef Prefix) {
    return llvm::any_of(C.Fixed, [&](const std::string &A) {
      return StringRef(A).starts_with(Prefix);
    });
  };
  std::vector<std::string> Add;
  if (!Has("--cuda-host-only") && !Has("--cuda-device-only"))
    Add.push_back("--extra-arg=--cuda-host-only");
  if (!Has("-nocudalib"))
    Add.push_back("--extra-arg=-nocudalib");
  if (!Has("--cuda-path") || C.CudaPath) {
    auto Toolkit = findCudaToolkit(C.CudaPath.value_or(""), "");
    if (!Toolkit)
      return Toolkit.takeError();
    Add.push_back("--extra-arg=--cuda-path=" + *Toolkit);
  }
  {
    auto Prelude = nvccHostPrelude();
    if (!Prelude)
      return Prelude.takeError();
    Add.push_back("--extra-arg=-include");
    Add.push_back("--extra-arg=" + *Prelude);
  }
  Args.insert(Args.begin(), Add.begin(), Add.end());
  return llvm::Error::success();
}

llvm::Error adjustForCudaSources(const CommandLine &C,
                                 const clang::tooling::CompilationDatabase *DB,
                                 std::vector<std::string> &Args,
                                 std::string &DatabaseDir) {
  if (C.IsWorker) // the batch driver rewrote the workers' database
    return llvm::Error::success();
  if (C.HasFixed)
    return addHostFlags(C, Args);
  if (!DB)
    return llvm::Error::success();
  std::vector<std::string> Sources;
  for (const std::string &S : C.Sources) {
    llvm::SmallString<256> Abs(S);
    (void)llvm::sys::fs::make_absolute(Abs);
    llvm::sys::path::remove_dots(Abs, true);
    Sources.push_back(Abs.str().str());
  }
  bool Cuda = false;
  for (const std::string &S : Sources)
    for (const clang::tooling::CompileCommand &Cmd : DB->getCompileCommands(S))
      Cuda |= isCudaCommand(Cmd.CommandLine, S);
  if (!Cuda)
    return llvm::Error::success();
  std::optional<std::string> File = C.BuildPath
                                        ? databaseFile(*C.BuildPath)
                                        : findDatabase(C.Sources.front());
  if (!File)
    return llvm::Error::success(); // clang-tidy reports the missing database
  auto Rewrite = rewriteDatabase(*File, C.CudaPath.value_or(""));
  if (!Rewrite)
    return llvm::createStringError("compilation database " +
                                   llvm::toString(Rewrite.takeError()));
  for (const std::string &S : Sources)
    if (auto It = Rewrite->UnitErrors.find(S); It != Rewrite->UnitErrors.end())
      return llvm::createStringError(It->second);
  if (Rewrite->Json.empty())
    return llvm::Error::success();
  llvm::SmallString<128> Dir;
  if (std::error_code EC =
          llvm::sys::fs::createUniqueDirectory("torch-tidy-db", Dir))
    return llvm::createStringError("cannot create a temporary folder: " +
                                   EC.message());
  DatabaseDir = Dir.str().str();
  llvm::sys::path::append(Dir, "compile_commands.json");
  std::error_code EC;
  llvm::raw_fd_ostream OS(Dir, EC);
  if (EC)
    return llvm::createStringError("cannot write '" + Dir.str() +
                                   "': " + EC.message());
  OS << Rewrite->Json;
  pointBuildPathAt(Args, DatabaseDir);
  return llvm::Error::success();
}

} // namespace torch_tidy
