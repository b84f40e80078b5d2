#include "json.h"

#include <cstdio>
#include <stdexcept>

namespace harness {

const JsonValue* JsonValue::get(const std::string& key) const {
  for (const auto& kv : object)
    if (kv.first == key) return &kv.second;
  return nullptr;
}

std::string JsonValue::str(const std::string& key) const {
  const JsonValue* v = get(key);
  return v && v->type == String ? v->string : "";
}

long JsonValue::integer(const std::string& key, long fallback) const {
  const JsonValue* v = get(key);
  return v && v->type == Number ? static_cast<long>(v->number) : fallback;
}

namespace {
struct Parser {
  const std::string& s;
  size_t i = 0;

  [[noreturn]] void fail(const std::string& what) {
    throw std::runtime_error("malformed JSON at offset " + std::to_string(i) +
                             ": " + what);
  }
  void ws() {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\n' || s[i] == '\r' ||
                            s[i] == '\t'))
      ++i;
  }
  bool eat(char c) {
    ws();
    if (i < s.size() && s[i] == c) return ++i, true;
    return false;
  }
  void expect(char c) {
    if (!eat(c)) fail(std::string("expected '") + c + "'");
  }
  static void utf8(std::string& out, unsigned cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }
  std::string string() {
    expect('"');
    std::string out;
    while (i < s.size() && s[i] != '"') {
      char c = s[i++];
      if (c != '\\') {
        out += c;
        continue;
      }
      if (i >= s.size()) break;
      char e = s[i++];
      switch (e) {
        case 'n': out += '\n'; break;
        case 't': out += '\t'; break;
        case 'r': out += '\r'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'u':
          if (i + 4 > s.size()) fail("bad \\u escape");
          utf8(out, static_cast<unsigned>(std::stoul(s.substr(i, 4), nullptr, 16)));
          i += 4;
          break;
        default: out += e;  // \" \\ \/
      }
    }
    if (i >= s.size()) fail("unterminated string");
    ++i;
    return out;
  }
  JsonValue value() {
    ws();
    if (i >= s.size()) fail("unexpected end");
    JsonValue v;
    char c = s[i];
    if (c == '{') {
      ++i;
      v.type = JsonValue::Object;
      if (eat('}')) return v;
      do {
        ws();
        std::string key = string();
        expect(':');
        v.object.emplace_back(std::move(key), value());
      } while (eat(','));
      expect('}');
    } else if (c == '[') {
      ++i;
      v.type = JsonValue::Array;
      if (eat(']')) return v;
      do v.array.push_back(value());
      while (eat(','));
      expect(']');
    } else if (c == '"') {
      v.type = JsonValue::String;
      v.string = string();
    } else if (s.compare(i, 4, "true") == 0 || s.compare(i, 5, "false") == 0) {
      v.type = JsonValue::Bool;
      v.boolean = s[i] == 't';
      i += v.boolean ? 4 : 5;
    } else if (s.compare(i, 4, "null") == 0) {
      i += 4;
    } else {
      size_t end = s.find_first_not_of("+-0123456789.eE", i);
      if (end == i) fail("unexpected character");
      v.type = JsonValue::Number;
      v.number = std::stod(s.substr(i, end - i));
      i = end;
    }
    return v;
  }
};
}  // namespace

JsonValue parse_json(const std::string& text) {
  Parser p{text};
  JsonValue v = p.value();
  p.ws();
  if (p.i != text.size()) p.fail("trailing characters");
  return v;
}

std::string json_quote(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

}  // namespace harness
