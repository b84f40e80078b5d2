//===- SharedPreamble.cpp -------------------------------------------------===//
#include "tool/batch/SharedPreamble.h"
#include "Version.h"
#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/DiagnosticOptions.h"
#include "clang/Driver/CreateInvocationFromArgs.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendActions.h"
#include "clang/Tooling/ArgumentsAdjusters.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/VirtualFileSystem.h"
#include <map>

using llvm::StringRef;

namespace torch_tidy {

/// A logical line of \p S from \p Pos (backslash-newline joins lines); Pos
/// moves past its newline.
static StringRef logicalLine(StringRef S, size_t &Pos) {
  size_t Start = Pos;
  while (Pos < S.size() && S[Pos] != '\n') {
    if (S[Pos] == '\\' && Pos + 1 < S.size() && S[Pos + 1] == '\n')
      ++Pos;
    ++Pos;
  }
  StringRef L = S.slice(Start, Pos);
  if (Pos < S.size())
    ++Pos; // the newline
  return L;
}

std::optional<Preamble> scanPreamble(StringRef S) {
  std::string Directives;
  std::optional<Preamble> Found;
  size_t Pos = 0;
  while (Pos < S.size()) {
    size_t LineStart = Pos;
    StringRef Line = logicalLine(S, Pos).trim();
    if (Line.empty() || Line.starts_with("//"))
      continue;
    if (Line.starts_with("/*")) {
      size_t End = S.find("*/", LineStart);
      if (End == StringRef::npos)
        break;
      // Only a comment that ends its line: code after it ends the preamble.
      size_t After = End + 2;
      StringRef Tail = S.substr(After).split('\n').first.trim();
      if (!Tail.empty() && !Tail.starts_with("//"))
        break;
      Pos = S.find('\n', After);
      Pos = Pos == StringRef::npos ? S.size() : Pos + 1;
      continue;
    }
    if (!Line.consume_front("#"))
      break;
    Line = Line.ltrim();
    StringRef Name = Line.take_while(llvm::isAlpha);
    if (Name == "include") {
      StringRef Target = Line.drop_front(Name.size()).ltrim();
      char Close = Target.starts_with("<") ? '>' : '"';
      size_t End = Target.find(Close, 1);
      if (!(Target.starts_with("<") || Target.starts_with("\"")) ||
          End == StringRef::npos)
        break;
      StringRef Rest = Target.drop_front(End + 1).trim();
      if (!Rest.empty() && !Rest.starts_with("//"))
        break;
      Target = Target.take_front(End + 1);
      Directives += "#include " + Target.str() + "\n";
      // The preamble ends at a line start (-preamble-bytes=N,1).
      if (Target.drop_front().starts_with("torch/") && S[Pos - 1] == '\n')
        Found = Preamble{Directives, static_cast<unsigned>(Pos)};
      continue;
    }
    // Comments inside other directives are not worth parsing: stop there.
    bool Plain = !Line.contains("//") && !Line.contains("/*");
    if ((Name == "define" || Name == "undef") && Plain) {
      Directives += "#" + Line.str() + "\n";
      continue;
    }
    if (Name == "pragma" && Plain && !Line.contains("once")) {
      Directives += "#" + Line.str() + "\n";
      continue;
    }
    break;
  }
  return Found;
}

/// The values of clang-tidy's --extra-arg (or --extra-arg-before) in \p C.
static std::vector<std::string> extraArgs(const CommandLine &C,
                                          StringRef Name) {
  std::vector<std::string> Out;
  for (size_t I = 0; I < C.TidyArgs.size(); ++I) {
    StringRef A = StringRef(C.TidyArgs[I]).ltrim('-');
    auto [N, V] = A.split('=');
    if (N != Name)
      continue;
    if (A.contains('='))
      Out.push_back(V.str());
    else if (I + 1 < C.TidyArgs.size())
      Out.push_back(C.TidyArgs[++I]);
  }
  return Out;
}

/// \p Cmd's arguments without its source file, outputs and dependency files.
static std::vector<std::string>
argsWithoutSource(const clang::tooling::CompileCommand &Cmd) {
  std::vector<std::string> Args = clang::tooling::getClangStripOutputAdjuster()(
      Cmd.CommandLine, Cmd.Filename);
  Args =
      clang::tooling::getClangStripDependencyFileAdjuster()(Args, Cmd.Filename);
  llvm::SmallString<256> Abs(Cmd.Filename);
  llvm::sys::path::make_absolute(Cmd.Directory, Abs);
  llvm::erase_if(Args, [&](const std::string &A) {
    if (A == Cmd.Filename || A == "-c" || A == "-S" || A == "-E" ||
        A == "-fsyntax-only")
      return true;
    llvm::SmallString<256> P(A);
    llvm::sys::path::make_absolute(Cmd.Directory, P);
    return P == Abs;
  });
  return Args;
}

std::string preambleGroupKey(const clang::tooling::CompileCommand &Cmd) {
  std::string Key = Cmd.Directory;
  for (const std::string &A : argsWithoutSource(Cmd))
    Key += '\0' + A;
  return Key;
}

bool hasForcedInclude(const clang::tooling::CompileCommand &Cmd) {
  return llvm::any_of(Cmd.CommandLine, [](StringRef A) {
    return A.starts_with("-include") || A.starts_with("-imacros") ||
           A.starts_with("--include") || A == "-Xclang";
  });
}

std::vector<std::string>
preambleCommand(const CommandLine &C, const clang::tooling::CompileCommand &Cmd,
                const clang::tidy::ClangTidyOptions &Options, StringRef Header,
                StringRef Pch) {
  std::vector<std::string> Args = argsWithoutSource(Cmd);
  if (Args.empty())
    return Args;
  std::vector<std::string> Before;
  // What the worker gets: torch-tidy's resource directory, then the
  // command line's and the configuration's arguments (see TorchTidyMain).
  if (!C.HasResourceDir && llvm::sys::fs::is_directory(TORCH_TIDY_RESOURCE_DIR))
    Before.push_back(std::string("-resource-dir=") + TORCH_TIDY_RESOURCE_DIR);
  for (std::string &A : extraArgs(C, "extra-arg-before"))
    Before.push_back(std::move(A));
  if (Options.ExtraArgsBefore)
    Before.insert(Before.end(), Options.ExtraArgsBefore->begin(),
                  Options.ExtraArgsBefore->end());
  Args.insert(Args.begin() + 1, Before.begin(), Before.end());
  for (std::string &A : extraArgs(C, "extra-arg"))
    Args.push_back(std::move(A));
  if (Options.ExtraArgs)
    Args.insert(Args.end(), Options.ExtraArgs->begin(),
                Options.ExtraArgs->end());
  // Implicit instantiations done once here, not again in every unit.
  for (StringRef A : {"-fpch-instantiate-templates", "-x", "c++-header"})
    Args.push_back(A.str());
  Args.push_back(Header.str());
  Args.push_back("-o");
  Args.push_back(Pch.str());
  return Args;
}

namespace {
/// Keeps the first diagnostic of the preamble's parse.
class FirstDiagnostic : public clang::DiagnosticConsumer {
public:
  void HandleDiagnostic(clang::DiagnosticsEngine::Level Level,
                        const clang::Diagnostic &Info) override {
    DiagnosticConsumer::HandleDiagnostic(Level, Info);
    if (Level <= clang::DiagnosticsEngine::Note || First)
      return;
    llvm::SmallString<128> Msg;
    Info.FormatDiagnostic(Msg);
    First = Msg.str().str();
  }
  std::optional<std::string> First;
};
} // namespace

std::optional<std::string> buildPreamble(llvm::ArrayRef<std::string> Args) {
  std::vector<const char *> Argv;
  for (const std::string &A : Args)
    Argv.push_back(A.c_str());
  FirstDiagnostic Diags;
  clang::DiagnosticOptions DiagOpts;
  auto Engine = llvm::makeIntrusiveRefCnt<clang::DiagnosticsEngine>(
      clang::DiagnosticIDs::create(), DiagOpts, &Diags, false);
  clang::CreateInvocationOptions Opts;
  Opts.Diags = Engine;
  std::shared_ptr<clang::CompilerInvocation> Inv =
      clang::createInvocation(Argv, Opts);
  if (!Inv)
    return Diags.First.value_or("cannot build a compiler invocation");
  // createInvocation asks for -fsyntax-only: the output is set here.
  auto Out = llvm::find(Args, "-o");
  if (Out == Args.end() || Out + 1 == Args.end())
    return std::string("no output file");
  Inv->getFrontendOpts().OutputFile = *(Out + 1);
  Inv->getFrontendOpts().ProgramAction = clang::frontend::GeneratePCH;
  clang::CompilerInstance CI(std::move(Inv));
  CI.createVirtualFileSystem(llvm::vfs::getRealFileSystem(), &Diags);
  CI.createDiagnostics(&Diags, /*ShouldOwnClient=*/false);
  clang::GeneratePCHAction Action;
  bool Ok = CI.ExecuteAction(Action);
  if (Diags.First)
    return Diags.First;
  if (!Ok || !llvm::sys::fs::exists(*(Out + 1)))
    return std::string("the preamble did not compile");
  return std::nullopt;
}

std::vector<PreambleGroup> planPreambles(llvm::ArrayRef<std::string> Files,
                                         llvm::ArrayRef<UnitInputs> Inputs,
                                         llvm::ArrayRef<size_t> Units,
                                         size_t MinUnits,
                                         std::vector<unsigned> &Bytes) {
  Bytes.assign(Files.size(), 0);
  std::vector<PreambleGroup> Groups;
  std::map<std::string, size_t> ByKey; // ordered: groups in file order
  for (size_t I : Units) {
    const auto &Cmd = Inputs[I].Command;
    if (!Cmd || hasForcedInclude(*Cmd))
      continue;
    auto Buf = llvm::MemoryBuffer::getFile(Files[I]);
    if (!Buf)
      continue;
    std::optional<Preamble> P = scanPreamble((*Buf)->getBuffer());
    if (!P)
      continue;
    const clang::tidy::ClangTidyOptions &Options = Inputs[I].Options;
    if (!onlyTorchChecks(Options))
      continue;
    std::string Key = preambleGroupKey(*Cmd) + '\0' + P->Directives;
    for (const auto *Extra : {&Options.ExtraArgsBefore, &Options.ExtraArgs})
      if (*Extra)
        for (const std::string &A : **Extra)
          Key += '\0' + A;
    auto [It, New] = ByKey.try_emplace(Key, Groups.size());
    if (New)
      Groups.push_back({P->Directives, *Cmd, Options, {}});
    Groups[It->second].Units.push_back(I);
    Bytes[I] = P->Bytes;
  }
  std::vector<PreambleGroup> Kept;
  for (PreambleGroup &G : Groups) {
    if (G.Units.size() >= MinUnits) {
      Kept.push_back(std::move(G));
      continue;
    }
    for (size_t I : G.Units)
      Bytes[I] = 0;
  }
  return Kept;
}

} // namespace torch_tidy
