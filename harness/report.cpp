#include "report.h"

#include <algorithm>

#include <nlohmann/json.hpp>

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
  using Json = nlohmann::ordered_json;  // keys in the order written here
  // -1 (unknown) becomes null.
  auto or_null = [](long v) { return v < 0 ? Json() : Json(v); };
  Json doc = {{"tool", "torch-tidy-harness"},
              {"libtorch", info.libtorch},
              {"device", info.device},
              {"device_name", info.device_name},
              {"built_with_cuda", info.built_with_cuda},
              {"date", info.date},
              {"results", Json::array()}};
  for (const Result& r : results) {
    Json metrics = Json::object();  // NaN and infinities are written as null
    for (const auto& m : r.metrics) metrics[m.first] = m.second;
    doc["results"].push_back({{"check", r.check},
                              {"device", r.device},
                              {"bad_effect", r.bad_effect},
                              {"fixed_effect", r.fixed_effect},
                              {"verdict", verdict_name(r.verdict)},
                              {"reason", r.reason},
                              {"metrics", metrics}});
  }
  if (!verdicts.empty()) {
    Json& diags = doc["diagnostics"] = Json::array();
    for (const auto& v : verdicts)
      diags.push_back({{"check", v.diagnostic.check},
                       {"file", v.diagnostic.file},
                       {"line", or_null(v.diagnostic.line)},
                       {"offset", or_null(v.diagnostic.offset)},
                       {"scenario", v.scenario},
                       {"verdict", v.verdict}});
  }
  // Paths from a diagnostics file need not be UTF-8: replace bad bytes
  // rather than throw.
  os << doc.dump(2, ' ', false, Json::error_handler_t::replace) << "\n";
}

}  // namespace harness
