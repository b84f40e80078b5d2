//===--- ResourceDir.h - Which clang resource directory to inject ---------===//
//
// Answers: which clang resource directory (stddef.h, the CUDA wrappers...)
// does torch-tidy hand every parse when the command line names none? The
// one beside the executable (bin/../lib/clang/N, as in the release bundle,
// wherever it was unpacked) when it holds clang's headers, else the one the
// build was configured with (TORCH_TIDY_RESOURCE_DIR), else none.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <string>

namespace torch_tidy {

/// Empty when neither directory exists.
const std::string &resourceDir();

} // namespace torch_tidy
