//===- Baseline.cpp -------------------------------------------------------===//
#include "tool/report/Baseline.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

using llvm::StringRef;
namespace json = llvm::json;

namespace torch_tidy {

llvm::Error writeBaseline(StringRef Path, const std::vector<Finding> &Findings,
                          StringRef Root) {
  json::Array Entries;
  for (const Finding &F : Findings)
    Entries.push_back(json::Object{{"fingerprint", F.Fingerprint},
                                   {"check", F.Check},
                                   {"file", displayPath(F.Pos.File, Root)},
                                   {"line", F.Pos.Line},
                                   {"message", F.Message}});
  json::Value Doc(json::Object{{"version", 1},
                               {"tool", "torch-tidy"},
                               {"findings", std::move(Entries)}});
  // Written to a temporary file and renamed: complete or not at all.
  if (llvm::Error E = llvm::writeToOutput(Path, [&](llvm::raw_ostream &OS) {
        OS << llvm::formatv("{0:2}", Doc) << "\n";
        return llvm::Error::success();
      }))
    return llvm::createStringError("cannot write baseline '" + Path.str() +
                                   "': " + llvm::toString(std::move(E)));
  return llvm::Error::success();
}

llvm::Expected<Baseline> readBaseline(StringRef Path) {
  auto Fail = [&](StringRef Why) {
    return llvm::createStringError(std::errc::invalid_argument,
                                   "bad baseline '%s': %s", Path.str().c_str(),
                                   Why.str().c_str());
  };
  auto Doc = readJsonFile(Path);
  if (!Doc)
    return Fail(llvm::toString(Doc.takeError()));
  const json::Object *Root = Doc->getAsObject();
  const json::Array *List = Root ? Root->getArray("findings") : nullptr;
  if (!List)
    return Fail("expected an object with a 'findings' array");
  Baseline B;
  for (const json::Value &V : *List) {
    const json::Object *E = V.getAsObject();
    auto FP = E ? E->getString("fingerprint") : std::nullopt;
    if (!FP)
      return Fail("a finding without 'fingerprint'");
    ++B[*FP];
  }
  return B;
}

unsigned applyBaseline(std::vector<Finding> &Findings, Baseline B) {
  unsigned Suppressed = 0;
  llvm::erase_if(Findings, [&](const Finding &F) {
    auto It = B.find(F.Fingerprint);
    if (It == B.end() || It->second == 0)
      return false;
    --It->second;
    ++Suppressed;
    return true;
  });
  return Suppressed;
}

} // namespace torch_tidy
