//===- GpuUse.cpp - can this translation unit use a GPU at all? ----------===//
#include "program/GpuUse.h"
#include "ast/ASTHelpers.h"
#include "device/CallerDevices.h"
#include "device/DeviceLiterals.h"
#include "device/ProgramFacts.h"
#include "libtorch/DeviceRules.h"
#include "libtorch/ProgramCode.h"
#include "libtorch/TorchModules.h"
#include "libtorch/TorchTypes.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include <set>

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
  /// \p Own: count only the GPUs the unit names itself, not the devices it
  /// takes from other files.
  GpuMentions(const ASTContext &Ctx, bool Own)
      : Ctx(Ctx), SM(Ctx.getSourceManager()), Own(Own) {}
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
    if (!Own && !FD->isDefined() && !libtorch::isLibraryDecl(FD) &&
        !(MD && libtorch::isModuleClass(MD->getParent())) && handlesTensors(FD))
      Found = true;
    std::string Q = FD->getQualifiedNameAsString();
    StringRef QN = Q;
    // Asking whether a GPU is there puts nothing on it: a program that
    // picks one names it too (`torch::kCUDA`, "cuda", `.cuda()`).
    bool Query = QN == "torch::cuda::is_available" ||
                 QN == "torch::cuda::device_count" ||
                 QN == "torch::cuda::cudnn_is_available";
    if (!Query &&
        (QN.starts_with("torch::cuda::") || QN.starts_with("at::cuda::") ||
         QN.starts_with("c10::cuda::")))
      Found = true;
    return !Found;
  }
  // A device made and never used (`torch::Device probe(torch::kCUDA);` to
  // see whether it can be created) puts nothing on the GPU.
  bool TraverseVarDecl(VarDecl *V) {
    if (V->isLocalVarDecl() && !V->isReferenced() &&
        libtorch::carrierOf(V->getType()) == libtorch::Carrier::Device)
      return true;
    return RecursiveASTVisitor::TraverseVarDecl(V);
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
  // A device chosen when the program runs: `torch::Device(argv[1])`.
  bool VisitCXXConstructExpr(CXXConstructExpr *E) {
    if (E->getNumArgs() > 0 &&
        libtorch::carrierOf(E->getType()) == libtorch::Carrier::Device) {
      const Expr *A = ast::stripCopiesAndConversions(E->getArg(0));
      QualType T = A->getType();
      bool Text = T->isPointerType() || T->isArrayType() ||
                  (T->getAsCXXRecordDecl() &&
                   T->getAsCXXRecordDecl()->getName() == "basic_string");
      if (Text && !isa<StringLiteral>(A))
        Found = true;
    }
    return !Found;
  }
  bool VisitDeclaratorDecl(DeclaratorDecl *D) {
    libtorch::Carrier C = libtorch::carrierOf(D->getType());
    if (!Own && (isa<ParmVarDecl>(D) || isa<FieldDecl>(D)) &&
        (C == libtorch::Carrier::Device || C == libtorch::Carrier::Options))
      Found = true;
    return !Found;
  }

private:
  const ASTContext &Ctx;
  const SourceManager &SM;
  const bool Own;
};
} // namespace

bool mayUseGPU(ASTContext &Ctx) {
  if (Ctx.getLangOpts().CUDA) // a CUDA unit launches work on a GPU
    return true;
  if (CachedCtx != &Ctx) {
    GpuMentions V(Ctx, /*Own=*/false);
    V.TraverseDecl(Ctx.getTranslationUnitDecl());
    CachedCtx = &Ctx;
    CachedAnswer = V.Found || !V.HasMain;
  }
  return CachedAnswer;
}

namespace {
/// The functions of the program this unit defines, and those defined in
/// other files that it calls: what ties it to the other units of its
/// program.
class ProgramLinks : public RecursiveASTVisitor<ProgramLinks> {
public:
  explicit ProgramLinks(const ASTContext &Ctx) : SM(Ctx.getSourceManager()) {}
  std::set<std::string> Defines, Calls;

  bool TraverseDecl(Decl *D) {
    if (D && !isa<TranslationUnitDecl>(D) &&
        libtorch::isLibraryLocation(SM, D->getLocation()))
      return true;
    return RecursiveASTVisitor::TraverseDecl(D);
  }
  bool VisitFunctionDecl(FunctionDecl *FD) {
    if (FD->doesThisDeclarationHaveABody() && linkable(FD))
      Defines.insert(device::functionKey(FD));
    return true;
  }
  bool VisitCallExpr(CallExpr *E) {
    called(E->getDirectCallee());
    return true;
  }
  bool VisitCXXConstructExpr(CXXConstructExpr *E) {
    called(E->getConstructor());
    return true;
  }

private:
  const SourceManager &SM;
  static bool linkable(const FunctionDecl *FD) {
    return FD->isExternallyVisible() && !FD->isMain() &&
           !FD->isDependentContext() && device::isUserFunction(FD) &&
           !libtorch::isLibraryDecl(FD);
  }
  void called(const FunctionDecl *FD) {
    if (FD && !FD->isDefined() && linkable(FD))
      Calls.insert(device::functionKey(FD));
  }
};
} // namespace

std::string programGpuFacts(ASTContext &Ctx) {
  GpuMentions V(Ctx, /*Own=*/true);
  V.TraverseDecl(Ctx.getTranslationUnitDecl());
  ProgramLinks Links(Ctx);
  Links.TraverseDecl(Ctx.getTranslationUnitDecl());
  std::string Lines;
  if (V.HasMain)
    Lines += device::ProgramFacts::programFact("main");
  if (V.Found || Ctx.getLangOpts().CUDA)
    Lines += device::ProgramFacts::programFact("gpu");
  for (const std::string &Key : Links.Defines)
    Lines += device::ProgramFacts::programFact("def\t" + Key);
  for (const std::string &Key : Links.Calls)
    Lines += device::ProgramFacts::programFact("call\t" + Key);
  return Lines;
}

void clearGpuUseCache() { CachedCtx = nullptr; }

} // namespace clang::tidy::torch::program
