//===- LeadingIncludes.cpp ------------------------------------------------===//
#include "tool/batch/LeadingIncludes.h"
#include "checks/libtorch/ProgramCode.h"
#include "clang/Basic/CharInfo.h"
#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/DiagnosticOptions.h"
#include "clang/Driver/CreateInvocationFromArgs.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendActions.h"
#include "clang/Lex/DependencyDirectivesScanner.h"
#include "clang/Lex/HeaderSearch.h"
#include "clang/Lex/Lexer.h"
#include "clang/Lex/MacroInfo.h"
#include "clang/Lex/PPCallbacks.h"
#include "clang/Lex/Preprocessor.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/VirtualFileSystem.h"
#include <memory>
#include <mutex>

using namespace clang;
using llvm::StringRef;

namespace torch_tidy {
namespace {

/// A library file reduced to its dependency directives, shared by every
/// scan of the run (the files do not change during it).
struct Minimized {
  llvm::SmallVector<dependency_directives_scan::Token, 0> Tokens;
  llvm::SmallVector<dependency_directives_scan::Directive, 0> Directives;
  bool Ok = false;
};
std::mutex MinimizedLock;
llvm::StringMap<std::unique_ptr<Minimized>> MinimizedFiles;

/// \p File's real path, or its name when the file manager has none.
StringRef realPath(FileEntryRef File) {
  StringRef Real = File.getFileEntry().tryGetRealPathName();
  return Real.empty() ? File.getName() : Real;
}

const Minimized &minimized(FileEntryRef File, FileManager &FM) {
  std::string Key = realPath(File).str();
  {
    std::lock_guard<std::mutex> L(MinimizedLock);
    auto It = MinimizedFiles.find(Key);
    if (It != MinimizedFiles.end())
      return *It->second;
  }
  auto M = std::make_unique<Minimized>();
  if (auto Buf = FM.getBufferForFile(File))
    M->Ok = !scanSourceForDependencyDirectives((*Buf)->getBuffer(), M->Tokens,
                                               M->Directives);
  std::lock_guard<std::mutex> L(MinimizedLock);
  auto [It, New] = MinimizedFiles.try_emplace(Key, std::move(M));
  return *It->second;
}

/// Calls \p Each with every identifier \p Text spells (a number with its
/// suffix, such as 10ULL, is no identifier).
void forEachIdentifier(StringRef Text,
                       llvm::function_ref<void(StringRef)> Each) {
  for (size_t I = 0; I < Text.size();) {
    size_t J = I + 1;
    if (isAsciiIdentifierStart(Text[I]) || isDigit(Text[I])) {
      while (J < Text.size() && isAsciiIdentifierContinue(Text[J]))
        ++J;
      if (!isDigit(Text[I]))
        Each(Text.slice(I, J));
    }
    I = J;
  }
}

/// The identifiers a library file spells anywhere (code, directives,
/// comments): a superset of the macros it can test or expand.
std::mutex IdentifierLock;
llvm::StringMap<std::unique_ptr<llvm::StringSet<>>> FileIdentifiers;

const llvm::StringSet<> &identifiersOf(StringRef Path) {
  {
    std::lock_guard<std::mutex> L(IdentifierLock);
    auto It = FileIdentifiers.find(Path);
    if (It != FileIdentifiers.end())
      return *It->second;
  }
  auto Ids = std::make_unique<llvm::StringSet<>>();
  if (auto Buf = llvm::MemoryBuffer::getFile(Path))
    forEachIdentifier((*Buf)->getBuffer(),
                      [&](StringRef Id) { Ids->insert(Id); });
  std::lock_guard<std::mutex> L(IdentifierLock);
  auto [It, New] = FileIdentifiers.try_emplace(Path, std::move(Ids));
  return *It->second;
}

/// What one scan learns; shared by its callbacks and its directives getter.
struct ScanState {
  /// Files lexed in full: the unit and its own headers of the leading part.
  llvm::DenseSet<const FileEntry *> Own;
  bool Open = true;      ///< still in the leading part
  bool FullLex = false;  ///< probing a second inclusion: read files in full
  bool Rejected = false; ///< a library header tests an own header's guard
  struct Entry {
    std::string Spelled;
    bool LibTorch = false;
    std::string Path;
    bool Guarded = false; ///< including it again does nothing
    std::vector<std::string> Files;
  };
  std::vector<Entry> Entries;
  /// Every library file entered, in order, again for each re-entry.
  std::vector<std::string> LibraryLog;
  /// A macro the unit's own files define, undefine or test before or
  /// between its leading includes: where (entries and LibraryLog so far).
  struct OwnMacro {
    std::string Name;
    bool Tested; ///< tested only (#ifdef, #if): its value is read
    bool InMainFile;
    size_t Entries, Log;
  };
  std::vector<OwnMacro> OwnMacros;
  /// The unit's own `#define`s, `#undef`s and diagnostic pragmas of the
  /// leading part, as spelled, each with the number of entries before it;
  /// the shared header repeats them (Macro: when ReplicateMacros) among its
  /// includes. Depth: the diagnostic pushes open after it.
  struct OwnDirective {
    std::string Text;
    size_t Entries;
    int Depth;
    bool Macro;
  };
  std::vector<OwnDirective> Directives;
  int PragmaDepth = 0;
  /// A library header reads an own macro: the shared header defines the
  /// unit's own macros among its includes, where the unit does.
  bool ReplicateMacros = false;
  /// For each macro a library file defines or undefines: the LibraryLog
  /// size at its last change.
  llvm::StringMap<size_t> LastLibraryChange;
  /// The last entry that is a LibTorch header and reads a new file: the
  /// leading part ends there. Entries.size() when there is none.
  size_t lastLibTorch() const {
    size_t Last = Entries.size();
    for (size_t I = 0; I < Entries.size(); ++I)
      if (Entries[I].LibTorch && !Entries[I].Files.empty())
        Last = I;
    return Last;
  }
};

class Getter : public DependencyDirectivesGetter {
public:
  Getter(ScanState &S, FileManager &FM) : S(S), FM(FM) {}
  std::unique_ptr<DependencyDirectivesGetter>
  cloneFor(FileManager &Other) override {
    return std::make_unique<Getter>(S, Other);
  }
  std::optional<ArrayRef<dependency_directives_scan::Directive>>
  operator()(FileEntryRef File) override {
    if (S.FullLex || S.Own.contains(&File.getFileEntry()))
      return std::nullopt;
    const Minimized &M = minimized(File, FM);
    if (!M.Ok)
      return std::nullopt;
    return ArrayRef<dependency_directives_scan::Directive>(M.Directives);
  }

private:
  ScanState &S;
  FileManager &FM;
};

/// Follows the leading part of the unit: its own files may hold include
/// guards, `#pragma once`, includes, conditionals and macros (the last two
/// recorded for endBeforeOwnMacroConflicts); anything else ends it.
class Recorder : public PPCallbacks {
public:
  Recorder(ScanState &S, Preprocessor &PP)
      : S(S), SM(PP.getSourceManager()), LangOpts(PP.getLangOpts()) {}

