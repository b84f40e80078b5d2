//===- RuntimeReport.cpp - torch-tidy-probe's counts joined with findings -===//
#include "tool/report/RuntimeReport.h"
#include "llvm/DebugInfo/Symbolize/Symbolize.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include <algorithm>
#include <map>
#include <set>
#include <tuple>

using llvm::StringRef;
namespace json = llvm::json;

namespace torch_tidy {

namespace {
/// LibTorch's and the C++ library's own sources: a frame there is not the
/// user's call.
bool isLibrarySource(StringRef File) {
  return File.starts_with("/usr/include/") ||
         File.starts_with("/usr/lib/gcc/") || File.contains("/include/c++/") ||
         File.contains("/ATen/") || File.contains("/c10/") ||
         File.contains("/torch/csrc/") || File.contains("/caffe2/");
}

/// A function of LibTorch or the C++ library, by its demangled name
/// ("float at::Tensor::item<float>() const").
bool isLibraryFunction(StringRef Fn) {
  StringRef Name = Fn.split('(').first.rsplit(' ').second;
  if (Name.empty())
    Name = Fn.split('(').first;
  for (StringRef NS : {"at::", "c10::", "torch::", "std::", "caffe2::"})
    if (Name.starts_with(NS))
      return true;
  return false;
}

llvm::Error bad(StringRef Path, const llvm::Twine &Why) {
  return llvm::createStringError(std::errc::invalid_argument,
                                 "bad --runtime-report '%s': %s",
                                 Path.str().c_str(), Why.str().c_str());
}

/// Places one event: the innermost source line of its frames that is not
/// a library's, else the first frame's function.
void place(llvm::symbolize::LLVMSymbolizer &Symbolizer,
           const json::Array &Frames, RuntimeSite &Site) {
  for (const json::Value &FV : Frames) {
    const json::Object *F = FV.getAsObject();
    std::optional<StringRef> Module = F ? F->getString("module") : std::nullopt;
    std::optional<int64_t> Address =
        F ? F->getInteger("address") : std::nullopt;
    if (!Module || !Address)
      continue;
    llvm::object::SectionedAddress At{
        static_cast<uint64_t>(*Address),
        llvm::object::SectionedAddress::UndefSection};
    auto Inlined = Symbolizer.symbolizeInlinedCode(Module->str(), At);
    std::string ModuleName = llvm::sys::path::filename(*Module).str();
    if (!Inlined) { // the module is gone or unreadable
      llvm::consumeError(Inlined.takeError());
      if (Site.Where.empty())
        Site.Where = ModuleName + llvm::formatv("!{0:x}", *Address).str();
      continue;
    }
    bool Placed = false;
    for (unsigned I = 0; I < Inlined->getNumberOfFrames(); ++I) {
      const llvm::DILineInfo &L = Inlined->getFrame(I);
      if (L.FileName == llvm::DILineInfo::BadString || L.Line == 0 ||
          isLibrarySource(L.FileName))
        continue;
      llvm::SmallString<256> Path(L.FileName);
      llvm::sys::path::remove_dots(Path, /*remove_dot_dot=*/true);
      if (Site.Lines.empty()) {
        Site.File = Path.str().str();
        Site.Line = L.Line;
      }
      Site.Lines.emplace_back(Path.str().str(), L.Line);
      Placed = true;
    }
    if (Placed || !Site.Lines.empty())
      continue;
    // No line: the first function that is not LibTorch's or the C++
    // library's (their inline code is compiled into the program too).
    std::string Fn;
    std::optional<uint64_t> Start;
    if (Inlined->getNumberOfFrames() &&
        Inlined->getFrame(0).FunctionName != llvm::DILineInfo::BadString) {
      Fn = Inlined->getFrame(0).FunctionName;
      Start = Inlined->getFrame(0).StartAddress;
    }
    if (!Site.Where.empty() || isLibraryFunction(Fn))
      continue;
    Site.Where = ModuleName + "!";
    if (Fn.empty())
      Site.Where += llvm::formatv("{0:x}", *Address).str();
    else if (Start && *Start <= static_cast<uint64_t>(*Address))
      Site.Where += Fn + llvm::formatv("+{0:x}", *Address - *Start).str();
    else
      Site.Where += Fn;
  }
}
} // namespace

llvm::Expected<std::vector<RuntimeSite>> readRuntimeReport(StringRef Path) {
  auto Buf = llvm::MemoryBuffer::getFile(Path);
  if (!Buf)
    return bad(Path, Buf.getError().message());
  auto Doc = json::parse((*Buf)->getBuffer());
  if (!Doc)
    return bad(Path, "not JSON: " + llvm::toString(Doc.takeError()));
  const json::Object *Root = Doc->getAsObject();
  const json::Array *Events = Root ? Root->getArray("events") : nullptr;
  if (!Root || Root->getString("tool") != StringRef("torch-tidy-probe") ||
      !Events)
    return bad(Path, "not a torch-tidy-probe report (no \"tool\": "
                     "\"torch-tidy-probe\" with \"events\")");
  llvm::symbolize::LLVMSymbolizer::Options Opts;
  Opts.PathStyle =
      llvm::DILineInfoSpecifier::FileLineInfoKind::AbsoluteFilePath;
  llvm::symbolize::LLVMSymbolizer Symbolizer(Opts);
  std::vector<RuntimeSite> Sites;
  for (const json::Value &EV : *Events) {
    const json::Object *E = EV.getAsObject();
    std::optional<StringRef> Op = E ? E->getString("op") : std::nullopt;
    std::optional<int64_t> Count = E ? E->getInteger("count") : std::nullopt;
    const json::Array *Frames = E ? E->getArray("frames") : nullptr;
    if (!Op || !Count || *Count < 0 || !Frames)
      return bad(Path, "an event without \"op\", \"count\" or \"frames\"");
    RuntimeSite Site;
    Site.Op = Op->str();
    Site.Count = static_cast<uint64_t>(*Count);
    Site.Bytes = static_cast<uint64_t>(
        std::max<int64_t>(0, E->getInteger("bytes").value_or(0)));
    place(Symbolizer, *Frames, Site);
    if (Site.File.empty() && Site.Where.empty())
      Site.Where = "(no frame in the program)";
    Sites.push_back(std::move(Site));
  }
  return Sites;
}

std::string describeRuntime(uint64_t Count, uint64_t Bytes) {
  std::string S = std::to_string(Count) + (Count == 1 ? " time" : " times");
  if (!Bytes)
    return S;
  static const char *const Units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
  double V = static_cast<double>(Bytes);
  unsigned U = 0;
  while (V >= 1024 && U + 1 < std::size(Units)) {
    V /= 1024;
    ++U;
  }
  return S + ", " +
         (U ? llvm::formatv("{0:f1} {1}", V, Units[U]).str()
            : std::to_string(Bytes) + " bytes");
}

void countRuntime(const std::vector<Finding> &Findings, RuntimeResult &R) {
  R.FindingsSeen = R.FindingsNotSeen = 0;
  for (const Finding &F : Findings) {
    StringRef C = F.Check;
    if (F.Runtime)
      ++R.FindingsSeen;
    else if (C == "torch-sync-in-loop" ||
             C == "torch-loop-invariant-transfer" ||
             C == "torch-create-then-move")
      ++R.FindingsNotSeen;
  }
}

RuntimeResult joinRuntime(std::vector<Finding> &Findings,
                          const std::vector<RuntimeSite> &Sites,
                          StringRef ReportPath) {
  RuntimeResult R;
  R.Report = ReportPath.str();
  // One site per place and operation.
  std::map<std::tuple<std::string, unsigned, std::string, std::string>,
           RuntimeSite>
      Merged;
  for (const RuntimeSite &S : Sites) {
    RuntimeSite &M = Merged[{S.File, S.Line, S.Where, S.Op}];
    if (M.Op.empty()) {
      M = S;
      continue;
    }
    M.Count += S.Count;
    M.Bytes += S.Bytes;
    for (const auto &L : S.Lines)
      if (!llvm::is_contained(M.Lines, L))
        M.Lines.push_back(L);
  }
  // Each line of the program -> the sites placed there, and the sites
  // whose stacks pass through it.
  using Line = std::pair<std::string, unsigned>;
  std::map<Line, std::vector<const RuntimeSite *>> ByLine, Through;
  for (const auto &[K, S] : Merged) {
    if (!S.File.empty())
      ByLine[{S.File, S.Line}].push_back(&S);
    for (const Line &L : S.Lines)
      Through[L].push_back(&S);
  }
  std::set<const RuntimeSite *> Claimed;
  for (Finding &F : Findings) {
    // A finding is credited with the events on its line; a hidden-sync
    // finding (the call at N, "the host waits here" at M inside a helper)
    // with every event whose stack passes through N or M.
    std::vector<Line> Waits;
    for (const Note &N : F.Notes)
      if (StringRef(N.Message).starts_with("the host waits here"))
        Waits.emplace_back(N.Pos.File, N.Pos.Line);
    std::vector<const RuntimeSite *> Credited;
    auto Credit = [&](const std::map<Line, std::vector<const RuntimeSite *>> &M,
                      const Line &L) {
      if (auto It = M.find(L); It != M.end())
        for (const RuntimeSite *S : It->second)
          if (!llvm::is_contained(Credited, S))
            Credited.push_back(S);
    };
    const Line Own{F.Pos.File, F.Pos.Line};
    Credit(Waits.empty() ? ByLine : Through, Own);
    for (const Line &W : Waits)
      Credit(Through, W);
    if (Credited.empty())
      continue;
    RuntimeSeen Seen;
    std::string Ops;
    for (const RuntimeSite *S : Credited) {
      Seen.Count += S->Count;
      Seen.Bytes += S->Bytes;
      if (!StringRef(Ops).contains(S->Op))
        Ops += (Ops.empty() ? "" : ", ") + S->Op;
      Claimed.insert(S);
    }
    F.Runtime = Seen;
    F.Notes.push_back(
        {F.Pos, "seen at run time: " + describeRuntime(Seen.Count, Seen.Bytes) +
                    " (" + Ops + ")"});
  }
  countRuntime(Findings, R);
  for (const auto &[K, S] : Merged) {
    if (S.File.empty())
      ++R.Unplaced;
    if (S.File.empty() || !Claimed.count(&S))
      R.WithoutFinding.push_back(S);
  }
  std::sort(R.WithoutFinding.begin(), R.WithoutFinding.end(),
            [](const RuntimeSite &A, const RuntimeSite &B) {
              return std::make_tuple(B.Count, A.File, A.Line, A.Where, A.Op) <
                     std::make_tuple(A.Count, B.File, B.Line, B.Where, B.Op);
            });
  return R;
}

} // namespace torch_tidy
