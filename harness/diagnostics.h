// Reads torch-tidy's exported diagnostics: clang-tidy --export-fixes YAML,
// torch-tidy's JSON findings, or SARIF. The format is detected from the
// content. The parsers are deliberately small and tolerant.
#pragma once

#include <string>
#include <vector>

namespace harness {

struct Diagnostic {
  std::string check;  // e.g. "torch-discarded-to"
  std::string file;
  long line = -1;     // JSON / SARIF
  long offset = -1;   // YAML FileOffset
  std::string message;

  std::string location() const;  // "file:line", "file@offset" or "file"
};

struct DiagnosticsFile {
  std::string format;  // "export-fixes YAML", "JSON", "SARIF"
  std::vector<Diagnostic> diagnostics;
};

// Throws std::runtime_error with a one-line message when the text is in
// none of the formats.
DiagnosticsFile parse_diagnostics(const std::string& text);

}  // namespace harness
