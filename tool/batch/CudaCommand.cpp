//===- CudaCommand.cpp - the host side of a CUDA compile command ---------===//
#include "tool/batch/CudaCommand.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/StringSaver.h"
#include <cstdlib>

namespace torch_tidy {

using llvm::StringRef;

static bool isNvcc(StringRef Compiler) {
  return llvm::sys::path::stem(Compiler).starts_with("nvcc");
}

/// The language a `-x` argument sets, or "" when \p Args sets none.
static StringRef languageOf(llvm::ArrayRef<std::string> Args) {
  StringRef Lang;
  for (size_t I = 1; I < Args.size(); ++I) {
    StringRef A = Args[I];
    if ((A == "-x" || A == "--x") && I + 1 < Args.size())
      Lang = Args[++I];
    else if (A.consume_front("-x") || A.consume_front("--x="))
      Lang = A;
  }
  return Lang;
}

bool isCudaCommand(llvm::ArrayRef<std::string> Args, StringRef File) {
  if (Args.empty())
    return false;
  StringRef Lang = languageOf(Args);
  if (Lang == "cuda" || Lang == "cu")
    return true;
  if (!Lang.empty() && !isNvcc(Args[0]))
    return false; // clang -x c++ file.cu
  StringRef Ext = llvm::sys::path::extension(File);
  return isNvcc(Args[0]) || Ext == ".cu" || Ext == ".cuh";
}

std::optional<std::string> cudaToolkitProblem(StringRef Dir) {
  llvm::SmallString<256> Header(Dir), Bin(Dir);
  llvm::sys::path::append(Header, "include", "cuda_runtime.h");
  llvm::sys::path::append(Bin, "bin");
  if (!llvm::sys::fs::is_directory(Dir))
    return "'" + Dir.str() + "' is not a folder";
  if (!llvm::sys::fs::exists(Header))
    return "'" + Dir.str() + "' has no include/cuda_runtime.h";
  if (!llvm::sys::fs::is_directory(Bin))
    return "'" + Dir.str() + "' has no bin/ folder (clang requires one)";
  return std::nullopt;
}

/// The toolkit above the nvcc that \p Compiler runs (found on PATH when it
/// is a bare name), with links resolved: .../bin/nvcc gives ...
static std::string toolkitOfNvcc(StringRef Compiler) {
  if (!isNvcc(Compiler))
    return "";
  std::string Path = Compiler.str();
  if (!llvm::sys::path::has_parent_path(Compiler)) {
    auto Found = llvm::sys::findProgramByName(Compiler);
    if (!Found)
      return "";
    Path = *Found;
  }
  llvm::SmallString<256> Real;
  if (llvm::sys::fs::real_path(Path, Real))
    Real = Path;
  StringRef Bin = llvm::sys::path::parent_path(Real);
  if (llvm::sys::path::filename(Bin) != "bin")
    return "";
  return llvm::sys::path::parent_path(Bin).str();
}

llvm::Expected<std::string> findCudaToolkit(StringRef Explicit,
                                            StringRef Compiler) {
  if (!Explicit.empty()) {
    if (auto Problem = cudaToolkitProblem(Explicit))
      return llvm::createStringError("--cuda-path: " + *Problem);
    return Explicit.str();
  }
  std::vector<std::pair<std::string, std::string>> Candidates;
  for (const char *Var : {"CUDA_HOME", "CUDA_PATH"})
    if (const char *V = std::getenv(Var); V && *V)
      Candidates.push_back({V, std::string("$") + Var});
  if (std::string Nvcc = toolkitOfNvcc(Compiler); !Nvcc.empty())
    Candidates.push_back({Nvcc, "the folder of " + Compiler.str()});
  const char *Search = std::getenv("TORCH_TIDY_CUDA_SEARCH");
  llvm::SmallVector<StringRef, 2> Defaults;
  StringRef(Search ? Search : "/usr/local/cuda:/usr/lib/cuda")
      .split(Defaults, ':', -1, false);
  for (StringRef D : Defaults)
    Candidates.push_back({D.str(), D.str()});
  std::string Looked;
  for (const auto &[Dir, Where] : Candidates) {
    if (!cudaToolkitProblem(Dir))
      return Dir;
    Looked += (Looked.empty() ? "" : ", ") + Where;
  }
  return llvm::createStringError(
      "no CUDA toolkit found (looked at " + Looked +
      "): pass --cuda-path=DIR or set CUDA_HOME to a folder with "
      "include/cuda_runtime.h and bin/");
}

namespace {
/// What to do with one nvcc option.
enum class Nvcc : unsigned char {
  Pass,      ///< the same for clang
  Host,      ///< its value, spelt as clang's option (Spelling)
  Unwrap,    ///< -Xcompiler: its comma-separated value are host options
  Expand,    ///< --options-file: its content, in its place
  Language,  ///< -x cu
  Rdc,       ///< -rdc=true: -fgpu-rdc
  Stream,    ///< --default-stream per-thread
  Alias,     ///< clang's option without a value (Spelling)
  Same,      ///< what clang does anyway: dropped, not named
  Drop,      ///< no host-side meaning: dropped and named
  DropValue, ///< the same, with a value
};

struct NvccOption {
  Nvcc Action;
  StringRef Spelling = ""; ///< for Host: clang's option
  bool Joined = false;     ///< for Host: clang's option takes "-DX", not "-D X"
};
} // namespace

/// nvcc's option \p Name (without its leading dashes).
static NvccOption nvccOption(StringRef Name) {
  return llvm::StringSwitch<NvccOption>(Name)
      .Cases({"Xcompiler", "compiler-options"}, {Nvcc::Unwrap})
      .Cases({"optf", "options-file"}, {Nvcc::Expand})
      .Case("x", {Nvcc::Language})
      .Cases({"rdc", "relocatable-device-code"}, {Nvcc::Rdc})
      .Case("default-stream", {Nvcc::Stream})
      .Case("output-file", {Nvcc::Host, "-o"})
      .Case("include-path", {Nvcc::Host, "-I", true})
      .Case("system-include", {Nvcc::Host, "-isystem"})
      .Case("define-macro", {Nvcc::Host, "-D", true})
      .Case("undefine-macro", {Nvcc::Host, "-U", true})
      .Case("pre-include", {Nvcc::Host, "-include"})
      .Case("std", {Nvcc::Host, "-std=", true})
      .Case("dependency-output", {Nvcc::Host, "-MF"})
      .Case("optimize", {Nvcc::Host, "-O", true})
      .Case("compile", {Nvcc::Alias, "-c"})
      .Case("debug", {Nvcc::Alias, "-g"})
      .Case("disable-warnings", {Nvcc::Alias, "-w"})
      .Case("generate-dependencies-with-compile", {Nvcc::Alias, "-MD"})
      .Cases({"dc", "device-c"}, {Nvcc::Alias, "-fgpu-rdc"})
      .Cases(
          {"expt-relaxed-constexpr", "expt-extended-lambda", "extended-lambda"},
          {Nvcc::Same})
      .Cases({"gencode",
              "generate-code",
              "arch",
              "gpu-architecture",
              "code",
              "gpu-code",
              "ccbin",
              "compiler-bindir",
              "Xptxas",
              "ptxas-options",
              "Xnvlink",
              "nvlink-options",
              "Xfatbin",
              "fatbin-options",
              "Xcudafe",
              "Xarchive",
              "archive-options",
              "Xlinker",
              "linker-options",
              "maxrregcount",
              "t",
              "threads",
              "split-compile",
              "cudart",
              "cudadevrt",
              "odir",
              "output-directory",
              "keep-dir",
              "diag-suppress",
              "diag-error",
              "diag-warn",
              "Werror",
              "library",
              "library-path",
              "ftz",
              "prec-div",
              "prec-sqrt",
              "fmad",
              "machine"},
             {Nvcc::DropValue})
      .Cases({"lineinfo",
              "generate-line-info",
              "G",
              "device-debug",
              "use_fast_math",
              "use-fast-math",
              "keep",
              "res-usage",
              "resource-usage",
              "Wno-deprecated-gpu-targets",
              "forward-unknown-to-host-compiler",
              "forward-unknown-to-host-linker",
              "allow-unsupported-compiler",
              "display-error-number",
              "no-display-error-number",
              "shared",
              "cuda",
              "cubin",
              "ptx",
              "fatbin",
              "device-link",
              "dlink",
              "restrict",
              "extensible-whole-program",
              "ewp"},
             {Nvcc::Drop})
      .Default({Nvcc::Pass});
}

/// Options whose value nvcc takes from the next argument when no '=' is
/// written (clang's own -I, -D, -o, ... are Pass and keep theirs).
static bool separateValue(StringRef Name, const NvccOption &O) {
  switch (O.Action) {
  case Nvcc::Unwrap:
  case Nvcc::Expand:
  case Nvcc::Language:
  case Nvcc::Rdc:
  case Nvcc::Stream:
  case Nvcc::Host:
  case Nvcc::DropValue:
    return true;
  default:
    return Name == "o" || Name == "I" || Name == "D" || Name == "U" ||
           Name == "isystem" || Name == "include" || Name == "MF" ||
           Name == "MT" || Name == "MQ";
  }
}

/// "'-fPIC'" as the shell would pass it to the host compiler: -fPIC.
static StringRef unquote(StringRef S) {
  S = S.trim();
  while (S.size() >= 2 && (S.front() == '\'' || S.front() == '"') &&
         S.back() == S.front())
    S = S.drop_front().drop_back();
  return S;
}

namespace {
class NvccTranslator {
public:
  NvccTranslator(StringRef File, StringRef Directory)
      : File(File), Directory(Directory) {}

