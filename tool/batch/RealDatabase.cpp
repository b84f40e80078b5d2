//===- RealDatabase.cpp - compile databases as projects write them -------===//
#include "tool/batch/RealDatabase.h"
#include "tool/batch/CudaCommand.h"
#include "tool/batch/NvccHostPrelude.h"
#include "tool/report/Findings.h"
#include "clang/Options/Options.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Option/ArgList.h"
#include "llvm/Support/Allocator.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/StringSaver.h"
#include "llvm/Support/raw_ostream.h"
#include <set>

namespace torch_tidy {

using llvm::StringRef;

static bool isLauncher(StringRef Arg0) {
  StringRef Name = llvm::sys::path::stem(Arg0);
  return Name == "ccache" || Name == "sccache" || Name == "distcc" ||
         Name == "icecc" || Name == "buildcache";
}

/// True for GCC's drivers (gcc, g++, c++, cc, with a version or target
/// prefix) and nvcc, whose host compiler is GCC unless told otherwise: they
/// accept narrowing a non-constant in a braced initializer (`{n}` with a
/// `uint64_t n` for an `int64_t`) with a warning, which clang makes an
/// error. Their units get `-Wno-c++11-narrowing`, so that what the build
/// compiles is analysed.
static bool acceptsNarrowing(StringRef Arg0) {
  StringRef Name = llvm::sys::path::filename(Arg0);
  if (Name.contains("clang"))
    return false;
  return Name.starts_with("nvcc") || Name == "cc" || Name == "c++" ||
         Name.ends_with("-cc") || Name.ends_with("-c++") ||
         Name.contains("gcc") || Name.contains("g++");
}

/// Drops the arguments clang's driver does not know (GCC-only flags), and
/// counts them in \p Dropped, once per unit. Arguments of cl-mode drivers are
/// kept.
static bool dropUnknownFlags(std::vector<std::string> &Args,
                             std::map<std::string, unsigned> &Dropped) {
  if (Args.size() < 2)
    return false;
  StringRef Driver = llvm::sys::path::stem(Args[0]);
  if (Driver == "cl" || Driver.starts_with("clang-cl") ||
      llvm::is_contained(Args, "--driver-mode=cl"))
    return false;
  std::vector<const char *> Argv;
  for (size_t I = 1; I < Args.size(); ++I)
    Argv.push_back(Args[I].c_str());
  unsigned MissingIndex = 0, MissingCount = 0;
  llvm::opt::InputArgList Parsed = clang::getDriverOptTable().ParseArgs(
      Argv, MissingIndex, MissingCount,
      llvm::opt::Visibility(clang::options::ClangOption));
  std::set<unsigned> Unknown;
  for (const llvm::opt::Arg *A : Parsed.filtered(clang::options::OPT_UNKNOWN))
    Unknown.insert(A->getIndex() + 1);
  if (Unknown.empty())
    return false;
  std::vector<std::string> Kept;
  std::set<std::string> Named; // counted once per unit
  for (size_t I = 0; I < Args.size(); ++I) {
    if (!Unknown.count(static_cast<unsigned>(I)))
      Kept.push_back(std::move(Args[I]));
    else if (Named.insert(Args[I]).second)
      ++Dropped[Args[I]];
  }
  Args = std::move(Kept);
  return true;
}

llvm::Expected<DatabaseRewrite>
rewriteDatabase(StringRef File, StringRef CudaPath, StringRef PreludeDir) {
  auto Fail = [&](const llvm::Twine &Why) {
    return llvm::createStringError("'" + File + "': " + Why);
  };
  auto Buf = llvm::MemoryBuffer::getFile(File);
  if (!Buf)
    return Fail("cannot read: " + Buf.getError().message());
  auto Parsed = llvm::json::parse((*Buf)->getBuffer());
  if (!Parsed)
    return Fail(llvm::toString(Parsed.takeError()));
  const llvm::json::Array *Entries = Parsed->getAsArray();
  if (!Entries)
    return Fail("not a JSON array");
  llvm::SmallString<256> DbDir(File);
  (void)llvm::sys::fs::make_absolute(DbDir);
  llvm::sys::path::remove_filename(DbDir);

  DatabaseRewrite Out;
  bool Changed = false;
  llvm::json::Array Rewritten;
  llvm::BumpPtrAllocator Alloc;
  llvm::StringSaver Saver(Alloc);
  struct Toolkit {
    std::string Path, Error;
  };
  std::map<std::string, Toolkit> Toolkits; // by compiler
  std::string Prelude;                     // written for the first CUDA unit
  for (const llvm::json::Value &V : *Entries) {
    const llvm::json::Object *E = V.getAsObject();
    if (!E)
      return Fail("an entry is not an object");
    auto Dir = E->getString("directory");
    auto Source = E->getString("file");
    if (!Dir || !Source)
      return Fail("an entry has no \"directory\" or \"file\"");
    std::string Directory = absolutePath(*Dir, DbDir);
    std::string Path = absolutePath(*Source, Directory);
    // clang resolves a relative "file" against an absolute "directory".
    Changed |= Directory != *Dir;

    llvm::SmallVector<const char *, 32> Argv;
    if (const llvm::json::Array *A = E->getArray("arguments")) {
      for (const llvm::json::Value &Arg : *A)
        if (auto S = Arg.getAsString())
          Argv.push_back(Saver.save(*S).begin()); // saved with a final NUL
    } else if (auto Command = E->getString("command")) {
      llvm::cl::TokenizeGNUCommandLine(*Command, Saver, Argv);
    } else {
      return Fail("an entry has no \"arguments\" or \"command\"");
    }
    if (llvm::any_of(Argv, [](const char *A) { return A[0] == '@'; })) {
      llvm::cl::ExpansionContext Expand(Alloc,
                                        llvm::cl::TokenizeGNUCommandLine);
      Expand.setCurrentDir(Directory);
      if (llvm::Error Err = Expand.expandResponseFiles(Argv))
        return Fail("a response file of '" + Path +
                    "': " + llvm::toString(std::move(Err)));
      Changed = true;
    }
    std::vector<std::string> Args(Argv.begin(), Argv.end());
    while (Args.size() >= 2 && isLauncher(Args[0])) {
      Args.erase(Args.begin());
      Changed = true;
    }
    if (Args.empty())
      return Fail("the entry of '" + Path + "' has an empty command");
    bool Lenient = acceptsNarrowing(Args[0]);
    if (isCudaCommand(Args, Path)) {
      Changed = true;
      auto [It, New] = Toolkits.try_emplace(Args[0]);
      if (New) {
        auto Found = findCudaToolkit(CudaPath, Args[0]);
        if (Found)
          It->second.Path = *Found;
        else
          It->second.Error = llvm::toString(Found.takeError());
      }
      if (!It->second.Error.empty()) {
        // Kept as written, so the unit is listed and reported as failed.
        Out.UnitErrors[Path] =
            "cannot analyse CUDA file '" + Path + "': " + It->second.Error;
      } else {
        if (Prelude.empty()) {
          auto Written = nvccHostPrelude(PreludeDir);
          if (!Written)
            return Written.takeError();
          Prelude = *Written;
        }
        auto Host = cudaHostCommand(Args, Path, It->second.Path, Directory,
                                    !CudaPath.empty(), Prelude);
        if (!Host)
          return Fail("'" + Path + "': " + llvm::toString(Host.takeError()));
        Args = std::move(Host->Args);
        ++Out.CudaUnits;
        Out.CudaFiles.insert(Path);
        for (const std::string &D :
             std::set<std::string>(Host->Dropped.begin(), Host->Dropped.end()))
          ++Out.DroppedFlags[D];
      }
    }
    if (!Out.UnitErrors.count(Path)) {
      Changed |= dropUnknownFlags(Args, Out.DroppedFlags);
      if (Lenient) {
        Args.push_back("-Wno-c++11-narrowing");
        Changed = true;
      }
    }

    llvm::json::Object Entry{{"directory", Directory},
                             {"file", Path},
                             {"arguments", llvm::json::Array(Args)}};
    if (auto Output = E->getString("output"))
      Entry["output"] = *Output;
    Rewritten.push_back(std::move(Entry));
  }
  if (Changed) {
    llvm::raw_string_ostream OS(Out.Json);
    OS << llvm::formatv("{0:2}", llvm::json::Value(std::move(Rewritten)));
  }
  return Out;
}

llvm::Expected<std::map<std::string, std::string>>
exportDatabase(StringRef File, StringRef CudaPath, StringRef Dir) {
  if (std::error_code EC = llvm::sys::fs::create_directories(Dir))
    return llvm::createStringError("cannot create '" + Dir +
                                   "': " + EC.message());
  auto Rewrite = rewriteDatabase(File, CudaPath, Dir);
  if (!Rewrite)
    return Rewrite.takeError();
  std::string Json = std::move(Rewrite->Json);
  if (Json.empty()) {
    auto Buf = llvm::MemoryBuffer::getFile(File);
    if (!Buf)
      return llvm::createStringError("cannot read '" + File +
                                     "': " + Buf.getError().message());
    Json = (*Buf)->getBuffer().str();
  }
  if (std::error_code EC = llvm::sys::fs::create_directories(Dir))
    return llvm::createStringError("cannot create '" + Dir +
                                   "': " + EC.message());
  llvm::SmallString<256> Out(Dir);
  llvm::sys::path::append(Out, "compile_commands.json");
  if (llvm::sys::fs::equivalent(Out, File))
    return llvm::createStringError("--export-database would overwrite '" +
                                   File + "'");
  if (llvm::Error E = llvm::writeToOutput(Out, [&](llvm::raw_ostream &OS) {
        OS << Json;
        return llvm::Error::success();
      }))
    return std::move(E);
  return std::move(Rewrite->UnitErrors);
}

} // namespace torch_tidy