  /// True when \p Tok is code of the unit's own: the leading part is over.
  bool isOwnCode(const Token &Tok) const {
    FileID F = SM.getFileID(SM.getExpansionLoc(Tok.getLocation()));
    OptionalFileEntryRef FE = SM.getFileEntryRefForID(F);
    return FE && S.Own.contains(&FE->getFileEntry());
  }

  /// A second inclusion of a header, probed after the leading part: does
  /// it leave the macros as they were? (Its tokens show in Lex.)
  struct Probe {
    size_t Depth = 0;
    bool Done = false;
    llvm::StringMap<bool> DefinedBefore; ///< each macro it touches
  };
  std::optional<Probe> Probing;
  size_t depth() const { return Stack.size(); }
  static bool changedMacros(const Probe &P, Preprocessor &PP) {
    for (const auto &[Name, Before] : P.DefinedBefore)
      if (PP.isMacroDefined(Name) != Before || Before)
        return true; // redefined or left changed
    return false;
  }

  void FileChanged(SourceLocation Loc, FileChangeReason Reason,
                   SrcMgr::CharacteristicKind, FileID) override {
    if (Reason == ExitFile) {
      if (!Stack.empty())
        Stack.pop_back();
      if (Probing && Stack.size() < Probing->Depth)
        Probing->Done = true;
      return;
    }
    if (Reason != EnterFile)
      return;
    FileID F = SM.getFileID(Loc);
    OptionalFileEntryRef FE = SM.getFileEntryRefForID(F);
    Frame Fr;
    Fr.Own = FE && S.Own.contains(&FE->getFileEntry());
    Fr.Main = F == SM.getMainFileID();
    Fr.Entry =
        NextEntry >= 0 ? NextEntry : (Stack.empty() ? -1 : Stack.back().Entry);
    NextEntry = -1;
    StringRef Path = FE ? realPath(*FE) : StringRef();
    if (FE && !Fr.Own && S.Open)
      S.LibraryLog.push_back(Path.str());
    // Entries past the end were cut by endBeforeOwnMacroConflicts.
    if (Fr.Entry >= 0 && static_cast<size_t>(Fr.Entry) < S.Entries.size() &&
        FE && Seen.insert(Path).second)
      S.Entries[Fr.Entry].Files.push_back(Path.str());
    Stack.push_back(Fr);
  }

