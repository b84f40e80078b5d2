//===- NvccHostPrelude.h - what nvcc gives host code and clang does not ---===//
// Answers: with which header does clang's host-side parse of a CUDA unit
// accept what nvcc's host pass accepts? nvcc's CUDA headers give host code
// the `min`/`max` overloads of CUDA's math library (int, unsigned, long,
// long long, float, double and the mixed signed/unsigned and float/double
// forms) as __host__ __device__ functions; clang's CUDA headers declare them
// for device code only, so `min(THREADS_PER_BLOCK, n)` in a grid computation
// fails to compile under clang. torch-tidy adds the host overloads (and
// nothing else) with `-include` to every CUDA unit it parses for the host.
#ifndef TORCH_TIDY_TOOL_BATCH_NVCCHOSTPRELUDE_H
#define TORCH_TIDY_TOOL_BATCH_NVCCHOSTPRELUDE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <string>

namespace torch_tidy {

/// The header's text.
llvm::StringRef nvccHostPreludeText();

/// The path of the header in \p Dir (the system's temporary folder when
/// empty), written there unless a file of that name already holds it. The
/// name carries a hash of the text, so the same text keeps the same path
/// (cache keys and shared preambles stay valid across runs).
llvm::Expected<std::string> nvccHostPrelude(llvm::StringRef Dir = "");

/// True for a path nvccHostPrelude() gives.
bool isNvccHostPrelude(llvm::StringRef Path);

} // namespace torch_tidy

#endif
