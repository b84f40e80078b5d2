//===- HiddenSync.cpp - a host-device wait inside the user's function ----===//
#include "program/HiddenSync.h"
#include "ast/ASTHelpers.h"
#include "device/DeviceFlow.h"
#include "libtorch/HostSync.h"
#include "libtorch/TorchTypes.h"
#include "program/HotLoops.h"
#include "clang/AST/DeclCXX.h"
#include "llvm/ADT/DenseMap.h"

namespace clang::tidy::torch::program {

namespace {
/// (definition, bodies still allowed) -> the sync found, or null.
thread_local llvm::DenseMap<std::pair<const FunctionDecl *, unsigned>,
                            const CallExpr *>
    HiddenSyncCache;

/// The definition whose body hiddenSync may read, or null.
const FunctionDecl *enterable(const FunctionDecl *FD) {
  const FunctionDecl *Def = nullptr;
  if (!FD || !FD->hasBody(Def) || Def->isDependentContext())
    return nullptr;
  StringRef NS = libtorch::outermostNamespace(Def);
  if (NS == "std" || NS == "at" || NS == "c10")
    return nullptr;
  const auto *MD = dyn_cast<CXXMethodDecl>(Def);
  return MD && libtorch::isTensorRecord(MD->getParent()) ? nullptr : Def;
}

const CallExpr *syncInBody(const FunctionDecl *Def, unsigned Depth,
                           ASTContext &Ctx);

/// The function whose body findSync reads, and where each sync it found is.
thread_local const FunctionDecl *Reading = nullptr;
thread_local llvm::DenseMap<const CallExpr *, const FunctionDecl *> Owners;

/// \p SkipLoops: S is in a function that runs once per step, whose loops
/// are hot (HotLoops.h) and report their own syncs.
const CallExpr *findSync(const Stmt *S, unsigned Depth, bool SkipLoops,
                         ASTContext &Ctx) {
  if (!S || isa<LambdaExpr>(S) || (SkipLoops && ast::isLoop(S)))
    return nullptr;
  if (const auto *Call = dyn_cast<CallExpr>(S)) {
    if (syncOperationIn(Call, /*ResultUsed=*/true, Reading, Ctx)) {
      Owners[Call] = Reading;
      return Call;
    }
    if (const FunctionDecl *Def = enterable(Call->getDirectCallee());
        Def && Depth > 1)
      if (const CallExpr *Found = syncInBody(Def, Depth - 1, Ctx))
        return Found;
  }
  for (const Stmt *Child : S->children())
    if (const CallExpr *Found = findSync(Child, Depth, SkipLoops, Ctx))
      return Found;
  return nullptr;
}

const CallExpr *syncInBody(const FunctionDecl *Def, unsigned Depth,
                           ASTContext &Ctx) {
  auto [It, New] = HiddenSyncCache.try_emplace({Def, Depth}, nullptr);
  if (!New) // known, or being computed (recursion): none found so far
    return It->second;
  const FunctionDecl *Outer = Reading;
  Reading = Def;
  const CallExpr *Found = findSync(
      Def->getBody(), Depth, static_cast<bool>(perStepCall(Def, Ctx)), Ctx);
  Reading = Outer;
  HiddenSyncCache[{Def, Depth}] = Found;
  return Found;
}
} // namespace

const CallExpr *hiddenSync(const FunctionDecl *FD, ASTContext &Ctx) {
  const FunctionDecl *Def = enterable(FD);
  return Def ? syncInBody(Def, 3, Ctx) : nullptr;
}

void clearHiddenSyncCache() {
  HiddenSyncCache.clear();
  Owners.clear();
}

const FunctionDecl *hiddenSyncOwner(const CallExpr *Sync) {
  return Owners.lookup(Sync);
}

const libtorch::SyncOperation *syncOperationIn(const CallExpr *Call,
                                               bool ResultUsed,
                                               const FunctionDecl *Fn,
                                               ASTContext &Ctx) {
  if (const libtorch::SyncOperation *Op =
          libtorch::syncOperationOf(Call, ResultUsed, Ctx))
    return Op;
  const auto *MC = dyn_cast<CXXMemberCallExpr>(Call);
  const CXXMethodDecl *MD = MC ? MC->getMethodDecl() : nullptr;
  // A discarded copy is torch-discarded-to's, and waits for nothing here.
  if (!ResultUsed || !Fn || !MD || !MD->getIdentifier() ||
      MD->getName() != "to" || !libtorch::isTensorRecord(MD->getParent()) ||
      libtorch::isNonBlocking(Call, Ctx) || Fn->isDependentContext())
    return nullptr;
  if (!device::DeviceFlow::getForCallers(Fn, Ctx).conversionTarget(MC).isCPU())
    return nullptr;
  return libtorch::syncOperationByOption("to");
}

} // namespace clang::tidy::torch::program
