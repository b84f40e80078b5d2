// Reads torch-tidy's exported diagnostics: clang-tidy --export-fixes YAML
// (yaml-cpp), torch-tidy's JSON findings or SARIF (nlohmann/json). The
// format is taken from the content. Fields missing from a finding are left
// empty; input that is not well-formed is an error.
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

// Throws std::runtime_error with a one-line message when the text is
// malformed or in none of the formats.
DiagnosticsFile parse_diagnostics(const std::string& text);

// False when the harness was built without yaml-cpp (see CMakeLists.txt):
// export-fixes YAML is then rejected with a message saying so.
bool yaml_supported();

}  // namespace harness
