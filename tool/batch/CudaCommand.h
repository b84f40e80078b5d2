//===- CudaCommand.h - the host side of a CUDA compile command -*- C++ -*-===//
// Answers: is this compile command CUDA (nvcc, a .cu file, clang -x cuda),
// which clang command parses its host side, and where is the CUDA toolkit
// that command needs?
//
// torch-tidy analyses host code: a CUDA unit is parsed once, for the host
// (`-x cuda --cuda-host-only -nocudalib --cuda-path=DIR`); kernel bodies are
// in the AST, and the checks leave them alone (ast/DeviceCode.h). An nvcc
// command is translated: -Xcompiler/--compiler-options unwrapped, nvcc's
// long options spelt as clang's, `-x cu` as `-x cuda`, `-rdc=true` as
// -fgpu-rdc, `--default-stream per-thread` as -fgpu-default-stream=per-thread,
// --options-file expanded; --expt-relaxed-constexpr and
// --expt-extended-lambda are what clang does anyway. Options that only
// concern device code or nvcc itself (-gencode, -arch, -ccbin, -Xptxas,
// -lineinfo, --use_fast_math, ...) are dropped and named, so the summary can
// say so. No GPU architecture is passed: the host side does not depend on
// one.
//
// The toolkit: torch-tidy's --cuda-path, else $CUDA_HOME, else $CUDA_PATH,
// else the folder above the nvcc the command runs, else /usr/local/cuda,
// else Debian's /usr/lib/cuda (TORCH_TIDY_CUDA_SEARCH, a ':'-separated list,
// replaces these two, for packagers and tests). A toolkit is a folder with
// include/cuda_runtime.h and bin/ (clang requires both).
//===----------------------------------------------------------------------===//
#ifndef TORCH_TIDY_TOOL_CUDACOMMAND_H
#define TORCH_TIDY_TOOL_CUDACOMMAND_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <optional>
#include <string>
#include <vector>

namespace torch_tidy {

/// True if \p Args (argv, the compiler first) compiles \p File as CUDA: the
/// compiler is nvcc, the file is .cu or .cuh, or `-x cuda` is given.
bool isCudaCommand(llvm::ArrayRef<std::string> Args, llvm::StringRef File);

/// Why \p Dir is not a CUDA toolkit clang can use, or nullopt when it is.
std::optional<std::string> cudaToolkitProblem(llvm::StringRef Dir);

/// The CUDA toolkit for a command run by \p Compiler (see the file comment
/// for the order); \p Explicit is torch-tidy's --cuda-path. Fails with a
/// one-line message saying where it looked and how to point torch-tidy at
/// one.
llvm::Expected<std::string> findCudaToolkit(llvm::StringRef Explicit,
                                            llvm::StringRef Compiler);

struct HostCommand {
  std::vector<std::string> Args; ///< clang's argv, the compiler first
  /// nvcc's options that have no host-side meaning, as written (the option
  /// name, without its value).
  std::vector<std::string> Dropped;
};

/// The clang command that parses the host side of the CUDA compile command
/// \p Args for \p File, with \p CudaPath as the toolkit. \p Directory
/// resolves --options-file. An nvcc command is translated; a clang command
/// gets --cuda-host-only and -nocudalib, and --cuda-path unless it has one
/// and \p Override is false. A CUDA command includes \p Prelude first
/// (NvccHostPrelude.h) when one is given. Fails only on an unreadable
/// options file.
llvm::Expected<HostCommand>
cudaHostCommand(llvm::ArrayRef<std::string> Args, llvm::StringRef File,
                llvm::StringRef CudaPath, llvm::StringRef Directory,
                bool Override, llvm::StringRef Prelude = "");

} // namespace torch_tidy

#endif // TORCH_TIDY_TOOL_CUDACOMMAND_H
