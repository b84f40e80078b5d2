//===- GpuUse.cpp - can this translation unit use a GPU at all? ----------===//
#include "program/GpuUse.h"
#include "device/DeviceLiterals.h"
#include "libtorch/DeviceRules.h"
#include "libtorch/ProgramCode.h"
#include "libtorch/TorchModules.h"
#include "libtorch/TorchTypes.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"

namespace clang::tidy::torch::program {

namespace {
thread_local const ASTContext *CachedCtx = nullptr;
thread_local bool CachedAnswer = true;

/// True if \p FD takes or returns something that holds tensors or modules.
bool handlesTensors(const FunctionDecl *FD) {
  auto Holds = [](QualType T) {
    return libtorch::holdsTensors(T) || libtorch::moduleClassOf(T) != nullptr;
  };
  return Holds(FD->getReturnType()) ||
         llvm::any_of(FD->parameters(), [&](const ParmVarDecl *P) {
           return Holds(P->getType());
         });
}

class GpuMentions : public RecursiveASTVisitor<GpuMentions> {
public:
  explicit GpuMentions(const ASTContext &Ctx)
      : Ctx(Ctx), SM(Ctx.getSourceManager()) {}
  bool Found = false;
  bool HasMain = false;

  bool TraverseDecl(Decl *D) {
    if (Found || (D && !isa<TranslationUnitDecl>(D) &&
                  libtorch::isLibraryLocation(SM, D->getLocation())))
      return true;
    return RecursiveASTVisitor::TraverseDecl(D);
  }
  bool VisitDeclRefExpr(DeclRefExpr *E) {
    // torch::kCUDA, c10::DeviceType::CUDA, ...: any device type but the CPU.
    if (libtorch::carrierOf(E->getType()) == libtorch::Carrier::DeviceType)
      if (std::optional<device::DeviceValue> K =
              device::constantDeviceType(E, Ctx))
        Found |= !K->isCPU();
    return !Found;
  }
  bool VisitCallExpr(CallExpr *E) {
    const FunctionDecl *FD = E->getDirectCallee();
    if (!FD || !FD->getIdentifier())
      return true;
    if (FD->getName() == "cuda")
      Found = true;
    // A function of the program's defined in another file may hand it
    // tensors on a GPU; a module's methods compute on the module's device,
    // which this file decides.
    const auto *MD = dyn_cast<CXXMethodDecl>(FD);
    if (!FD->isDefined() && !libtorch::isLibraryDecl(FD) &&
        !(MD && libtorch::isModuleClass(MD->getParent())) && handlesTensors(FD))
      Found = true;
    std::string Q = FD->getQualifiedNameAsString();
    StringRef QN = Q;
    if (QN.starts_with("torch::cuda::") || QN.starts_with("at::cuda::") ||
        QN.starts_with("c10::cuda::"))
      Found = true;
    return !Found;
  }
  bool VisitStringLiteral(StringLiteral *S) {
    if (S->getCharByteWidth() == 1) {
      StringRef Text = S->getString();
      if (Text.starts_with("cuda") || Text.starts_with("mps") ||
          Text.starts_with("hip") || Text.starts_with("xpu"))
        Found = true;
    }
    return !Found;
  }
  bool VisitFunctionDecl(FunctionDecl *FD) {
    HasMain |= FD->isMain() && FD->doesThisDeclarationHaveABody();
    return true;
  }
  bool VisitDeclaratorDecl(DeclaratorDecl *D) {
    libtorch::Carrier C = libtorch::carrierOf(D->getType());
    if ((isa<ParmVarDecl>(D) || isa<FieldDecl>(D)) &&
        (C == libtorch::Carrier::Device || C == libtorch::Carrier::Options))
      Found = true;
    return !Found;
  }

private:
  const ASTContext &Ctx;
  const SourceManager &SM;
};
} // namespace

bool mayUseGPU(ASTContext &Ctx) {
  if (Ctx.getLangOpts().CUDA) // a CUDA unit launches work on a GPU
    return true;
  if (CachedCtx != &Ctx) {
    GpuMentions V(Ctx);
    V.TraverseDecl(Ctx.getTranslationUnitDecl());
    CachedCtx = &Ctx;
    CachedAnswer = V.Found || !V.HasMain;
  }
  return CachedAnswer;
}

void clearGpuUseCache() { CachedCtx = nullptr; }

} // namespace clang::tidy::torch::program
