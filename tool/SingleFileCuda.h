//===- SingleFileCuda.h - CUDA sources in a single-file run -----*- C++ -*-===//
// Answers: what does a single-file run (the editor's, a pre-commit hook's,
// `torch-tidy file.cu -- flags`) add to clang-tidy's arguments so that a
// CUDA source is parsed on its host side? With flags after "--": clang's
// --cuda-host-only, -nocudalib and --cuda-path (clang-tidy would otherwise
// analyse the first of clang's CUDA jobs, the device side). With a
// compilation database whose entry for a source is CUDA (nvcc's command):
// the database rewritten by RealDatabase.h into a temporary folder, and -p
// pointed there. Nothing for C++ sources.
#ifndef TORCH_TIDY_TOOL_SINGLEFILECUDA_H
#define TORCH_TIDY_TOOL_SINGLEFILECUDA_H

#include "tool/CommandLine.h"
#include "clang/Tooling/CompilationDatabase.h"
#include "llvm/Support/Error.h"
#include <string>
#include <vector>

namespace torch_tidy {

/// Adjusts \p Args (clang-tidy's arguments, argv[0] excluded) of the
/// single-file run \p C, whose database \p DB is null under "--". A
/// rewritten database goes into a new folder, returned in \p DatabaseDir for
/// the caller to remove. Fails with a one-line message: no CUDA toolkit, an
/// unwritable folder, a database that cannot be rewritten.
llvm::Error adjustForCudaSources(const CommandLine &C,
                                 const clang::tooling::CompilationDatabase *DB,
                                 std::vector<std::string> &Args,
                                 std::string &DatabaseDir);

/// Points the -p option in \p Args (-p DIR, -p=DIR, --p=DIR) at \p Dir, or
/// adds one when there is none.
void pointBuildPathAt(std::vector<std::string> &Args, llvm::StringRef Dir);

} // namespace torch_tidy

#endif // TORCH_TIDY_TOOL_SINGLEFILECUDA_H