  /// Translates nvcc's arguments \p Args (without the compiler).
  llvm::Error translate(llvm::ArrayRef<std::string> Args, unsigned Depth) {
    for (size_t I = 0; I < Args.size(); ++I) {
      StringRef A = Args[I];
      if (!A.starts_with("-") || A == "-") {
        if (!isTheFile(A))
          Out.Args.push_back(A.str());
        continue;
      }
      auto [Spelt, Value] = A.split('=');
      bool HasValue = A.contains('=');
      StringRef Name = Spelt.ltrim('-');
      NvccOption O = nvccOption(Name);
      if (O.Action == Nvcc::Pass) {
        passThrough(A, Args, I);
        continue;
      }
      std::string V = Value.str();
      if (!HasValue && separateValue(Name, O)) {
        if (I + 1 >= Args.size()) { // nvcc would reject it: drop it
          Out.Dropped.push_back(Spelt.str());
          continue;
        }
        V = Args[++I];
      }
      if (llvm::Error E = apply(Spelt, O, V, Depth))
        return E;
    }
    return llvm::Error::success();
  }

  HostCommand Out;
  std::string Language = "cuda";

private:
  bool isTheFile(StringRef A) const {
    if (A == File)
      return true;
    llvm::SmallString<256> Abs(A);
    if (!llvm::sys::path::is_absolute(Abs))
      llvm::sys::path::make_absolute(Directory, Abs);
    llvm::sys::path::remove_dots(Abs, true);
    return Abs == File;
  }

