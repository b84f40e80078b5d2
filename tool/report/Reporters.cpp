//===- Reporters.cpp ------------------------------------------------------===//
#include "tool/report/Reporters.h"
#include "Version.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include <map>

using llvm::StringRef;
namespace json = llvm::json;

namespace torch_tidy {

namespace {
struct CheckDoc {
  const char *Name, *Short, *Full;
};
const CheckDoc CheckDocs[] = {
#include "CheckDocs.inc"
    {"", "", ""}};

const CheckDoc *findDoc(StringRef Check) {
  for (const CheckDoc &D : CheckDocs)
    if (Check == D.Name)
      return &D;
  return nullptr;
}

std::map<std::string, unsigned> countPerCheck(const std::vector<Finding> &Fs) {
  std::map<std::string, unsigned> Counts;
  for (const Finding &F : Fs)
    ++Counts[F.Check];
  return Counts;
}

std::string mib(uint64_t KiB) {
  return std::to_string((KiB + 512) / 1024) + " MiB";
}
} // namespace

void writeText(llvm::raw_ostream &OS, const std::vector<Finding> &Findings,
               const ReportOptions &Opts) {
  auto Loc = [&](const Position &P) {
    return displayPath(P.File, Opts.Root) + ":" + std::to_string(P.Line) + ":" +
           std::to_string(P.Column);
  };
  for (const Finding &F : Findings) {
    OS << Loc(F.Pos) << ": " << (F.IsError ? "error" : "warning") << ": "
       << F.Message << " [" << F.Check << "]\n";
    for (const Note &N : F.Notes)
      OS << (N.Pos.File.empty() ? std::string("<unknown>") : Loc(N.Pos))
         << ": note: " << N.Message << "\n";
  }
}

void writeSummary(llvm::raw_ostream &OS, const std::vector<Finding> &Findings,
                  const RunSummary &S, const ReportOptions &Opts) {
  auto Plural = [](size_t N, StringRef One, StringRef Many) {
    return std::to_string(N) + " " + (N == 1 ? One : Many).str();
  };
  size_t Crashes =
      llvm::count_if(S.Failures, [](const Failure &F) { return F.Crashed; });
  OS << "Summary: " << Plural(Findings.size(), "finding", "findings") << " in "
     << Plural(S.Files.size(), "file", "files") << " analysed; "
     << Plural(S.Failures.size() - Crashes, "file", "files")
     << " failed to compile";
  if (Crashes)
    OS << "; " << Plural(Crashes, "analysis", "analyses") << " crashed";
  OS << "\n";
  for (const auto &[Check, N] : countPerCheck(Findings))
    OS << "  " << Check << ": " << N << "\n";
  for (const Failure &F : S.Failures)
    if (F.Crashed)
      OS << F.Reason << "\n";
  if (S.Failures.size() > Crashes) {
    OS << "Failed to compile:\n";
    for (const Failure &F : S.Failures)
      if (!F.Crashed)
        OS << "  " << displayPath(F.File, Opts.Root) << ": " << F.Reason
           << "\n";
  }
  if (!S.TorchChecksDisabled.empty()) {
    OS << "torch-* checks disabled by .clang-tidy ('-torch-*') in:\n";
    for (const std::string &F : S.TorchChecksDisabled)
      OS << "  " << displayPath(F, Opts.Root) << "\n";
  }
  if (S.CudaUnits)
    OS << Plural(S.CudaUnits, "CUDA file", "CUDA files")
       << " analysed on the host side (nvcc or .cu entries, parsed by clang "
          "with --cuda-host-only)\n";
  if (S.DeviceCodeErrorUnits)
    OS << Plural(S.DeviceCodeErrorUnits, "CUDA file", "CUDA files")
       << " analysed on the host side despite errors in device code only "
          "(kernels and device functions clang instantiates and nvcc's host "
          "pass never sees)\n";
  if (!S.DroppedFlags.empty()) {
    OS << "Dropped arguments (GCC-only flags clang does not know; nvcc's "
          "device-code and nvcc-only options):\n";
    for (const auto &[Flag, N] : S.DroppedFlags)
      OS << "  " << Flag << " (" << Plural(N, "unit", "units") << ")\n";
  }
  if (S.Runtime) {
    const RuntimeResult &R = *S.Runtime;
    OS << "Run time (" << R.Report
       << "): " << Plural(R.FindingsSeen, "finding", "findings") << " seen, "
       << R.FindingsNotSeen << " never seen (sync and transfer checks); "
       << Plural(R.WithoutFinding.size(), "site", "sites")
       << " with no finding\n";
    for (const RuntimeSite &Site : R.WithoutFinding)
      OS << "  "
         << (Site.File.empty() ? Site.Where
                               : displayPath(Site.File, Opts.Root) + ":" +
                                     std::to_string(Site.Line))
         << ": " << Site.Op << ", " << describeRuntime(Site.Count, Site.Bytes)
         << "\n";
    if (R.Unplaced)
      OS << "  (" << Plural(R.Unplaced, "site has", "sites have")
         << " no source line: build the program with -g)\n";
  }
  if (S.OnCPUAcrossUnits)
    OS << "Left out: " << Plural(S.OnCPUAcrossUnits, "finding", "findings")
       << " whose tensor the other files show is on the CPU\n";
  if (S.NoDeviceAcrossUnits)
    OS << "Left out: " << Plural(S.NoDeviceAcrossUnits, "finding", "findings")
       << " in a loop over a tensor that no file passes from a device\n";
  if (S.ProvenByCallersAcrossUnits)
    OS << "Left out: "
       << Plural(S.ProvenByCallersAcrossUnits, "finding", "findings")
       << " whose callers (in other files, or through a registry) guard the "
          "device, check the tensors or read the launch error\n";
  if (S.BrokenHeaderFindings)
    OS << "Left out: " << Plural(S.BrokenHeaderFindings, "finding", "findings")
       << " of headers that do not compile alone (their includers' units "
          "read them)\n";
  if (S.SuppressedByBaseline || S.OutsideDiff)
    OS << "Not shown: " << S.SuppressedByBaseline << " in the baseline, "
       << S.OutsideDiff << " outside the diff\n";
}

void writeStats(llvm::raw_ostream &OS, const RunSummary &S) {
  OS << llvm::formatv("Stats: -j {0}, {1:f1} s, ", S.Jobs, S.Seconds);
  OS << "shared preamble in " << S.PreambleUnits << " of "
     << (S.Files.size() - S.CacheHits) << " analysed units, ";
  if (S.Cached)
    OS << "cache " << S.CacheHits << " hits " << S.CacheMisses << " misses, ";
  OS << llvm::formatv("peak worker memory {0} (mean {1})\n", mib(S.PeakKiB),
                      mib(S.MeanPeakKiB));
}

static json::Object jsonPos(const Position &P, const ReportOptions &Opts) {
  return json::Object{{"file", displayPath(P.File, Opts.Root)},
                      {"line", P.Line},
                      {"column", P.Column}};
}

static json::Object runtimeJson(const RuntimeSeen &R) {
  return json::Object{{"count", static_cast<int64_t>(R.Count)},
                      {"bytes", static_cast<int64_t>(R.Bytes)}};
}

/// The run-time side of the join, for the JSON summary and SARIF's run.
static json::Object runtimeSummaryJson(const RuntimeResult &R,
                                       const ReportOptions &Opts) {
  json::Array Sites;
  for (const RuntimeSite &S : R.WithoutFinding) {
    json::Object O{{"op", S.Op},
                   {"count", static_cast<int64_t>(S.Count)},
                   {"bytes", static_cast<int64_t>(S.Bytes)}};
    if (S.File.empty())
      O["where"] = S.Where;
    else {
      O["file"] = displayPath(S.File, Opts.Root);
      O["line"] = S.Line;
    }
    Sites.push_back(std::move(O));
  }
  return json::Object{{"report", R.Report},
                      {"findingsSeen", R.FindingsSeen},
                      {"findingsNotSeen", R.FindingsNotSeen},
                      {"sitesWithoutFinding", std::move(Sites)},
                      {"sitesWithoutSourceLine", R.Unplaced}};
}

void writeJson(llvm::raw_ostream &OS, const std::vector<Finding> &Findings,
               const RunSummary &S, const ReportOptions &Opts) {
  json::Array List;
  for (const Finding &F : Findings) {
    json::Object O = jsonPos(F.Pos, Opts);
    O["check"] = F.Check;
    O["level"] = F.IsError ? "error" : "warning";
    O["message"] = F.Message;
    O["fingerprint"] = F.Fingerprint;
    json::Array Notes, Fixes;
    for (const Note &N : F.Notes) {
      json::Object NO = jsonPos(N.Pos, Opts);
      NO["message"] = N.Message;
      Notes.push_back(std::move(NO));
    }
    for (const Edit &E : F.Fixes) {
      json::Object EO = jsonPos(E.Begin, Opts);
      EO["endLine"] = E.End.Line;
      EO["endColumn"] = E.End.Column;
      EO["offset"] = E.Begin.Offset;
      EO["length"] = E.Length;
      EO["replacement"] = E.Text;
      Fixes.push_back(std::move(EO));
    }
    O["notes"] = std::move(Notes);
    O["fixes"] = std::move(Fixes);
    if (F.Runtime)
      O["runtime"] = runtimeJson(F.Runtime.value_or(RuntimeSeen()));
    List.push_back(std::move(O));
  }
  json::Object PerCheck;
  for (const auto &[Check, N] : countPerCheck(Findings))
    PerCheck[Check] = N;
  json::Array Files, Failures;
  for (const std::string &F : S.Files)
    Files.push_back(displayPath(F, Opts.Root));
  for (const Failure &F : S.Failures)
    Failures.push_back(json::Object{{"file", displayPath(F.File, Opts.Root)},
                                    {"message", F.Reason},
                                    {"crashed", F.Crashed}});
  json::Object Dropped;
  for (const auto &[Flag, N] : S.DroppedFlags)
    Dropped[Flag] = N;
  json::Object Summary{
      {"filesAnalysed", S.Files.size()},
      {"files", std::move(Files)},
      {"failures", std::move(Failures)},
      {"findings", Findings.size()},
      {"findingsPerCheck", std::move(PerCheck)},
      {"cudaFiles", S.CudaUnits},
      {"deviceCodeErrorFiles", S.DeviceCodeErrorUnits},
      {"droppedFlags", std::move(Dropped)},
      {"onCPUAcrossUnits", S.OnCPUAcrossUnits},
      {"noDeviceAcrossUnits", S.NoDeviceAcrossUnits},
      {"provenByCallersAcrossUnits", S.ProvenByCallersAcrossUnits},
      {"brokenHeaderFindings", S.BrokenHeaderFindings},
      {"suppressedByBaseline", S.SuppressedByBaseline},
      {"outsideDiff", S.OutsideDiff}};
  if (S.Runtime)
    Summary["runtime"] = runtimeSummaryJson(*S.Runtime, Opts);
  OS << llvm::formatv(
            "{0:2}", json::Value(json::Object{{"version", 1},
                                              {"findings", std::move(List)},
                                              {"summary", std::move(Summary)}}))
     << "\n";
}

//===-- SARIF -------------------------------------------------------------===//

static std::string uriEscape(StringRef Path) {
  std::string Out;
  for (unsigned char C : Path) {
    if (llvm::isAlnum(C) || StringRef("/-._~").contains(C))
      Out += C;
    else
      Out += "%" + llvm::utohexstr(C, /*LowerCase=*/false, /*Width=*/2);
  }
  return Out;
}

static json::Object artifact(StringRef File, const ReportOptions &Opts) {
  std::string Rel = displayPath(File, Opts.Root);
  if (Rel != File)
    return json::Object{{"uri", uriEscape(Rel)}, {"uriBaseId", "%SRCROOT%"}};
  return json::Object{{"uri", "file://" + uriEscape(File)}};
}

static json::Object physical(const Position &P, const ReportOptions &Opts) {
  return json::Object{
      {"artifactLocation", artifact(P.File, Opts)},
      {"region", json::Object{{"startLine", std::max(P.Line, 1u)},
                              {"startColumn", std::max(P.Column, 1u)}}}};
}

static std::string helpUri(StringRef Check, const ReportOptions &Opts) {
  if (Check.starts_with("torch-"))
    return Opts.DocBaseUrl + Check.str() + ".md";
  if (Check.starts_with("clang-diagnostic-"))
    return "https://clang.llvm.org/docs/DiagnosticsReference.html#w" +
           Check.drop_front(17).str();
  auto [Module, Rest] = Check.split('-');
  return "https://clang.llvm.org/extra/clang-tidy/checks/" + Module.str() +
         "/" + Rest.str() + ".html";
}

static json::Object rule(StringRef Check, const ReportOptions &Opts) {
  std::string Short, Full;
  if (const CheckDoc *D = findDoc(Check)) {
    Short = D->Short;
    Full = D->Full;
  } else if (Check.starts_with("clang-diagnostic-")) {
    Short = Full =
        "Clang compiler diagnostic -W" + Check.drop_front(17).str() + ".";
  } else {
    Short = Full = "The " + Check.str() + " check; see its documentation.";
  }
  return json::Object{
      {"id", Check.str()},
      {"name", Check.str()},
      {"shortDescription", json::Object{{"text", Short}}},
      {"fullDescription", json::Object{{"text", Full}}},
      {"helpUri", helpUri(Check, Opts)},
      {"help", json::Object{{"text", Full + " Documentation: " +
                                         helpUri(Check, Opts)}}},
      {"defaultConfiguration", json::Object{{"level", "warning"}}}};
}

static json::Array sarifFixes(const Finding &F, const ReportOptions &Opts) {
  std::map<std::string, json::Array> PerFile;
  for (const Edit &E : F.Fixes)
    PerFile[E.Begin.File].push_back(json::Object{
        {"deletedRegion", json::Object{{"startLine", E.Begin.Line},
                                       {"startColumn", E.Begin.Column},
                                       {"endLine", E.End.Line},
                                       {"endColumn", E.End.Column}}},
        {"insertedContent", json::Object{{"text", E.Text}}}});
  json::Array Changes;
  for (auto &[File, Replacements] : PerFile)
    Changes.push_back(json::Object{{"artifactLocation", artifact(File, Opts)},
                                   {"replacements", std::move(Replacements)}});
  json::Array Fixes;
  if (!Changes.empty())
    Fixes.push_back(
        json::Object{{"description",
                      json::Object{{"text", "Apply the fix-it of " + F.Check}}},
                     {"artifactChanges", std::move(Changes)}});
  return Fixes;
}

/// A SARIF 2.1.0 log holding the single run \p Run.
static void writeSarifLog(json::Object Run, llvm::raw_ostream &OS) {
  OS << llvm::formatv(
            "{0:2}",
            json::Value(json::Object{
                {"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
                {"version", "2.1.0"},
                {"runs", json::Array{std::move(Run)}}}))
     << "\n";
}

void writeSarif(llvm::raw_ostream &OS, const std::vector<Finding> &Findings,
                const RunSummary &S, const ReportOptions &Opts) {
  json::Array Rules, Results, Notifications;
  for (const auto &Entry : countPerCheck(Findings))
    Rules.push_back(rule(Entry.first, Opts));
  for (const Finding &F : Findings) {
    json::Object R{
        {"ruleId", F.Check},
        {"level", F.IsError ? "error" : "warning"},
        {"message", json::Object{{"text", F.Message}}},
        {"locations", json::Array{json::Object{
                          {"physicalLocation", physical(F.Pos, Opts)}}}},
        {"partialFingerprints",
         json::Object{{"torchTidyFingerprint/v1", F.Fingerprint}}}};
    json::Array Related;
    for (const Note &N : F.Notes)
      if (!N.Pos.File.empty())
        Related.push_back(
            json::Object{{"id", static_cast<int64_t>(Related.size())},
                         {"physicalLocation", physical(N.Pos, Opts)},
                         {"message", json::Object{{"text", N.Message}}}});
    if (!Related.empty())
      R["relatedLocations"] = std::move(Related);
    json::Array Fixes = sarifFixes(F, Opts);
    if (!Fixes.empty())
      R["fixes"] = std::move(Fixes);
    if (F.Runtime)
      R["properties"] = json::Object{
          {"runtime", runtimeJson(F.Runtime.value_or(RuntimeSeen()))}};
    Results.push_back(std::move(R));
  }
  for (const Failure &F : S.Failures)
    Notifications.push_back(json::Object{
        {"level", "error"},
        {"message",
         json::Object{{"text", F.Crashed ? F.Reason
                                         : "failed to compile: " + F.Reason}}},
        {"locations",
         json::Array{json::Object{
             {"physicalLocation",
              json::Object{{"artifactLocation", artifact(F.File, Opts)}}}}}}});
  std::string RootUri = "file://" + uriEscape(Opts.Root);
  if (!StringRef(RootUri).ends_with("/"))
    RootUri += "/";
  json::Object Driver{
      {"name", "torch-tidy"},
      {"version", TORCH_TIDY_VERSION},
      {"informationUri", "https://github.com/torch-tidy/torch-tidy"},
      {"rules", std::move(Rules)}};
  json::Object Run{
      {"tool", json::Object{{"driver", std::move(Driver)}}},
      {"originalUriBaseIds",
       json::Object{{"%SRCROOT%", json::Object{{"uri", RootUri}}}}},
      {"invocations",
       json::Array{json::Object{
           {"executionSuccessful", S.Failures.empty()},
           {"toolExecutionNotifications", std::move(Notifications)}}}},
      {"results", std::move(Results)}};
  if (S.Runtime)
    Run["properties"] =
        json::Object{{"runtime", runtimeSummaryJson(*S.Runtime, Opts)}};
  writeSarifLog(std::move(Run), OS);
}

llvm::Error mergeSarif(const std::vector<std::string> &Inputs,
                       llvm::raw_ostream &OS) {
  std::optional<json::Object> First;
  json::Array Rules, Results, Invocations;
  llvm::StringSet<> RuleIds, ResultKeys;
  for (const std::string &Path : Inputs) {
    auto Fail = [&](StringRef Why) {
      return llvm::createStringError(std::errc::invalid_argument,
                                     "cannot merge '%s': %s", Path.c_str(),
                                     Why.str().c_str());
    };
    auto Doc = readJsonFile(Path);
    if (!Doc)
      return Fail(llvm::toString(Doc.takeError()));
    json::Object *Log = Doc->getAsObject();
    json::Array *Runs = Log ? Log->getArray("runs") : nullptr;
    if (!Runs)
      return Fail("not a SARIF log (no 'runs')");
    for (json::Value &RunV : *Runs) {
      json::Object *Run = RunV.getAsObject();
      if (!Run)
        return Fail("a run is not an object");
      if (!First)
        First = *Run;
      json::Object *Tool = Run->getObject("tool");
      json::Object *Driver = Tool ? Tool->getObject("driver") : nullptr;
      if (json::Array *Rs = Driver ? Driver->getArray("rules") : nullptr)
        for (json::Value &R : *Rs) {
          const json::Object *RO = R.getAsObject();
          auto Id = RO ? RO->getString("id") : std::nullopt;
          if (Id && RuleIds.insert(*Id).second)
            Rules.push_back(R);
        }
      if (json::Array *Rs = Run->getArray("results"))
        for (json::Value &R : *Rs) {
          std::string Key;
          llvm::raw_string_ostream(Key) << R;
          if (ResultKeys.insert(Key).second)
            Results.push_back(R);
        }
      if (json::Array *Is = Run->getArray("invocations"))
        for (json::Value &I : *Is)
          Invocations.push_back(I);
    }
  }
  if (!First)
    return llvm::createStringError(std::errc::invalid_argument,
                                   "--merge-sarif: no runs in the inputs");
  json::Object Run = std::move(*First);
  if (json::Object *Tool = Run.getObject("tool"))
    if (json::Object *Driver = Tool->getObject("driver"))
      (*Driver)["rules"] = std::move(Rules);
  Run["results"] = std::move(Results);
  Run["invocations"] = std::move(Invocations);
  writeSarifLog(std::move(Run), OS);
  return llvm::Error::success();
}

} // namespace torch_tidy
