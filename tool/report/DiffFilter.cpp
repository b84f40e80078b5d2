//===- DiffFilter.cpp -----------------------------------------------------===//
#include "tool/report/DiffFilter.h"
#include "tool/TempFiles.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

using llvm::StringRef;

namespace torch_tidy {

ChangedLines ChangedLines::parse(StringRef Diff, StringRef BaseDir) {
  ChangedLines Out;
  std::string File;
  llvm::SmallVector<StringRef, 0> Lines;
  Diff.split(Lines, '\n');
  for (StringRef L : Lines) {
    L = L.rtrim('\r');
    if (L.consume_front("+++ ")) {
      StringRef Name = L.split('\t').first.trim();
      File.clear();
      if (Name == "/dev/null")
        continue;
      auto Resolve = [&](StringRef N) {
        llvm::SmallString<256> P(N);
        if (!llvm::sys::path::is_absolute(P)) {
          P = BaseDir;
          llvm::sys::path::append(P, N);
        }
        llvm::sys::path::remove_dots(P, true);
        return P.str().str();
      };
      File = Resolve(Name);
      if (Name.starts_with("b/") && !llvm::sys::fs::exists(File))
        File = Resolve(Name.drop_front(2));
      Out.Ranges[File]; // a touched file, even with no added lines
      continue;
    }
    if (File.empty() || !L.consume_front("@@ "))
      continue;
    // @@ -a[,b] +c[,d] @@
    StringRef New = L.split(' ').second.split(' ').first;
    if (!New.consume_front("+"))
      continue;
    auto [StartS, CountS] = New.split(',');
    unsigned Start = 0, Count = 1;
    if (StartS.getAsInteger(10, Start) ||
        (!CountS.empty() && CountS.getAsInteger(10, Count)))
      continue;
    if (Count)
      Out.Ranges[File].push_back({Start, Start + Count - 1});
  }
  return Out;
}

bool ChangedLines::contains(StringRef File, unsigned Line) const {
  auto It = Ranges.find(File);
  if (It == Ranges.end())
    return false;
  for (auto [B, E] : It->second)
    if (Line >= B && Line <= E)
      return true;
  return false;
}

std::vector<std::string> ChangedLines::files() const {
  std::vector<std::string> Out;
  for (const auto &E : Ranges)
    Out.push_back(E.getKey().str());
  return Out;
}

/// Runs git with \p Args; its standard output, or an error.
static llvm::Expected<std::string> runGit(std::vector<StringRef> Args) {
  auto Git = llvm::sys::findProgramByName("git");
  if (!Git)
    return llvm::createStringError(Git.getError(), "--diff needs git on PATH");
  TempFiles Temp;
  if (std::error_code EC = Temp.create("torch-tidy-git", {"out", "err"}))
    return llvm::createStringError(EC, "cannot create a temporary file: %s",
                                   EC.message().c_str());
  StringRef Out = Temp[0], Err = Temp[1];
  Args.insert(Args.begin(), "git");
  std::optional<StringRef> Redirects[] = {StringRef(""), StringRef(Out),
                                          StringRef(Err)};
  int RC = llvm::sys::ExecuteAndWait(*Git, Args, std::nullopt, Redirects);
  auto OutBuf = llvm::MemoryBuffer::getFile(Out);
  auto ErrBuf = llvm::MemoryBuffer::getFile(Err);
  if (RC != 0 || !OutBuf) {
    std::string Msg =
        ErrBuf ? (*ErrBuf)->getBuffer().trim().split('\n').first.str() : "";
    return llvm::createStringError(std::errc::invalid_argument,
                                   "'git %s' failed%s%s", Args[1].str().c_str(),
                                   Msg.empty() ? "" : ": ", Msg.c_str());
  }
  return (*OutBuf)->getBuffer().str();
}

llvm::Expected<ChangedLines> gitDiff(StringRef Ref) {
  auto Top = runGit({"rev-parse", "--show-toplevel"});
  if (!Top)
    return Top.takeError();
  auto Diff = runGit({"diff", "-U0", "--no-color", "--no-ext-diff", Ref, "--"});
  if (!Diff)
    return Diff.takeError();
  return ChangedLines::parse(*Diff, StringRef(*Top).trim());
}

llvm::Expected<ChangedLines> diffFile(StringRef Path) {
  auto Buf = Path == "-" ? llvm::MemoryBuffer::getSTDIN()
                         : llvm::MemoryBuffer::getFile(Path);
  if (!Buf)
    return llvm::createStringError(Buf.getError(), "cannot read diff '%s': %s",
                                   Path.str().c_str(),
                                   Buf.getError().message().c_str());
  llvm::SmallString<256> Cwd;
  if (std::error_code EC = llvm::sys::fs::current_path(Cwd))
    return llvm::createStringError(EC, "cannot read the current directory: %s",
                                   EC.message().c_str());
  return ChangedLines::parse((*Buf)->getBuffer(), Cwd);
}

} // namespace torch_tidy