  void FileSkipped(const FileEntryRef &, const Token &,
                   SrcMgr::CharacteristicKind) override {
    NextEntry = -1;
  }

  void InclusionDirective(SourceLocation, const Token &, StringRef Name,
                          bool IsAngled, CharSourceRange,
                          OptionalFileEntryRef File, StringRef, StringRef,
                          const Module *, bool,
                          SrcMgr::CharacteristicKind Kind) override {
    NextEntry = -1;
    if (!inOwnFile() || !S.Open)
      return;
    ++Stack.back().Directives;
    if (!File) {
      S.Open = false;
      return;
    }
    bool Library =
        Kind != SrcMgr::C_User ||
        clang::tidy::torch::libtorch::isLibTorchFile(realPath(*File));
    if (!Library) { // the unit's own header
      S.Own.insert(&File->getFileEntry());
      return;
    }
    // The shared header spells it the same way; a quoted one could resolve
    // next to the unit.
    if (!IsAngled) {
      S.Open = false;
      return;
    }
    // LibTorch's own entry points, not any header of its include tree
    // (Debian's is /usr/include).
    bool LibTorch = llvm::any_of(
        std::initializer_list<StringRef>{"torch/", "ATen/", "c10/"},
        [&](StringRef P) { return Name.starts_with(P); });
    NextEntry = static_cast<int>(S.Entries.size());
    S.Entries.push_back(
        {"<" + Name.str() + ">", LibTorch, File->getName().str(), false, {}});
  }

