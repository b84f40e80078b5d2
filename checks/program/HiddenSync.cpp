//===- HiddenSync.cpp - a host-device wait inside the user's function ----===//
#include "program/HiddenSync.h"
#include "ast/ASTHelpers.h"
#include "device/CallerDevices.h"
#include "device/DeviceFlow.h"
#include "libtorch/HostSync.h"
#include "libtorch/TorchModules.h"
#include "libtorch/TorchTypes.h"
#include "program/HostEvents.h"
#include "program/HotLoops.h"
#include "clang/AST/DeclCXX.h"
#include <map>
#include <tuple>

namespace clang::tidy::torch::program {

namespace {
/// (definition, bodies still allowed, CPU parameters) -> the sync found,
/// if any.
thread_local std::map<std::tuple<const FunctionDecl *, unsigned, CPUParameters>,
                      HiddenWait>
    HiddenSyncCache;
/// The timing's own waits in the blocks read so far (collectTimingWaits).
thread_local llvm::SmallPtrSet<const Expr *, 8> TimingWaits;

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

HiddenWait syncInBody(const FunctionDecl *Def, unsigned Depth,
                      CPUParameters OnCPU, ASTContext &Ctx);

/// In \p S, part of the body of \p In, whose parameters \p OnCPU hold CPU
/// tensors. \p SkipLoops: \p In runs once per step, and its loops are hot
/// (HotLoops.h) and report their own syncs.
HiddenWait findSync(const Stmt *S, const FunctionDecl *In, unsigned Depth,
                    CPUParameters OnCPU, bool SkipLoops, ASTContext &Ctx) {
  if (!S || isa<LambdaExpr>(S) || (SkipLoops && ast::isLoop(S)))
    return {};
  // A branch under a periodic guard (`if (epoch % 4000 == 0) print(q);`)
  // runs once per interval.
  if (auto Parts = ast::partsBesidePeriodicBranch(S)) {
    for (const Stmt *Part : *Parts)
      if (HiddenWait Found = findSync(Part, In, Depth, OnCPU, SkipLoops, Ctx);
          Found.Call)
        return Found;
    return {};
  }
  // A wait next to a clock read is the timing's, not a stall.
  if (const auto *Block = dyn_cast<CompoundStmt>(S))
    collectTimingWaits(Block, Ctx, TimingWaits);
  if (const auto *Call = dyn_cast<CallExpr>(S)) {
    // A read of a tensor on the CPU (`torch::rand({1}).item<float>()`)
    // waits for nothing.
    if (const libtorch::SyncOperation *Op =
            TimingWaits.contains(Call)
                ? nullptr
                : syncOperationIn(Call, /*ResultUsed=*/true, In, Ctx)) {
      // A batch worker answers from its unit, as for the CPU arguments
      // below: no fact line defers a wait inside a callee.
      device::DeviceValue Read = readDevice(Call, Op, In, Ctx, OnCPU);
      if (!Read.isCPU() && !device::inheritsCPU(Read, Ctx, /*InThisUnit=*/true))
        return {Call, In};
    }
    if (const FunctionDecl *Def = enterable(Call->getDirectCallee());
        Def && Depth > 1)
      if (HiddenWait Found =
              syncInBody(Def, Depth - 1,
                         OnCPU ? cpuArguments(Call, In, OnCPU, Ctx) : 0, Ctx);
          Found.Call)
        return Found;
  }
  for (const Stmt *Child : S->children())
    if (HiddenWait Found = findSync(Child, In, Depth, OnCPU, SkipLoops, Ctx);
        Found.Call)
      return Found;
  return {};
}

HiddenWait syncInBody(const FunctionDecl *Def, unsigned Depth,
                      CPUParameters OnCPU, ASTContext &Ctx) {
  auto [It, New] = HiddenSyncCache.try_emplace({Def, Depth, OnCPU});
  if (!New) // known, or being computed (recursion): none found so far
    return It->second;
  HiddenWait Found = findSync(Def->getBody(), Def, Depth, OnCPU,
                              static_cast<bool>(perStepCall(Def, Ctx)), Ctx);
  HiddenSyncCache[{Def, Depth, OnCPU}] = Found;
  return Found;
}
} // namespace

HiddenWait hiddenSync(const FunctionDecl *FD, ASTContext &Ctx,
                      CPUParameters OnCPU) {
  const FunctionDecl *Def = enterable(FD);
  return Def ? syncInBody(Def, 3, OnCPU, Ctx) : HiddenWait();
}

CPUParameters cpuArguments(const CallExpr *Call, const FunctionDecl *Caller,
                           CPUParameters CallerOnCPU, ASTContext &Ctx) {
  const FunctionDecl *Callee = Call->getDirectCallee();
  if (!Callee || !Caller || !Caller->getBody() || Caller->isDependentContext())
    return 0;
  // The arguments as \p Caller computes them when its own parameters
  // \p CallerOnCPU hold CPU tensors.
  const device::DeviceFlow &Flow =
      device::DeviceFlow::getWithCPUParameters(Caller, CallerOnCPU, Ctx);
  return device::cpuParameters(Call, Callee, [&](const Expr *Arg) {
    if (isa<CXXDefaultArgExpr>(Arg))
      return false;
    // No fact line defers this question: a batch worker answers it from
    // its own unit, as a single-file run does.
    device::DeviceValue V = Flow.factOf(Arg).Device;
    return V.isCPU() || device::inheritsCPU(V, Ctx, /*InThisUnit=*/true);
  });
}

void clearHiddenSyncCache() {
  HiddenSyncCache.clear();
  TimingWaits.clear();
}

/// `x.to(device)` toward the device \p Fn places its model on: where the
/// function computes. When that is the CPU (`device` is kCPU on every
/// path), the copy moves nothing off a GPU.
static bool towardModelDevice(const CallExpr *Call, const FunctionDecl *Fn) {
  if (!Fn || !Fn->getBody())
    return false;
  return llvm::any_of(Call->arguments(), [&](const Expr *A) {
    const auto *Ref = dyn_cast<DeclRefExpr>(ast::stripCopiesAndConversions(A));
    return Ref && libtorch::placesModuleOn(Fn->getBody(), Ref->getDecl());
  });
}

const libtorch::SyncOperation *syncOperationIn(const CallExpr *Call,
                                               bool ResultUsed,
                                               const FunctionDecl *Fn,
                                               ASTContext &Ctx) {
  if (const libtorch::SyncOperation *Op =
          libtorch::syncOperationOf(Call, ResultUsed, Ctx))
    return Op->Option == "to" && towardModelDevice(Call, Fn) ? nullptr : Op;
  const auto *MC = dyn_cast<CXXMemberCallExpr>(Call);
  const CXXMethodDecl *MD = MC ? MC->getMethodDecl() : nullptr;
  // A discarded copy is torch-discarded-to's, and waits for nothing here.
  if (!ResultUsed || !Fn || !MD || !MD->getIdentifier() ||
      MD->getName() != "to" || !libtorch::isTensorRecord(MD->getParent()) ||
      libtorch::isNonBlocking(Call, Ctx) || Fn->isDependentContext())
    return nullptr;
  if (!device::DeviceFlow::getForCallers(Fn, Ctx)
           .conversionTarget(MC)
           .isCPU() ||
      towardModelDevice(Call, Fn))
    return nullptr;
  return libtorch::syncOperationByOption("to");
}

device::DeviceValue readDevice(const Expr *Call,
                               const libtorch::SyncOperation *Op,
                               const FunctionDecl *Fn, ASTContext &Ctx,
                               CPUParameters OnCPU) {
  if (!Fn || !Op || Op->Wait == libtorch::SyncWait::AllWork)
    return {};
  // The tensor read: the index of `x[i]`, else the receiver, else the first
  // tensor argument that is not an output (`torch::nonzero(t)`,
  // `std::cout << t`, not the `out` of `nonzero_out(out, t)`).
  const Expr *Read = nullptr;
  const auto *Subscript = dyn_cast<CXXOperatorCallExpr>(Call);
  if (Op->Option == "operator[]" && Subscript && Subscript->getNumArgs() == 2)
    Read = Subscript->getArg(1); // the index
  else if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Call))
    Read = MC->getImplicitObjectArgument();
  else if (const auto *C = dyn_cast<CallExpr>(Call)) {
    const FunctionDecl *FD = C->getDirectCallee();
    const unsigned Offset =
        isa<CXXOperatorCallExpr>(C) && isa_and_nonnull<CXXMethodDecl>(FD);
    for (unsigned I = 0; I < C->getNumArgs() && !Read; ++I) {
      const Expr *A = C->getArg(I);
      QualType P = FD && I >= Offset && I - Offset < FD->getNumParams()
                       ? FD->getParamDecl(I - Offset)->getType()
                       : QualType();
      bool Output = !P.isNull() && P->isLValueReferenceType() &&
                    !P.getNonReferenceType().isConstQualified();
      if (libtorch::isTensorType(A->getType()) && !Output)
        Read = A;
    }
  }
  if (!Read)
    return {};
  // In a template's instantiation too: where a local copy lives
  // (`delta = delta_dev.to(cpu_device)`) is the same in every one.
  const device::DeviceFlow &Flow =
      device::DeviceFlow::getWithCPUParameters(Fn, OnCPU, Ctx);
  device::DeviceFact F = Flow.factOf(Read);
  // A forward() argument is on the module's device for the device analysis
  // (a CPU input there is the caller's mismatch); a read of it waits only if
  // the callers pass a device tensor: caption lengths kept on the CPU for
  // packing do not. The value is the callers' (CallerDevices.h), which
  // batch mode answers across files (device::deferToProgram).
  if (F.From.Kind == device::Origin::ForwardArgument)
    for (const ParmVarDecl *P : Fn->parameters())
      if (P->getLocation() == F.From.Loc)
        return device::inheritsCPU(device::DeviceValue::inherited(P), Ctx)
                   ? device::DeviceValue::cpu()
               : device::exportsUnitFacts() ? device::DeviceValue::inherited(P)
                                            : F.Device;
  return F.Device;
}

} // namespace clang::tidy::torch::program
