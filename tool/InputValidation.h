//===- InputValidation.h - reading and checking torch-tidy's argv --------===//
// clang-tidy recovers from bad input (a missing file, a broken compilation
// database, a misspelt check) with warnings and carries on. torch-tidy is
// used as a CI gate, so it rejects such input up front with one line.
#ifndef TORCH_TIDY_TOOL_INPUTVALIDATION_H
#define TORCH_TIDY_TOOL_INPUTVALIDATION_H

#include "llvm/ADT/StringRef.h"
#include <optional>
#include <string>
#include <vector>

namespace torch_tidy {

/// The parts of a clang-tidy command line that torch-tidy looks at.
struct Invocation {
  std::vector<std::string> Sources; ///< positional arguments before "--"
  std::optional<std::string> BuildPath, Checks, Config, ConfigFile;
  bool HasResourceDir = false;
  bool HasFixedCommand = false; ///< "--" given: no compilation database
  bool WantsVersion = false;
};

/// True for a clang-tidy option that takes a value ("-p build", "-p=build").
bool tidyOptionTakesValue(llvm::StringRef Name);

Invocation parseInvocation(const std::vector<std::string> &Args);

/// A one-line description of what is wrong with the input, if anything.
std::optional<std::string> validateInputs(const Invocation &Inv);

/// True when some .clang-tidy above the inputs (or the working directory)
/// sets 'Checks', so that torch-tidy must not impose its default.
bool configFileSetsChecks(const Invocation &Inv);

} // namespace torch_tidy

#endif
