//===- NvccHostPrelude.cpp - what nvcc gives host code and clang does not -===//
#include "tool/batch/NvccHostPrelude.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA1.h"
#include "llvm/Support/raw_ostream.h"

namespace torch_tidy {

namespace {
/// One overload for each pair of argument types nvcc's math_functions.hpp
/// has, as host functions; `static inline` like nvcc's.
std::string makeText() {
  struct Form {
    const char *Result, *A, *B;
  };
  const Form Forms[] = {
      {"int", "int", "int"},
      {"unsigned int", "unsigned int", "unsigned int"},
      {"unsigned int", "int", "unsigned int"},
      {"unsigned int", "unsigned int", "int"},
      {"long int", "long int", "long int"},
      {"unsigned long int", "unsigned long int", "unsigned long int"},
      {"unsigned long int", "long int", "unsigned long int"},
      {"unsigned long int", "unsigned long int", "long int"},
      {"long long int", "long long int", "long long int"},
      {"unsigned long long int", "unsigned long long int",
       "unsigned long long int"},
      {"unsigned long long int", "long long int", "unsigned long long int"},
      {"unsigned long long int", "unsigned long long int", "long long int"},
      {"float", "float", "float"},
      {"double", "double", "double"},
      {"double", "float", "double"},
      {"double", "double", "float"},
  };
  std::string Text =
      "// Added by torch-tidy to CUDA units parsed for the host: the min/max\n"
      "// overloads nvcc's headers give host code and clang's do not.\n"
      "#ifndef TORCH_TIDY_NVCC_HOST_PRELUDE\n"
      "#define TORCH_TIDY_NVCC_HOST_PRELUDE\n"
      "#if defined(__CUDA__) && !defined(__CUDA_ARCH__) && "
      "defined(__cplusplus)\n";
  for (const char *Name : {"min", "max"})
    for (const Form &F : Forms)
      Text += std::string("static inline __attribute__((host)) ") + F.Result +
              " " + Name + "(const " + F.A + " a, const " + F.B +
              " b) { return (" + F.Result + ")(a " +
              (Name[1] == 'i' ? "<" : ">") + " b ? a : b); }\n";
  Text += "#endif\n#endif\n";
  return Text;
}
} // namespace

llvm::StringRef nvccHostPreludeText() {
  static const std::string Text = makeText();
  return Text;
}

llvm::Expected<std::string> nvccHostPrelude(llvm::StringRef Dir) {
  llvm::StringRef Text = nvccHostPreludeText();
  llvm::SmallString<256> Path;
  if (Dir.empty())
    llvm::sys::path::system_temp_directory(/*ErasedOnReboot=*/true, Path);
  else
    Path = Dir;
  (void)llvm::sys::fs::make_absolute(Path); // a command may run elsewhere
  std::string Hash =
      llvm::toHex(llvm::SHA1::hash(llvm::arrayRefFromStringRef(Text)),
                  /*LowerCase=*/true)
          .substr(0, 16);
  llvm::sys::path::append(Path, "torch-tidy-nvcc-host-" + Hash + ".h");
  if (auto Buf = llvm::MemoryBuffer::getFile(Path);
      Buf && (*Buf)->getBuffer() == Text)
    return Path.str().str();
  // Written whole under another name, then renamed: a parallel run never
  // reads half a header.
  llvm::SmallString<256> Tmp;
  int FD = -1;
  if (std::error_code EC =
          llvm::sys::fs::createUniqueFile(Path + ".%%%%%%%%.tmp", FD, Tmp))
    return llvm::createStringError("cannot write '" + Path +
                                   "': " + EC.message());
  {
    llvm::raw_fd_ostream OS(FD, /*shouldClose=*/true);
    OS << Text;
    if (OS.has_error()) {
      OS.clear_error();
      (void)llvm::sys::fs::remove(Tmp);
      return llvm::createStringError("cannot write '" + Path + "'");
    }
  }
  if (std::error_code EC = llvm::sys::fs::rename(Tmp, Path)) {
    (void)llvm::sys::fs::remove(Tmp);
    return llvm::createStringError("cannot write '" + Path +
                                   "': " + EC.message());
  }
  return Path.str().str();
}

bool isNvccHostPrelude(llvm::StringRef Path) {
  llvm::StringRef Name = llvm::sys::path::filename(Path);
  return Name.starts_with("torch-tidy-nvcc-host-") && Name.ends_with(".h");
}

} // namespace torch_tidy
