// torch-tidy-harness: runs, for each torch-tidy check, the flagged pattern
// and its fix on a device and says whether the effect the check warns about
// is real there (CONFIRMED / REFUTED / SKIPPED). See docs/harness.md.
#include <torch/torch.h>
#include <torch/version.h>

#include <ctime>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <stdexcept>

#include "child.h"
#include "diagnostics.h"
#include "measure.h"
#include "report.h"
#include "scenario.h"

using namespace harness;

namespace harness {
int run_self_test();  // selftest.cpp
}

namespace {

const char* kUsage =
    "usage: torch-tidy-harness [--check NAME]... [--device auto|cpu|cuda]\n"
    "                          [--steps N] [--json FILE] [--diagnostics FILE]\n"
    "                          [--list] [--self-test]\n";

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Options {
  std::vector<std::string> checks;
  std::string device = "auto";
  int steps = 10;
  std::string json, diagnostics;
  bool list = false;
};

Options parse_args(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i], value;
    const size_t eq = arg.find('=');
    const bool inline_value = arg.rfind("--", 0) == 0 && eq != std::string::npos;
    if (inline_value) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
    }
    auto take = [&]() -> std::string {
      if (inline_value) return value;
      if (i + 1 >= argc) throw UsageError(arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--help" || arg == "-h") {
      std::cout << kUsage;
      std::exit(0);
    } else if (arg == "--self-test") {
      std::exit(run_self_test());
    } else if (arg == "--list") {
      o.list = true;
    } else if (arg == "--check") {
      std::string name = take();
      if (!find_scenario(name))
        throw UsageError("unknown check '" + name + "' (see --list)");
      o.checks.push_back(name);
    } else if (arg == "--device") {
      o.device = take();
      if (o.device != "auto" && o.device != "cpu" && o.device != "cuda")
        throw UsageError("bad --device '" + o.device +
                         "' (expected auto, cpu or cuda)");
    } else if (arg == "--steps") {
      std::string v = take();
      char* end = nullptr;
      long n = std::strtol(v.c_str(), &end, 10);
      if (v.empty() || *end || n < 2 || n > 100000)
        throw UsageError("bad --steps '" + v + "' (expected 2..100000)");
      o.steps = static_cast<int>(n);
    } else if (arg == "--json") {
      o.json = take();
    } else if (arg == "--diagnostics") {
      o.diagnostics = take();
    } else {
      throw UsageError("unknown option '" + arg + "'");
    }
  }
  return o;
}

std::string utc_now() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError("cannot read diagnostics file '" + path + "'");
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void add_unique(std::vector<std::string>& v, const std::string& s) {
  for (const auto& e : v)
    if (e == s) return;
  v.push_back(s);
}

int run(const Options& o) {
  if (o.list) {
    for (const auto& s : scenarios())
      std::cout << s.check << "\t" << s.summary << "\n";
    return 0;
  }
  DiagnosticsFile diags;
  if (!o.diagnostics.empty()) {
    try {
      diags = parse_diagnostics(read_file(o.diagnostics));
    } catch (const UsageError&) {
      throw;
    } catch (const std::exception& e) {
      throw UsageError(o.diagnostics + ": " + e.what());
    }
  }
  std::ofstream json;
  if (!o.json.empty()) {
    json.open(o.json);
    if (!json) throw UsageError("cannot write --json file '" + o.json + "'");
  }

  Context ctx;
  ctx.steps = o.steps;
  const bool cuda = o.device == "cuda" || (o.device == "auto" && cuda_usable());
  ctx.device = cuda ? torch::Device(torch::kCUDA, 0) : torch::Device(torch::kCPU);

  // Which scenarios: --check names, plus those the diagnostics need;
  // everything when neither is given.
  std::vector<std::string> wanted = o.checks;
  for (const auto& d : diags.diagnostics)
    if (find_scenario(d.check)) add_unique(wanted, d.check);
  if (o.checks.empty() && o.diagnostics.empty())
    for (const auto& s : scenarios()) wanted.push_back(s.check);

  RunInfo info;
  info.libtorch = TORCH_VERSION;
  info.device = ctx.device.str();
  info.device_name = device_name(ctx.device);
  info.date = utc_now();
  info.built_with_cuda = built_with_cuda();
  std::cout << "torch-tidy-harness: LibTorch " << info.libtorch << ", device "
            << info.device << " (" << info.device_name << "), "
            << "CUDA support " << (info.built_with_cuda ? "built" : "not built")
            << ", " << info.date << "\n\n";

  std::vector<Result> results;
  std::map<std::string, Verdict> by_check;
  for (const auto& name : wanted) {
    results.push_back(run_scenario(*find_scenario(name), ctx));
    by_check[name] = results.back().verdict;
  }

  std::vector<DiagnosticVerdict> verdicts;
  for (const auto& d : diags.diagnostics) {
    DiagnosticVerdict v{d, "", "no scenario"};
    if (by_check.count(d.check)) {
      v.scenario = d.check;
      v.verdict = verdict_name(by_check[d.check]);
    }
    verdicts.push_back(v);
  }
  if (!o.diagnostics.empty())
    print_diagnostics(std::cout, o.diagnostics, diags.format, verdicts);
  print_table(std::cout, results);
  if (json.is_open()) write_json(json, info, results, verdicts);

  for (const auto& r : results)
    if (r.verdict == Verdict::Refuted) return 1;
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (int rc = run_child_if_requested(argc, argv); rc >= 0) return rc;
  try {
    return run(parse_args(argc, argv));
  } catch (const UsageError& e) {
    std::cerr << "torch-tidy-harness: error: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "torch-tidy-harness: error: " << e.what() << "\n";
    return 2;
  }
}
