//===- SharedPreamble.cpp -------------------------------------------------===//
#include "tool/batch/SharedPreamble.h"
#include "tool/ResourceDir.h"
#include "tool/batch/LeadingIncludes.h"
#include "tool/batch/NvccHostPrelude.h"
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
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/VirtualFileSystem.h"
#include <map>

using llvm::StringRef;

namespace torch_tidy {

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

std::string sharingKey(llvm::ArrayRef<std::string> UnitArgs) {
  std::string Key;
  for (size_t I = 0; I < UnitArgs.size(); ++I) {
    StringRef A = UnitArgs[I];
    if (A == "-I" || A == "-iquote" || A == "--include-directory") {
      ++I; // and its folder
      continue;
    }
    if (A.starts_with("-I") || A.starts_with("-iquote") ||
        A.starts_with("--include-directory="))
      continue;
    Key += A;
    Key += '\0';
  }
  return Key;
}

bool hasForcedInclude(const clang::tooling::CompileCommand &Cmd) {
  const std::vector<std::string> &Args = Cmd.CommandLine;
  for (size_t I = 0; I < Args.size(); ++I) {
    StringRef A = Args[I];
    // torch-tidy's own prelude of CUDA units: every unit of a group has it,
    // and the precompiled header is built with it.
    if (A == "-include" && I + 1 < Args.size() &&
        isNvccHostPrelude(Args[I + 1])) {
      ++I;
      continue;
    }
    if (A.starts_with("-include") || A.starts_with("-imacros") ||
        A.starts_with("--include") || A == "-Xclang")
      return true;
  }
  return false;
}

std::vector<std::string>
unitClangArgs(const CommandLine &C, const clang::tooling::CompileCommand &Cmd,
              const clang::tidy::ClangTidyOptions &Options) {
  std::vector<std::string> Args = argsWithoutSource(Cmd);
  if (Args.empty())
    return Args;
  std::vector<std::string> Before;
  // What the worker gets: torch-tidy's resource directory, then the
  // command line's and the configuration's arguments (see TorchTidyMain).
  if (!C.HasResourceDir && !resourceDir().empty())
    Before.push_back("-resource-dir=" + resourceDir());
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
  return Args;
}

std::vector<std::string> preambleCommand(llvm::ArrayRef<std::string> UnitArgs,
                                         StringRef Header, StringRef Pch) {
  std::vector<std::string> Args(UnitArgs.begin(), UnitArgs.end());
  if (Args.empty())
    return Args;
  // No timestamps: a header kept in the cache stays valid while the files
  // it reads keep their content (the cache key hashes them).
  // A CUDA unit's header is parsed for the host as the unit is.
  bool Cuda = llvm::is_contained(Args, "--cuda-host-only");
  for (StringRef A :
       {"-Xclang", "-fno-pch-timestamp", "-fpch-instantiate-templates", "-x",
        Cuda ? "cuda" : "c++-header"})
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

std::vector<PreambleGroup> planPreambles(const CommandLine &C,
                                         llvm::ArrayRef<std::string> Files,
                                         llvm::ArrayRef<UnitInputs> Inputs,
                                         llvm::ArrayRef<size_t> Units,
                                         unsigned Jobs) {
  std::vector<size_t> Candidates;
  for (size_t I : Units) {
    const auto &Cmd = Inputs[I].Command;
    if (Cmd && !hasForcedInclude(*Cmd) && onlyTorchChecks(Inputs[I].Options))
      Candidates.push_back(I);
  }
  struct Scan {
    std::vector<std::string> Args;
    std::optional<LeadingIncludes> Leading;
  };
  std::vector<Scan> Scans(Candidates.size());
  llvm::DefaultThreadPool Pool(llvm::hardware_concurrency(Jobs));
  for (size_t J = 0; J < Candidates.size(); ++J)
    Pool.async([&, J] {
      size_t I = Candidates[J];
      Scans[J].Args = unitClangArgs(C, *Inputs[I].Command, Inputs[I].Options);
      if (Scans[J].Args.empty())
        return;
      std::vector<std::string> Args = Scans[J].Args;
      Args.push_back(Files[I]);
      Scans[J].Leading = scanLeadingIncludes(Args, Inputs[I].directory());
    });
  Pool.wait();

  // Units meet on their first LibTorch header (and what comes before it);
  // a group's header then holds the longest prefix all its units share,
  // cut after a LibTorch header. What follows is each unit's own business,
  // as what follows the last LibTorch header always was.
  auto prefix = [](const LeadingIncludes &L, LeadingIncludes::Cut Cut) {
    std::string Text;
    for (size_t I = 0; I < Cut.Lines; ++I)
      Text += L.Spelled[I] + "\n";
    Text += '\1';
    for (size_t I = 0; I < Cut.Files; ++I)
      Text += L.Files[I] + '\n';
    return Text;
  };
  // The scans of each first prefix, in order, with their leading includes.
  std::map<std::string, std::vector<std::pair<size_t, const LeadingIncludes *>>>
      ByFirst;
  for (size_t J = 0; J < Candidates.size(); ++J)
    if (const std::optional<LeadingIncludes> &L = Scans[J].Leading;
        L && !L->Cuts.empty())
      ByFirst[sharingKey(Scans[J].Args) + '\2' + prefix(*L, L->Cuts.front())]
          .push_back({J, &*L});
  std::vector<PreambleGroup> Groups;
  for (const auto &[First, Members] : ByFirst) {
    const LeadingIncludes &Lead = *Members.front().second;
    size_t Common = 0; // the last cut every member shares
    for (size_t K = 1; K < Lead.Cuts.size(); ++K) {
      std::string Text = prefix(Lead, Lead.Cuts[K]);
      if (!llvm::all_of(Members, [&](const auto &M) {
            const LeadingIncludes &L = *M.second;
            return K < L.Cuts.size() && L.Cuts[K].Lines == Lead.Cuts[K].Lines &&
                   L.Cuts[K].Files == Lead.Cuts[K].Files &&
                   prefix(L, L.Cuts[K]) == Text;
          }))
        break;
      Common = K;
    }
    LeadingIncludes::Cut Cut = Lead.Cuts[Common];
    std::string Directives;
    for (size_t I = 0; I < Cut.Lines; ++I)
      Directives += Lead.Spelled[I] + "\n";
    std::vector<std::string> Files(Lead.Files.begin(),
                                   Lead.Files.begin() + Cut.Files);
    size_t FirstScan = Members.front().first;
    std::string Key = sharingKey(Scans[FirstScan].Args) + '\1' + Directives;
    for (const std::string &F : Files)
      Key += F + '\n';
    PreambleGroup G{Directives,
                    Scans[FirstScan].Args,
                    Inputs[Candidates[FirstScan]].directory().str(),
                    std::move(Files),
                    Key,
                    {}};
    for (const auto &M : Members)
      G.Units.push_back(Candidates[M.first]);
    Groups.push_back(std::move(G));
  }
  // In the order of their first units, as before.
  llvm::sort(Groups, [](const PreambleGroup &A, const PreambleGroup &B) {
    return A.Units.front() < B.Units.front();
  });
  return Groups;
}

} // namespace torch_tidy