  /// clang's spelling of an option nvcc shares with it; -isystem=DIR (how
  /// CMake writes it for nvcc) becomes -isystem DIR.
  void passThrough(StringRef A, llvm::ArrayRef<std::string> Args, size_t &I) {
    if (A.consume_front("-isystem=")) {
      Out.Args.push_back("-isystem");
      Out.Args.push_back(A.str());
      return;
    }
    Out.Args.push_back(A.str());
    StringRef Name = A.ltrim('-');
    if (separateValue(Name, {Nvcc::Pass}) && I + 1 < Args.size())
      Out.Args.push_back(Args[++I]);
  }

  llvm::Error apply(StringRef Spelt, const NvccOption &O, const std::string &V,
                    unsigned Depth) {
    switch (O.Action) {
    case Nvcc::Unwrap: {
      llvm::SmallVector<StringRef, 4> Parts;
      StringRef(V).split(Parts, ',', -1, false);
      for (StringRef P : Parts)
        if (StringRef Host = unquote(P); !Host.empty())
          Out.Args.push_back(Host.str());
      return llvm::Error::success();
    }
    case Nvcc::Expand:
      return expand(V, Depth);
    case Nvcc::Language:
      Language = V == "cu" ? "cuda" : V;
      return llvm::Error::success();
    case Nvcc::Rdc:
      if (V == "true")
        Out.Args.push_back("-fgpu-rdc");
      return llvm::Error::success();
    case Nvcc::Stream:
      if (V == "per-thread" || V == "legacy")
        Out.Args.push_back("-fgpu-default-stream=" + V);
      else
        Out.Dropped.push_back(Spelt.str());
      return llvm::Error::success();
    case Nvcc::Host:
      if (O.Joined) {
        Out.Args.push_back(O.Spelling.str() + V);
      } else {
        Out.Args.push_back(O.Spelling.str());
        Out.Args.push_back(V);
      }
      return llvm::Error::success();
    case Nvcc::Alias:
      Out.Args.push_back(O.Spelling.str());
      if (O.Spelling == "-fgpu-rdc") // -dc: relocatable device code, -c
        Out.Args.push_back("-c");
      return llvm::Error::success();
    case Nvcc::Same:
      return llvm::Error::success();
    case Nvcc::Drop:
    case Nvcc::DropValue:
      Out.Dropped.push_back(Spelt.str());
      return llvm::Error::success();
    case Nvcc::Pass:
      break;
    }
    return llvm::Error::success();
  }

