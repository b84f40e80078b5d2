//===- BatchOptions.h - the command line of batch mode -------------------===//
// Splits argv into the driver's own flags and the clang-tidy flags that each
// worker receives.
#ifndef TORCH_TIDY_TOOL_BATCHOPTIONS_H
#define TORCH_TIDY_TOOL_BATCHOPTIONS_H

#include <optional>
#include <string>
#include <vector>

namespace torch_tidy {

struct BatchOptions {
  // The driver's flags.
  std::optional<unsigned> Jobs;
  std::string Format = "text";
  std::optional<std::string> Output, Baseline, WriteBaseline, DiffRef, DiffFile,
      Shard, SourceRoot;
  std::string DocBaseUrl =
      "https://github.com/torch-tidy/torch-tidy/blob/main/docs/checks/";
  bool MergeSarif = false;
  bool Quiet = false;
  // What the workers get.
  std::vector<std::string> TidyArgs; ///< clang-tidy options before "--"
  std::vector<std::string> Sources;  ///< positional arguments
  bool HasFixed = false;             ///< "--" given
  std::vector<std::string> Fixed;    ///< arguments after "--"
  std::optional<std::string> BuildPath, WarningsAsErrors;
  // What the parse saw.
  bool SawBatchFlag = false, SawInfoFlag = false;
  std::optional<std::string> Unsupported; ///< e.g. "--fix"
  std::optional<std::string> Error;
};

BatchOptions parseBatchOptions(const std::vector<std::string> &Args);

} // namespace torch_tidy

#endif
