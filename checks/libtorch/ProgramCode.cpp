//===- ProgramCode.cpp - is this the program's code or a library's? -------===//
#include "libtorch/ProgramCode.h"
#include "ast/ASTHelpers.h"
#include "libtorch/TorchTypes.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

namespace clang::tidy::torch::libtorch {

namespace {
/// Whether a folder lies in LibTorch's include tree: it, or a folder above
/// it, holds c10/macros/Macros.h. Folders do not change during a run, so
/// the answers are kept for every unit this thread analyses.
bool isInLibTorchTree(StringRef Dir) {
  thread_local llvm::StringMap<bool> Known;
  auto It = Known.find(Dir);
  if (It != Known.end())
    return It->second;
  llvm::SmallString<256> Marker(Dir);
  llvm::sys::path::append(Marker, "c10", "macros", "Macros.h");
  bool Answer = llvm::sys::fs::exists(Marker);
  if (!Answer) {
    StringRef Parent = llvm::sys::path::parent_path(Dir);
    Answer = !Parent.empty() && Parent != Dir && isInLibTorchTree(Parent);
  }
  Known[Dir] = Answer;
  return Answer;
}

/// The answer of isInLibTorchTree for each file of one unit.
struct FileAnswers {
  const SourceManager *SM = nullptr;
  llvm::DenseMap<FileID, bool> ByFile;
};
thread_local FileAnswers Files;
} // namespace

bool isLibTorchFile(StringRef Path) {
  return isInLibTorchTree(llvm::sys::path::parent_path(Path));
}

bool isLibraryLocation(const SourceManager &SM, SourceLocation Loc) {
  if (Loc.isInvalid())
    return false;
  Loc = SM.getExpansionLoc(Loc);
  if (SM.isInSystemHeader(Loc))
    return true;
  FileID FID = SM.getFileID(Loc);
  if (Files.SM != &SM) {
    Files.SM = &SM;
    Files.ByFile.clear();
  }
  auto [It, New] = Files.ByFile.try_emplace(FID, false);
  if (New)
    if (OptionalFileEntryRef FE = SM.getFileEntryRefForID(FID)) {
      llvm::SmallString<256> Path(FE->getName());
      (void)llvm::sys::fs::make_absolute(Path); // else kept as it is
      llvm::sys::path::remove_dots(Path, /*remove_dot_dot=*/true);
      It->second = isLibTorchFile(Path);
    }
  return It->second;
}

bool isLibraryDecl(const Decl *D) {
  if (!D)
    return false;
  // ATen's kernels (at::native, guarded by the dispatcher's code) and c10
  // are LibTorch's wherever they are written; programs put their own
  // modules and trainers in namespace torch too, and those are theirs.
  StringRef NS = outermostNamespace(D);
  if (NS == "at" || NS == "c10" || NS == "std")
    return true;
  return isLibraryLocation(D->getASTContext().getSourceManager(),
                           D->getLocation());
}

namespace {
class ProgramFunctions : public RecursiveASTVisitor<ProgramFunctions> {
public:
  ProgramFunctions(const SourceManager &SM, bool WithPatterns)
      : SM(SM), WithPatterns(WithPatterns) {}
  bool shouldVisitTemplateInstantiations() const { return true; }
  bool TraverseDecl(Decl *D) {
    if (D && !isa<TranslationUnitDecl>(D) &&
        isLibraryLocation(SM, D->getLocation()))
      return true;
    return RecursiveASTVisitor::TraverseDecl(D);
  }
  bool VisitFunctionDecl(FunctionDecl *FD) {
    const auto *MD = dyn_cast<CXXMethodDecl>(FD);
    if (FD->doesThisDeclarationHaveABody() &&
        (!FD->isDependentContext() ||
         (WithPatterns && ast::isUninstantiatedPattern(FD))) &&
        !(MD && MD->getParent()->isLambda()))
      Found.push_back(FD);
    return true;
  }
  std::vector<const FunctionDecl *> Found;

private:
  const SourceManager &SM;
  bool WithPatterns;
};
} // namespace

std::vector<const FunctionDecl *>
programFunctionDefinitions(ASTContext &Ctx, bool WithPatterns) {
  ProgramFunctions Fns(Ctx.getSourceManager(), WithPatterns);
  Fns.TraverseDecl(Ctx.getTranslationUnitDecl());
  return std::move(Fns.Found);
}

} // namespace clang::tidy::torch::libtorch
