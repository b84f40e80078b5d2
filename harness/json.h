// A tiny tolerant JSON reader (no dependencies), enough for diagnostics
// files: objects, arrays, strings (with escapes), numbers, literals.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace harness {

struct JsonValue {
  enum Type { Null, Bool, Number, String, Array, Object } type = Null;
  bool boolean = false;
  double number = 0;
  std::string string;
  std::vector<JsonValue> array;
  std::vector<std::pair<std::string, JsonValue>> object;

  const JsonValue* get(const std::string& key) const;  // Object member
  std::string str(const std::string& key) const;       // "" if absent
  long integer(const std::string& key, long fallback = -1) const;
};

// Throws std::runtime_error on malformed input.
JsonValue parse_json(const std::string& text);

// Writes s as a JSON string literal (with quotes).
std::string json_quote(const std::string& s);

}  // namespace harness