  void Ifndef(SourceLocation, const Token &Name,
              const MacroDefinition &) override {
    if (!inOwnFile())
      return testsGuard(Name);
    Frame &F = Stack.back();
    // Read as any test: an #ifndef first need not be a guard.
    own(Name.getIdentifierInfo()->getName(), /*Tested=*/true);
    if (F.Directives++ == 0 && F.Guard.empty())
      F.Guard = Name.getIdentifierInfo()->getName().str();
  }
  void MacroDefined(const Token &Name, const MacroDirective *MD) override {
    if (Probing && !Probing->Done) {
      const MacroDirective *Prev = MD ? MD->getPrevious() : nullptr;
      Probing->DefinedBefore.try_emplace(Name.getIdentifierInfo()->getName(),
                                         Prev && Prev->isDefined());
    }
    if (!inOwnFile())
      return libraryChanges(Name);
    Frame &F = Stack.back();
    StringRef N = Name.getIdentifierInfo()->getName();
    if (F.Directives++ == 1 && N == F.Guard && !F.Guard.empty()) {
      Guards.insert(N);
      return;
    }
    own(N, /*Tested=*/false);
    if (const MacroInfo *MI = MD ? MD->getMacroInfo() : nullptr)
      directive("#define " +
                    Lexer::getSourceText(
                        CharSourceRange::getTokenRange(
                            MI->getDefinitionLoc(), MI->getDefinitionEndLoc()),
                        SM, LangOpts)
                        .str(),
                /*Macro=*/true);
  }
  void Ifdef(SourceLocation, const Token &Name,
             const MacroDefinition &) override {
    if (!inOwnFile())
      return testsGuard(Name);
    own(Name.getIdentifierInfo()->getName(), /*Tested=*/true);
  }
  void Defined(const Token &Name, const MacroDefinition &,
               SourceRange) override {
    if (!inOwnFile())
      return testsGuard(Name);
    own(Name.getIdentifierInfo()->getName(), /*Tested=*/true);
  }
  void MacroExpands(const Token &Name, const MacroDefinition &MD, SourceRange,
                    const MacroArgs *) override {
    if (!inOwnFile())
      return testsGuard(Name);
    // In an #if of the unit's own: its value, and what its body names, is
    // read there. Anywhere else (code, a computed #include) it ends the
    // leading part.
    if (!onConditionLine(Name.getLocation()))
      return close();
    own(Name.getIdentifierInfo()->getName(), /*Tested=*/true);
    if (const MacroInfo *MI = MD.getMacroInfo())
      for (const Token &T : MI->tokens())
        if (const IdentifierInfo *II = T.getIdentifierInfo())
          own(II->getName(), /*Tested=*/true);
  }
  void If(SourceLocation, SourceRange Condition, ConditionValueKind) override {
    if (inOwnFile())
      ownCondition(Condition);
  }
  void Elif(SourceLocation, SourceRange Condition, ConditionValueKind,
            SourceLocation) override {
    if (inOwnFile())
      ownCondition(Condition);
  }
  void MacroUndefined(const Token &Name, const MacroDefinition &MD,
                      const MacroDirective *) override {
    if (Probing && !Probing->Done && MD)
      Probing->DefinedBefore.try_emplace(Name.getIdentifierInfo()->getName(),
                                         true);
    // `#undef slots` before the LibTorch include (for Qt), defined or not.
    if (inOwnFile()) {
      own(Name.getIdentifierInfo()->getName(), /*Tested=*/false);
      directive("#undef " + Name.getIdentifierInfo()->getName().str(),
                /*Macro=*/true);
    } else {
      libraryChanges(Name);
    }
  }
  /// `#pragma once`, and diagnostic pragmas that restore what they change
  /// (`push`, then `ignored` ..., then `pop`): the shared header repeats
  /// the latter, and its cuts fall where none is open. Any other ends the
  /// leading part.
  void PragmaDirective(SourceLocation Loc, PragmaIntroducerKind Kind) override {
    if (!inOwnFile() || !S.Open)
      return;
    StringRef Text(SM.getCharacterData(Loc));
    Text = Text.take_until([](char C) { return C == '\n'; }).rtrim();
    Text = Text.ltrim("# \t");
    if (Kind != PIK_HashPragma || !Text.consume_front("pragma") ||
        Text.ends_with("\\"))
      return close();
    Text = Text.trim();
    if (Text == "once")
      return;
    llvm::SmallVector<StringRef, 4> Words;
    Text.split(Words, ' ', /*MaxSplit=*/3, /*KeepEmpty=*/false);
    if (Words.size() < 3 || (Words[0] != "clang" && Words[0] != "GCC") ||
        Words[1] != "diagnostic")
      return close();
    bool Push = Words[2] == "push", Pop = Words[2] == "pop";
    bool Change =
        llvm::is_contained({"ignored", "warning", "error", "fatal"}, Words[2]);
    // A pop with no push open, a change outside a push, or any other word
    // ends it.
    if (!Push && (S.PragmaDepth == 0 || (!Pop && !Change)))
      return close();
    S.PragmaDepth += Push ? 1 : Pop ? -1 : 0;
    directive("#pragma " + Text.str(), /*Macro=*/false);
  }

private:
  struct Frame {
    bool Own = false;
    bool Main = false;
    int Entry = -1; ///< the leading include this file is read for
    std::string Guard;
    unsigned Directives = 0;
  };
  bool inOwnFile() const { return !Stack.empty() && Stack.back().Own; }
  void close() { S.Open = false; }
  void directive(std::string Text, bool Macro) {
    if (S.Open)
      S.Directives.push_back(
          {std::move(Text), S.Entries.size(), S.PragmaDepth, Macro});
  }
  void own(StringRef Name, bool Tested) {
    if (S.Open)
      S.OwnMacros.push_back({Name.str(), Tested, Stack.back().Main,
                             S.Entries.size(), S.LibraryLog.size()});
  }
  void libraryChanges(const Token &Name) {
    if (S.Open && !S.FullLex)
      S.LastLibraryChange[Name.getIdentifierInfo()->getName()] =
          S.LibraryLog.size();
  }
  /// The macros an own #if or #elif reads: every identifier it spells
  /// (those it expands also come through MacroExpands).
  void ownCondition(SourceRange Condition) {
    StringRef Text = Lexer::getSourceText(
        CharSourceRange::getTokenRange(Condition), SM, LangOpts);
    static const llvm::StringSet<> Operators = {"defined",
                                                "__has_include",
                                                "__has_include_next",
                                                "__has_feature",
                                                "__has_extension",
                                                "__has_builtin",
                                                "__has_attribute",
                                                "__has_cpp_attribute",
                                                "__has_c_attribute",
                                                "__has_warning",
                                                "__is_identifier",
                                                "true",
                                                "false"};
    forEachIdentifier(Text, [&](StringRef Id) {
      if (!Operators.contains(Id))
        own(Id, /*Tested=*/true);
    });
  }
  /// True when \p Loc, in one of the unit's own files, is on the line of an
  /// #if or #elif.
  bool onConditionLine(SourceLocation Loc) const {
    Loc = SM.getExpansionLoc(Loc);
    auto [File, Offset] = SM.getDecomposedLoc(Loc);
    StringRef Buffer = SM.getBufferData(File);
    size_t Start = Buffer.rfind('\n', Offset);
    StringRef Line =
        Buffer.substr(Start == StringRef::npos ? 0 : Start + 1).ltrim(" \t");
    if (!Line.consume_front("#"))
      return false;
    Line = Line.ltrim(" \t");
    return (Line.consume_front("if") || Line.consume_front("elif")) &&
           (Line.empty() || !isAsciiIdentifierContinue(Line.front()));
  }
  void testsGuard(const Token &Name) {
    if (Guards.contains(Name.getIdentifierInfo()->getName()))
      S.Rejected = true;
  }

