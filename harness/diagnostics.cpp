#include "diagnostics.h"

#include <cerrno>
#include <cstdlib>
#include <stdexcept>

#include <nlohmann/json.hpp>

#ifndef HARNESS_HAS_YAML
#define HARNESS_HAS_YAML 0
#endif
#if HARNESS_HAS_YAML
#include <yaml-cpp/yaml.h>
#endif

namespace harness {

std::string Diagnostic::location() const {
  if (file.empty()) return "(no location)";
  if (line >= 0) return file + ":" + std::to_string(line);
  if (offset >= 0) return file + "@" + std::to_string(offset);
  return file;
}

bool yaml_supported() { return HARNESS_HAS_YAML != 0; }

namespace {

const char* kFormats =
    "expected clang-tidy --export-fixes YAML, torch-tidy JSON or SARIF";

// Keeps keys in document order, so findings are listed in file order.
using Json = nlohmann::ordered_json;

// obj[key] when obj is an object that has it, else nullptr.
const Json* member(const Json& obj, const char* key) {
  if (!obj.is_object()) return nullptr;
  auto it = obj.find(key);
  return it == obj.end() ? nullptr : &*it;
}

std::string json_string(const Json& obj, const char* key) {
  const Json* v = member(obj, key);
  return v && v->is_string() ? v->get<std::string>() : "";
}

// -1 when absent, not a number, or out of range.
long json_integer(const Json& obj, const char* key) {
  const Json* v = member(obj, key);
  if (!v) return -1;
  if (v->is_number_integer()) return v->get<long>();
  if (v->is_number_float()) {
    const double d = v->get<double>();
    if (d >= 0 && d < 1e15) return static_cast<long>(d);
  }
  return -1;
}

Json parse_json(const std::string& text) {
  try {
    return Json::parse(text);
  } catch (const Json::exception& e) {
    // "[json.exception.parse_error.101] parse error at line 1, ...": drop
    // the id; the rest is one line (control characters come escaped).
    std::string what = e.what();
    const size_t id_end = what.find("] ");
    if (what.rfind("[json.exception.", 0) == 0 && id_end != std::string::npos)
      what = what.substr(id_end + 2);
    throw std::runtime_error("malformed JSON: " + what);
  }
}

// torch-tidy JSON: any object with a string "check" is a finding, found
// anywhere in the document (walked without recursion: input depth is
// unbounded).
std::vector<Diagnostic> json_findings(const Json& root) {
  std::vector<Diagnostic> out;
  std::vector<const Json*> todo{&root};
  while (!todo.empty()) {
    const Json& v = *todo.back();
    todo.pop_back();
    const Json* check = member(v, "check");
    if (check && check->is_string()) {
      Diagnostic d;
      d.check = check->get<std::string>();
      d.file = json_string(v, "file");
      if (d.file.empty()) d.file = json_string(v, "path");
      d.line = json_integer(v, "line");
      d.message = json_string(v, "message");
      out.push_back(d);
      continue;
    }
    if (v.is_structured())  // pushed last-first, so popped in order
      for (auto it = v.crbegin(); it != v.crend(); ++it) todo.push_back(&*it);
  }
  return out;
}

// SARIF 2.1.0: runs[].results[] with ruleId (or rule.id), message.text and
// locations[0].physicalLocation.
std::vector<Diagnostic> sarif_findings(const Json& runs) {
  std::vector<Diagnostic> out;
  for (const Json& run : runs) {
    const Json* results = member(run, "results");
    if (!results || !results->is_array()) continue;
    for (const Json& res : *results) {
      Diagnostic d;
      d.check = json_string(res, "ruleId");
      if (const Json* rule = member(res, "rule"); d.check.empty() && rule)
        d.check = json_string(*rule, "id");
      if (const Json* msg = member(res, "message"))
        d.message = json_string(*msg, "text");
      const Json* locs = member(res, "locations");
      if (locs && locs->is_array() && !locs->empty()) {
        if (const Json* phys = member(locs->front(), "physicalLocation")) {
          if (const Json* art = member(*phys, "artifactLocation"))
            d.file = json_string(*art, "uri");
          if (const Json* region = member(*phys, "region"))
            d.line = json_integer(*region, "startLine");
        }
      }
      out.push_back(d);
    }
  }
  return out;
}

#if HARNESS_HAS_YAML
// Looks key up in map (when it is a mapping) without inserting it. (A const
// YAML::Node's operator[] returns a node that throws when used if the key
// is absent; this never does.)
bool yaml_find(const YAML::Node& map, const char* key, YAML::Node& value) {
  if (map.IsMap())
    for (const auto& kv : map)
      if (kv.first.IsScalar() && kv.first.Scalar() == key) {
        value = kv.second;
        return true;
      }
  return false;
}

// map[key], or a null node.
YAML::Node yaml_member(const YAML::Node& map, const char* key) {
  YAML::Node value;
  yaml_find(map, key, value);
  return value;
}

std::string yaml_string(const YAML::Node& map, const char* key) {
  const YAML::Node v = yaml_member(map, key);
  return v.IsScalar() ? v.Scalar() : "";
}

// -1 when absent or not a non-negative decimal integer.
long yaml_integer(const YAML::Node& map, const char* key) {
  const std::string s = yaml_string(map, key);
  if (s.empty() || s[0] == '-') return -1;
  char* end = nullptr;
  errno = 0;
  const long n = std::strtol(s.c_str(), &end, 10);
  return *end || errno ? -1 : n;
}

std::string yaml_error(const YAML::Exception& e) {
  std::string where;
  if (!e.mark.is_null())
    where = " at line " + std::to_string(e.mark.line + 1) + ", column " +
            std::to_string(e.mark.column + 1);
  return "malformed YAML" + where + ": " + e.msg + " (" + kFormats + ")";
}

// clang-tidy --export-fixes: Diagnostics[] with DiagnosticName and, in its
// DiagnosticMessage (or in the entry itself, as clang-tidy <= 8 wrote it),
// Message, FilePath and FileOffset. False when root is not that document.
bool export_fixes_findings(const YAML::Node& root, std::vector<Diagnostic>& out) {
  YAML::Node diags;
  if (!yaml_find(root, "Diagnostics", diags)) return false;
  if (diags.IsNull()) return true;  // "Diagnostics:" with no entries
  if (!diags.IsSequence())
    throw std::runtime_error("export-fixes YAML: 'Diagnostics' is not a list");
  for (const auto& entry : diags) {
    if (!yaml_member(entry, "DiagnosticName").IsScalar()) continue;
    const YAML::Node msg = yaml_member(entry, "DiagnosticMessage");
    const YAML::Node& fields = msg.IsMap() ? msg : entry;
    Diagnostic d;
    d.check = yaml_string(entry, "DiagnosticName");
    d.message = yaml_string(fields, "Message");
    d.file = yaml_string(fields, "FilePath");
    d.offset = yaml_integer(fields, "FileOffset");
    out.push_back(d);
  }
  return true;
}
#endif

}  // namespace

DiagnosticsFile parse_diagnostics(const std::string& text) {
  DiagnosticsFile f;
  size_t first = text.rfind("\xEF\xBB\xBF", 0) == 0 ? 3 : 0;  // UTF-8 BOM
  first = text.find_first_not_of(" \t\r\n", first);
  if (first != std::string::npos && (text[first] == '{' || text[first] == '[')) {
    const Json root = parse_json(text);
    const Json* runs = member(root, "runs");
    if (runs && runs->is_array()) {
      f.format = "SARIF";
      f.diagnostics = sarif_findings(*runs);
    } else {
      f.format = "JSON";
      f.diagnostics = json_findings(root);
    }
    return f;
  }
#if HARNESS_HAS_YAML
  try {
    if (export_fixes_findings(YAML::Load(text), f.diagnostics)) {
      f.format = "export-fixes YAML";
      return f;
    }
  } catch (const YAML::Exception& e) {
    throw std::runtime_error(yaml_error(e));
  }
#else
  if (text.find("Diagnostics:") != std::string::npos)
    throw std::runtime_error(
        "this torch-tidy-harness was built without yaml-cpp and cannot read "
        "export-fixes YAML; give it torch-tidy's --format=json or "
        "--format=sarif report instead");
#endif
  throw std::runtime_error(std::string("unrecognised diagnostics format (") +
                           kFormats + ")");
}

}  // namespace harness
