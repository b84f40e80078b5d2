#include "diagnostics.h"

#include <cstdlib>
#include <sstream>
#include <stdexcept>

#include "json.h"

namespace harness {

std::string Diagnostic::location() const {
  if (file.empty()) return "(no location)";
  if (line >= 0) return file + ":" + std::to_string(line);
  if (offset >= 0) return file + "@" + std::to_string(offset);
  return file;
}

namespace {

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

// A YAML scalar as clang-tidy writes it: plain, 'single' or "double" quoted.
std::string yaml_scalar(std::string v) {
  v = trim(v);
  if (v.size() >= 2 && v.front() == '\'' && v.back() == '\'') {
    std::string out;
    for (size_t i = 1; i + 1 < v.size(); ++i) {
      out += v[i];
      if (v[i] == '\'' && v[i + 1] == '\'') ++i;  // '' -> '
    }
    return out;
  }
  if (v.size() >= 2 && v.front() == '"' && v.back() == '"') {
    try {
      return parse_json(v).string;
    } catch (const std::exception&) {
      return v.substr(1, v.size() - 2);
    }
  }
  return v;
}

// clang-tidy --export-fixes: "- DiagnosticName: x" starts an entry; the
// first Message/FilePath/FileOffset after it (its DiagnosticMessage) count.
std::vector<Diagnostic> parse_yaml(const std::string& text) {
  std::vector<Diagnostic> out;
  std::istringstream in(text);
  std::string raw;
  while (std::getline(in, raw)) {
    std::string line = trim(raw);
    if (line.rfind("- ", 0) == 0) line = trim(line.substr(2));
    size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string key = line.substr(0, colon);
    const std::string value = yaml_scalar(line.substr(colon + 1));
    if (key == "DiagnosticName") {
      out.emplace_back();
      out.back().check = value;
    } else if (!out.empty()) {
      Diagnostic& d = out.back();
      if (key == "Message" && d.message.empty()) d.message = value;
      if (key == "FilePath" && d.file.empty()) d.file = value;
      if (key == "FileOffset" && d.offset < 0 && !value.empty())
        d.offset = std::strtol(value.c_str(), nullptr, 10);
    }
  }
  return out;
}

// torch-tidy JSON: any object with a string "check" is a finding.
void collect_json(const JsonValue& v, std::vector<Diagnostic>& out) {
  if (v.type == JsonValue::Object && v.get("check") &&
      v.get("check")->type == JsonValue::String) {
    Diagnostic d;
    d.check = v.str("check");
    d.file = v.str("file");
    if (d.file.empty()) d.file = v.str("path");
    d.line = v.integer("line");
    d.message = v.str("message");
    out.push_back(d);
    return;
  }
  for (const auto& e : v.array) collect_json(e, out);
  for (const auto& kv : v.object) collect_json(kv.second, out);
}

// SARIF 2.1.0: runs[].results[] with ruleId and locations[0].physicalLocation.
std::vector<Diagnostic> parse_sarif(const JsonValue& root) {
  std::vector<Diagnostic> out;
  for (const auto& run : root.get("runs")->array) {
    const JsonValue* results = run.get("results");
    if (!results) continue;
    for (const auto& res : results->array) {
      Diagnostic d;
      d.check = res.str("ruleId");
      if (const JsonValue* rule = res.get("rule"); d.check.empty() && rule)
        d.check = rule->str("id");
      if (const JsonValue* msg = res.get("message")) d.message = msg->str("text");
      const JsonValue* locs = res.get("locations");
      if (locs && !locs->array.empty()) {
        if (const JsonValue* phys = locs->array[0].get("physicalLocation")) {
          if (const JsonValue* art = phys->get("artifactLocation"))
            d.file = art->str("uri");
          if (const JsonValue* region = phys->get("region"))
            d.line = region->integer("startLine");
        }
      }
      out.push_back(d);
    }
  }
  return out;
}

}  // namespace

DiagnosticsFile parse_diagnostics(const std::string& text) {
  DiagnosticsFile f;
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && (text[first] == '{' || text[first] == '[')) {
    JsonValue root = parse_json(text);
    const JsonValue* runs = root.get("runs");
    if (root.type == JsonValue::Object && runs && runs->type == JsonValue::Array) {
      f.format = "SARIF";
      f.diagnostics = parse_sarif(root);
    } else {
      f.format = "JSON";
      collect_json(root, f.diagnostics);
    }
    return f;
  }
  if (text.find("DiagnosticName:") != std::string::npos ||
      text.find("Diagnostics:") != std::string::npos) {
    f.format = "export-fixes YAML";
    f.diagnostics = parse_yaml(text);
    return f;
  }
  throw std::runtime_error(
      "unrecognised diagnostics format (expected clang-tidy --export-fixes "
      "YAML, JSON or SARIF)");
}

}  // namespace harness
