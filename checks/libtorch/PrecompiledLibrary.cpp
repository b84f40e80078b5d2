//===- PrecompiledLibrary.cpp - what a unit can leave to its PCH ----------===//
#include "libtorch/PrecompiledLibrary.h"
#include "libtorch/ProgramCode.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/Lex/PPCallbacks.h"
#include "clang/Sema/Sema.h"
#include "clang/Serialization/ASTReader.h"
#include "llvm/ADT/STLExtras.h"
#include <memory>
#include <vector>

namespace clang::tidy::torch::libtorch {

namespace {
/// The unit whose traversal narrowTraversalToProgram narrows next; reset
/// as each unit starts, so a unit that never reached its matchers leaves
/// nothing behind.
thread_local ASTContext *UnitToNarrow = nullptr;

/// The header's vtable uses are all known once Sema has read the header:
/// the first file entered after that drops the library's from the list
/// Sema defines at the end of the unit. They stay in the set of used
/// vtables, so a later use does not queue them again.
class PrecompiledLibrarySkipper : public PPCallbacks {
public:
  PrecompiledLibrarySkipper(const SourceManager &SM, Preprocessor &PP)
      : SM(SM), PP(PP) {}

  void FileChanged(SourceLocation, FileChangeReason Reason,
                   SrcMgr::CharacteristicKind, FileID) override {
    if (Done || Reason != EnterFile)
      return;
    // A precompiled header's reader is the only external preprocessor
    // source clang has.
    auto *Reader = static_cast<ASTReader *>(PP.getExternalSource());
    if (!Reader) {
      Done = true;
      return;
    }
    Sema *S = Reader->getSema();
    if (!S)
      return; // Sema has not read the header yet
    Done = true;
    UnitToNarrow = &Reader->getContext();
    S->LoadExternalVTableUses();
    llvm::erase_if(S->VTableUses, [&](const Sema::VTableUse &Use) {
      return isLibraryLocation(SM, Use.second);
    });
  }

private:
  const SourceManager &SM;
  Preprocessor &PP;
  bool Done = false;
};
} // namespace

void skipPrecompiledLibrary(const SourceManager &SM, Preprocessor &PP) {
  UnitToNarrow = nullptr;
  PP.addPPCallbacks(std::make_unique<PrecompiledLibrarySkipper>(SM, PP));
}

void narrowTraversalToProgram() {
  ASTContext *Ctx = UnitToNarrow;
  UnitToNarrow = nullptr;
  if (!Ctx)
    return;
  llvm::ArrayRef<Decl *> Scope = Ctx->getTraversalScope();
  if (Scope.size() != 1 || !isa<TranslationUnitDecl>(Scope.front()))
    return;
  std::vector<Decl *> Program;
  for (Decl *D : Ctx->getTranslationUnitDecl()->decls())
    if (!isLibraryLocation(Ctx->getSourceManager(), D->getLocation()))
      Program.push_back(D);
  Ctx->setTraversalScope(Program);
}

} // namespace clang::tidy::torch::libtorch