  ScanState &S;
  SourceManager &SM;
  const LangOptions &LangOpts;
  std::vector<Frame> Stack;
  llvm::StringSet<> Guards, Seen;
  int NextEntry = -1;
};

class ScanAction : public PreprocessorFrontendAction {
public:
  explicit ScanAction(ScanState &S) : S(S) {}

protected:
  void ExecuteAction() override {
    Preprocessor &PP = getCompilerInstance().getPreprocessor();
    auto R = std::make_unique<Recorder>(S, PP);
    Recorder *Rec = R.get();
    PP.addPPCallbacks(std::move(R));
    PP.EnterMainSourceFile();
    Token Tok;
    do
      PP.Lex(Tok);
    while (Tok.isNot(tok::eof) && S.Open && !Rec->isOwnCode(Tok));
    endBeforeOwnMacroConflicts();
    // The unit's own includes of these headers must then do nothing; those
    // after the leading part are the unit's business.
    HeaderSearch &HS = PP.getHeaderSearchInfo();
    FileManager &FM = PP.getFileManager();
    size_t Last = S.lastLibTorch();
    llvm::MutableArrayRef<ScanState::Entry> Leading(S.Entries);
    Leading = Leading.take_front(Last == S.Entries.size() ? 0 : Last + 1);
    for (ScanState::Entry &E : Leading)
      if (auto FE = FM.getOptionalFileRef(E.Path))
        E.Guarded = HS.isFileMultipleIncludeGuarded(*FE);
    // A header guarded only in part (<cmath>): include it once more; it
    // must give no token and leave every macro as it was.
    S.FullLex = true;
    for (ScanState::Entry &E : Leading) {
      if (E.Guarded || E.Files.empty() || Tok.is(tok::eof))
        continue;
      auto FE = FM.getOptionalFileRef(E.Path);
      if (!FE)
        continue;
      SourceManager &SM = PP.getSourceManager();
      FileID F = SM.createFileID(*FE, SourceLocation(), SrcMgr::C_System);
      Rec->Probing.emplace();
      Rec->Probing->Depth = Rec->depth() + 1;
      if (PP.EnterSourceFile(F, nullptr, SourceLocation()))
        break;
      Token After;
      PP.Lex(After);
      E.Guarded =
          Rec->Probing->Done && !Recorder::changedMacros(*Rec->Probing, PP);
      Rec->Probing.reset();
      if (!E.Guarded)
        break; // the preprocessor is somewhere in that header
    }
  }

private:
  /// The unit's own macros before or between its leading includes are
  /// processed after the shared header instead of among its headers. That
  /// changes nothing when no header read after a macro is defined,
  /// undefined or tested there names it, and no header read after a test
  /// changes the macro tested. The leading part ends before the first that
  /// fails this.
  ///
  /// When a library header does name an own macro (`#define NDEBUG`,
  /// pulsar's `#define DEVICE`), the shared header defines the unit's own
  /// macros itself, among its includes where the unit does; the unit's own
  /// copies then redefine them identically. That changes nothing when no
  /// library file read after an own `#define X` or `#undef X` defines or
  /// undefines X, and no own test of X comes before it (the test would
  /// read the shared header's X). Not for a macro of the unit's own file:
  /// its copy there, never used after, could warn (-Wunused-macros).
  void endBeforeOwnMacroConflicts() {
    auto changedAfter = [&](const ScanState::OwnMacro &M) {
      auto It = S.LastLibraryChange.find(M.Name);
      return It != S.LastLibraryChange.end() && It->second > M.Log;
    };
    auto named = [&](const ScanState::OwnMacro &M) {
      return llvm::any_of(llvm::ArrayRef(S.LibraryLog).drop_front(M.Log),
                          [&](const std::string &F) {
                            return identifiersOf(F).contains(M.Name);
                          });
    };
    S.ReplicateMacros = llvm::any_of(S.OwnMacros, [&](const auto &M) {
      return !M.Tested && M.Entries < S.Entries.size() && named(M);
    });
    size_t End = S.Entries.size();
    for (size_t I = 0; I < S.OwnMacros.size(); ++I) {
      const ScanState::OwnMacro &M = S.OwnMacros[I];
      if (M.Entries >= End)
        continue;
      bool Conflict;
      if (M.Tested)
        Conflict = changedAfter(M);
      else if (!S.ReplicateMacros)
        Conflict = named(M);
      else
        Conflict =
            M.InMainFile || changedAfter(M) ||
            llvm::any_of(llvm::ArrayRef(S.OwnMacros).take_front(I),
                         [&](const ScanState::OwnMacro &Earlier) {
                           return Earlier.Tested && Earlier.Name == M.Name;
                         });
      if (Conflict)
        End = M.Entries;
    }
    S.Entries.resize(End);
  }

