#include "report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "json.h"

namespace harness {

namespace {
void row(std::ostream& os, const std::vector<std::string>& cells,
         const std::vector<size_t>& width) {
  os << "|";
  for (size_t i = 0; i < cells.size(); ++i)
    os << " " << cells[i] << std::string(width[i] - cells[i].size(), ' ')
       << " |";
  os << "\n";
}

std::string number(double v) {
  if (std::isnan(v) || std::isinf(v)) return "null";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}
// -1 (unknown) becomes null.
std::string or_null(long v) { return v < 0 ? "null" : std::to_string(v); }
}  // namespace

// A Markdown table, so it can be pasted into docs as it is.
void print_table(std::ostream& os, const std::vector<Result>& results) {
  std::vector<std::vector<std::string>> rows = {
      {"check", "device", "bad effect", "fixed effect", "verdict"}};
  for (const auto& r : results)
    rows.push_back({r.check, r.device, r.bad_effect, r.fixed_effect,
                    verdict_name(r.verdict)});
  std::vector<size_t> width(5, 0);
  for (const auto& cells : rows)
    for (size_t i = 0; i < cells.size(); ++i)
      width[i] = std::max(width[i], cells[i].size());
  row(os, rows[0], width);
  os << "|";
  for (size_t w : width) os << std::string(w + 2, '-') << "|";
  os << "\n";
  for (size_t i = 1; i < rows.size(); ++i) row(os, rows[i], width);
  bool header = false;
  for (const auto& r : results) {
    if (r.reason.empty()) continue;
    if (!header) os << "\nReasons:\n";
    header = true;
    os << "- " << r.check << " (" << verdict_name(r.verdict)
       << "): " << r.reason << "\n";
  }
}

void print_diagnostics(std::ostream& os, const std::string& path,
                       const std::string& format,
                       const std::vector<DiagnosticVerdict>& verdicts) {
  os << "Diagnostics from " << path << " (" << format << "): "
     << verdicts.size() << " finding(s)\n";
  for (const auto& v : verdicts) {
    os << "  " << v.diagnostic.location() << ": " << v.diagnostic.check
       << " -> ";
    if (v.scenario.empty())
      os << "no scenario\n";
    else
      os << "scenario " << v.scenario << ": " << v.verdict << "\n";
  }
  os << "\n";
}

void write_json(std::ostream& os, const RunInfo& info,
                const std::vector<Result>& results,
                const std::vector<DiagnosticVerdict>& verdicts) {
  os << "{\n  \"tool\": \"torch-tidy-harness\",\n"
     << "  \"libtorch\": " << json_quote(info.libtorch) << ",\n"
     << "  \"device\": " << json_quote(info.device) << ",\n"
     << "  \"device_name\": " << json_quote(info.device_name) << ",\n"
     << "  \"built_with_cuda\": " << (info.built_with_cuda ? "true" : "false")
     << ",\n  \"date\": " << json_quote(info.date) << ",\n  \"results\": [";
  for (size_t i = 0; i < results.size(); ++i) {
    const Result& r = results[i];
    os << (i ? "," : "") << "\n    {\"check\": " << json_quote(r.check)
       << ", \"device\": " << json_quote(r.device)
       << ", \"bad_effect\": " << json_quote(r.bad_effect)
       << ", \"fixed_effect\": " << json_quote(r.fixed_effect)
       << ", \"verdict\": " << json_quote(verdict_name(r.verdict))
       << ", \"reason\": " << json_quote(r.reason) << ", \"metrics\": {";
    for (size_t m = 0; m < r.metrics.size(); ++m)
      os << (m ? ", " : "") << json_quote(r.metrics[m].first) << ": "
         << number(r.metrics[m].second);
    os << "}}";
  }
  os << "\n  ]";
  if (!verdicts.empty()) {
    os << ",\n  \"diagnostics\": [";
    for (size_t i = 0; i < verdicts.size(); ++i) {
      const auto& v = verdicts[i];
      os << (i ? "," : "") << "\n    {\"check\": "
         << json_quote(v.diagnostic.check)
         << ", \"file\": " << json_quote(v.diagnostic.file)
         << ", \"line\": " << or_null(v.diagnostic.line)
         << ", \"offset\": " << or_null(v.diagnostic.offset)
         << ", \"scenario\": " << json_quote(v.scenario)
         << ", \"verdict\": " << json_quote(v.verdict) << "}";
    }
    os << "\n  ]";
  }
  os << "\n}\n";
}

}  // namespace harness
