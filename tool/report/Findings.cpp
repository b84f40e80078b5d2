//===- Findings.cpp -------------------------------------------------------===//
#include "tool/report/Findings.h"
#include "clang/Tooling/DiagnosticsYaml.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"
#include <algorithm>
#include <set>
#include <tuple>

using llvm::StringRef;
namespace tooling = clang::tooling;

namespace torch_tidy {

std::string absolutePath(StringRef File, StringRef BuildDir) {
  llvm::SmallString<256> P(File);
  if (!File.empty() && !llvm::sys::path::is_absolute(P)) {
    P = BuildDir;
    llvm::sys::path::append(P, File);
  }
  llvm::sys::path::remove_dots(P, /*remove_dot_dot=*/true);
  return P.str().str();
}

static Position position(StringRef File, unsigned Offset, StringRef BuildDir) {
  Position P;
  P.File = absolutePath(File, BuildDir);
  P.Offset = Offset;
  return P;
}

llvm::Expected<std::vector<Finding>> readExportedFixes(StringRef Path) {
  auto Buf = llvm::MemoryBuffer::getFile(Path);
  if (!Buf)
    return llvm::createStringError(Buf.getError(), "cannot read '%s'",
                                   Path.str().c_str());
  return parseExportedFixes((*Buf)->getBuffer(), Path);
}

llvm::Expected<std::vector<Finding>> parseExportedFixes(StringRef Text,
                                                        StringRef Path) {
  std::vector<Finding> Out;
  if (Text.trim().empty())
    return Out;
  tooling::TranslationUnitDiagnostics TU;
  llvm::yaml::Input In(Text);
  In >> TU;
  if (In.error())
    return llvm::createStringError(In.error(), "malformed fixes file '%s'",
                                   Path.str().c_str());
  for (const tooling::Diagnostic &D : TU.Diagnostics) {
    Finding F;
    F.Check = D.DiagnosticName;
    F.Message = D.Message.Message;
    F.IsError = D.DiagLevel == tooling::Diagnostic::Error;
    F.IsRemark = D.DiagLevel == tooling::Diagnostic::Remark;
    F.Pos =
        position(D.Message.FilePath, D.Message.FileOffset, D.BuildDirectory);
    for (const tooling::DiagnosticMessage &N : D.Notes)
      F.Notes.push_back(
          {position(N.FilePath, N.FileOffset, D.BuildDirectory), N.Message});
    for (const auto &Entry : D.Message.Fix)
      for (const tooling::Replacement &R : Entry.second) {
        Edit E;
        E.Begin = position(R.getFilePath(), R.getOffset(), D.BuildDirectory);
        E.End = position(R.getFilePath(), R.getOffset() + R.getLength(),
                         D.BuildDirectory);
        E.Length = R.getLength();
        E.Text = R.getReplacementText().str();
        F.Fixes.push_back(std::move(E));
      }
    Out.push_back(std::move(F));
  }
  return Out;
}

const SourceCache::Text *SourceCache::get(StringRef File) {
  auto It = Files.find(File);
  if (It != Files.end())
    return It->second.get();
  std::unique_ptr<Text> T;
  if (auto Buf = llvm::MemoryBuffer::getFile(File)) {
    T = std::make_unique<Text>();
    T->Content = (*Buf)->getBuffer().str();
    T->LineStarts.push_back(0);
    for (unsigned I = 0; I < T->Content.size(); ++I)
      if (T->Content[I] == '\n')
        T->LineStarts.push_back(I + 1);
  }
  return (Files[File] = std::move(T)).get();
}

void SourceCache::locate(Position &P) {
  const Text *T = P.File.empty() ? nullptr : get(P.File);
  if (!T) {
    P.Line = P.Column = 0;
    return;
  }
  auto It =
      std::upper_bound(T->LineStarts.begin(), T->LineStarts.end(), P.Offset);
  P.Line = It - T->LineStarts.begin();
  P.Column = P.Offset - T->LineStarts[P.Line - 1] + 1;
}

void SourceCache::locate(Finding &F) {
  locate(F.Pos);
  for (Note &N : F.Notes)
    locate(N.Pos);
  for (Edit &E : F.Fixes) {
    locate(E.Begin);
    locate(E.End);
  }
}

std::string normalizeSpace(StringRef S) {
  std::string Out;
  bool Space = false;
  for (char C : S.trim()) {
    if (llvm::isSpace(C)) {
      Space = true;
      continue;
    }
    if (Space)
      Out += ' ';
    Space = false;
    Out += C;
  }
  return Out;
}

static StringRef rawLine(StringRef Content, const std::vector<unsigned> &Starts,
                         unsigned Line) {
  if (Line == 0 || Line > Starts.size())
    return "";
  unsigned B = Starts[Line - 1];
  unsigned E = Line < Starts.size() ? Starts[Line] : Content.size();
  return Content.slice(B, E).rtrim("\r\n");
}

/// A line that starts a function definition, roughly: not indented, has a
/// '(' and is not a preprocessor line, a comment or a brace.
static bool looksLikeFunctionHeader(StringRef Raw) {
  if (Raw.empty() || llvm::isSpace(Raw[0]) || !Raw.contains('('))
    return false;
  return !Raw.starts_with("#") && !Raw.starts_with("//") &&
         !Raw.starts_with("/*") && !Raw.starts_with("*") &&
         !Raw.starts_with("}") && !Raw.starts_with("{");
}

void SourceCache::fingerprint(Finding &F, StringRef Root) {
  std::string Flagged, Header;
  unsigned Index = 0;
  if (const Text *T = F.Pos.File.empty() ? nullptr : get(F.Pos.File)) {
    Flagged = normalizeSpace(rawLine(T->Content, T->LineStarts, F.Pos.Line));
    unsigned L = F.Pos.Line;
    while (L > 1 &&
           !looksLikeFunctionHeader(rawLine(T->Content, T->LineStarts, L - 1)))
      --L;
    if (L > 1)
      Header = normalizeSpace(rawLine(T->Content, T->LineStarts, L - 1));
    for (; L < F.Pos.Line; ++L)
      Index += normalizeSpace(rawLine(T->Content, T->LineStarts, L)) == Flagged;
  }
  std::string Message = F.Message;
  for (char &C : Message)
    if (llvm::isDigit(C))
      C = '#';
  // Every part is owned here, so the hash reads no temporaries.
  const std::string Parts[] = {F.Check, displayPath(F.Pos.File, Root), Header,
                               Flagged, std::to_string(Index),         Message};
  llvm::SHA256 H;
  for (const std::string &Part : Parts) {
    H.update(StringRef(Part));
    H.update(StringRef("\0", 1));
  }
  auto Digest = H.final();
  F.Fingerprint = llvm::toHex(llvm::ArrayRef<uint8_t>(Digest).take_front(16),
                              /*LowerCase=*/true);
}

void dedupeAndSort(std::vector<Finding> &Findings) {
  std::set<std::tuple<std::string, unsigned, std::string, std::string>> Seen;
  std::vector<Finding> Out;
  for (Finding &F : Findings)
    if (Seen.insert({F.Pos.File, F.Pos.Offset, F.Check, F.Message}).second)
      Out.push_back(std::move(F));
  // After deduplication no two findings share (file, position, check,
  // message), so the order is total and std::sort is deterministic.
  std::sort(Out.begin(), Out.end(), [](const Finding &A, const Finding &B) {
    return std::tie(A.Pos.File, A.Pos.Line, A.Pos.Column, A.Check, A.Message) <
           std::tie(B.Pos.File, B.Pos.Line, B.Pos.Column, B.Check, B.Message);
  });
  Findings = std::move(Out);
}

std::string displayPath(StringRef Path, StringRef Root) {
  StringRef R = Root.rtrim('/');
  if (!R.empty() && Path.starts_with(R) && Path.size() > R.size() &&
      Path[R.size()] == '/')
    return Path.drop_front(R.size() + 1).str();
  return Path.str();
}

llvm::Expected<llvm::json::Value> readJsonFile(llvm::StringRef Path) {
  auto Buf = llvm::MemoryBuffer::getFile(Path);
  if (!Buf)
    return llvm::createStringError(Buf.getError(), Buf.getError().message());
  return llvm::json::parse((*Buf)->getBuffer());
}

} // namespace torch_tidy