  llvm::Error expand(StringRef OptionsFile, unsigned Depth) {
    llvm::SmallString<256> Path(OptionsFile);
    if (!llvm::sys::path::is_absolute(Path))
      llvm::sys::path::make_absolute(Directory, Path);
    auto Buf = llvm::MemoryBuffer::getFile(Path);
    if (!Buf)
      return llvm::createStringError("cannot read the options file '" + Path +
                                     "': " + Buf.getError().message());
    if (Depth > 4)
      return llvm::createStringError("options files nested too deeply at '" +
                                     Path + "'");
    llvm::BumpPtrAllocator Alloc;
    llvm::StringSaver Saver(Alloc);
    llvm::SmallVector<const char *, 32> Argv;
    llvm::cl::TokenizeGNUCommandLine((*Buf)->getBuffer(), Saver, Argv);
    std::vector<std::string> Args(Argv.begin(), Argv.end());
    return translate(Args, Depth + 1);
  }

  StringRef File, Directory;
};
} // namespace

/// Adds \p Flag unless an argument of \p Args starts with \p Prefix.
static void addUnless(std::vector<std::string> &Args, StringRef Prefix,
                      StringRef Flag) {
  if (!llvm::any_of(Args, [&](const std::string &A) {
        return StringRef(A).starts_with(Prefix);
      }))
    Args.push_back(Flag.str());
}

llvm::Expected<HostCommand> cudaHostCommand(llvm::ArrayRef<std::string> Args,
                                            StringRef File, StringRef CudaPath,
                                            StringRef Directory, bool Override,
                                            StringRef Prelude) {
  HostCommand Out;
  std::string PathFlag = "--cuda-path=" + CudaPath.str();
  if (Args.empty())
    return Out;
  if (!isNvcc(Args[0])) { // clang in CUDA mode: the host side only
    for (size_t I = 0; I < Args.size(); ++I) {
      StringRef A = Args[I];
      if (A == "--cuda-device-only" || A == "--offload-device-only" ||
          A == "--cuda-compile-host-device" || A == "--offload-host-device")
        continue;
      if (Override && A.starts_with("--cuda-path")) {
        if (A == "--cuda-path")
          ++I;
        continue;
      }
      Out.Args.push_back(A.str());
    }
    addUnless(Out.Args, "--cuda-host-only", "--cuda-host-only");
    addUnless(Out.Args, "-nocudalib", "-nocudalib");
    addUnless(Out.Args, "--cuda-path", PathFlag);
    if (!Prelude.empty())
      Out.Args.insert(Out.Args.end(), {"-include", Prelude.str()});
    return Out;
  }
  NvccTranslator T(File, Directory);
  if (llvm::Error E = T.translate(Args.drop_front(), 0))
    return std::move(E);
  Out = std::move(T.Out);
  Out.Args.insert(Out.Args.begin(), "clang++");
  if (T.Language == "cuda") { // else nvcc -x c++: a host compile
    Out.Args.insert(Out.Args.end(),
                    {"--cuda-host-only", "-nocudalib", PathFlag});
    if (!Prelude.empty())
      Out.Args.insert(Out.Args.end(), {"-include", Prelude.str()});
  }
  Out.Args.insert(Out.Args.end(), {"-x", T.Language, File.str()});
  return Out;
}

} // namespace torch_tidy