  ScanState &S;
};

class Silent : public DiagnosticConsumer {};
} // namespace

std::optional<LeadingIncludes> scanLeadingIncludes(ArrayRef<std::string> Args,
                                                   StringRef Directory) {
  llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> FS(
      llvm::vfs::createPhysicalFileSystem().release());
  if (FS->setCurrentWorkingDirectory(Directory))
    return std::nullopt;
  std::vector<const char *> Argv;
  for (const std::string &A : Args)
    Argv.push_back(A.c_str());
  Silent Diags;
  DiagnosticOptions DiagOpts;
  auto Engine = llvm::makeIntrusiveRefCnt<DiagnosticsEngine>(
      DiagnosticIDs::create(), DiagOpts, &Diags, false);
  CreateInvocationOptions Opts;
  Opts.Diags = Engine;
  Opts.VFS = FS;
  std::shared_ptr<CompilerInvocation> Inv = createInvocation(Argv, Opts);
  // CUDA units too: the host side's implicit includes (clang's CUDA runtime
  // wrapper, the nvcc host prelude) come before the unit and are the same
  // for every unit of a group, whose key holds the flags that pick them.
  if (!Inv || !Inv->getLangOpts().CPlusPlus ||
      Inv->getLangOpts().CUDAIsDevice ||
      Inv->getFrontendOpts().Inputs.size() != 1)
    return std::nullopt;
  Inv->getFrontendOpts().ProgramAction = frontend::ParseSyntaxOnly;
  CompilerInstance CI(std::move(Inv));
  CI.createVirtualFileSystem(FS, &Diags);
  CI.createDiagnostics(&Diags, /*ShouldOwnClient=*/false);
  CI.createFileManager();
  ScanState S;
  CI.setDependencyDirectivesGetter(
      std::make_unique<Getter>(S, CI.getFileManager()));
  // The unit itself is read in full.
  StringRef Main = CI.getFrontendOpts().Inputs[0].getFile();
  if (auto FE = CI.getFileManager().getOptionalFileRef(Main))
    S.Own.insert(&FE->getFileEntry());
  ScanAction Action(S);
  bool Ran = CI.ExecuteAction(Action);
  if (!Ran || S.Rejected)
    return std::nullopt;
  // An include that reads no new file was read before: the unit's own
  // copy of it does the same with or without the shared header.
  LeadingIncludes Out;
  size_t Last = S.lastLibTorch();
  if (Last == S.Entries.size())
    return std::nullopt;
  // The own directives among the includes; a cut after a LibTorch header
  // takes the pops that follow it, and falls only where no push is open.
  auto Directive = S.Directives.begin();
  int Depth = 0;
  auto emit = [&] {
    if (!Directive->Macro || S.ReplicateMacros)
      Out.Spelled.push_back(Directive->Text);
    Depth = Directive->Depth;
    ++Directive;
  };
  for (size_t I = 0; I <= Last; ++I) {
    while (Directive != S.Directives.end() && Directive->Entries <= I)
      emit();
    const ScanState::Entry &E = S.Entries[I];
    if (E.Files.empty())
      continue;
    if (!E.Guarded)
      return std::nullopt;
    Out.Spelled.push_back("#include " + E.Spelled);
    llvm::append_range(Out.Files, E.Files);
    if (!E.LibTorch)
      continue;
    while (Depth > 0 && Directive != S.Directives.end() &&
           Directive->Entries == I + 1)
      emit();
    if (Depth == 0)
      Out.Cuts.push_back({Out.Spelled.size(), Out.Files.size()});
  }
  if (Out.Cuts.empty())
    return std::nullopt;
  return Out;
}

} // namespace torch_tidy
