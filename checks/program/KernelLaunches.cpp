//===- KernelLaunches.cpp - the GPU work of a host function ---------------===//
#include "program/KernelLaunches.h"
#include "ast/ASTHelpers.h"
#include "ast/DeviceCode.h"
#include "device/CallerDevices.h"
#include "device/DeviceFlow.h"
#include "device/ProgramFacts.h"
#include "libtorch/CudaApi.h"
#include "libtorch/ProgramCode.h"
#include "libtorch/TorchTypes.h"
#include "program/DispatchRegistrations.h"
#include "llvm/ADT/DenseMap.h"
#include <functional>
#include <set>
#include <utility>

namespace clang::tidy::torch::program {

namespace {

/// The statements from a function body down to a node, outermost first.
using StmtPath = llvm::SmallVector<const Stmt *, 16>;

bool pathTo(const Stmt *S, const Stmt *Target, StmtPath &Path) {
  if (!S)
    return false;
  Path.push_back(S);
  if (S == Target)
    return true;
  if (const auto *L = dyn_cast<LambdaExpr>(S)) {
    if (pathTo(L->getBody(), Target, Path))
      return true;
  } else {
    for (const Stmt *Child : S->children())
      if (pathTo(Child, Target, Path))
        return true;
  }
  Path.pop_back();
  return false;
}

StmtPath pathIn(const FunctionDecl *Fn, const Stmt *Target) {
  StmtPath Path;
  if (!pathTo(Fn->getBody(), Target, Path))
    Path.clear();
  return Path;
}

/// Calls \p Visit on each statement that runs before Path.back(): the
/// earlier statements of each enclosing block and the conditions of the
/// enclosing branches and loops. Stops when \p Visit returns true.
template <typename F> bool anyBefore(const StmtPath &Path, F Visit) {
  for (size_t I = 0; I + 1 < Path.size(); ++I) {
    const Stmt *Next = Path[I + 1];
    if (const auto *CS = dyn_cast<CompoundStmt>(Path[I])) {
      for (const Stmt *Prior : CS->body()) {
        if (Prior == Next)
          break;
        if (Visit(Prior))
          return true;
      }
    } else if (const auto *If = dyn_cast<IfStmt>(Path[I])) {
      if (If->getCond() != Next && Visit(If->getCond()))
        return true;
    } else if (const auto *CO = dyn_cast<ConditionalOperator>(Path[I])) {
      if (CO->getCond() != Next && Visit(CO->getCond()))
        return true;
    } else if (const auto *BO = dyn_cast<BinaryOperator>(Path[I])) {
      if (BO->isLogicalOp() && BO->getRHS() == Next && Visit(BO->getLHS()))
        return true;
    }
  }
  return false;
}

/// True if \p Visit holds for \p S or a node below it, lambdas excluded.
template <typename F> bool anyNode(const Stmt *S, F Visit) {
  if (!S)
    return false;
  if (Visit(S))
    return true;
  if (isa<LambdaExpr>(S))
    return false;
  for (const Stmt *Child : S->children())
    if (anyNode(Child, Visit))
      return true;
  return false;
}

bool isDeviceLambda(const LambdaExpr *L) {
  return ast::isDeviceFunction(L->getCallOperator());
}

/// The first piece of GPU work of each launcher: the memo of firstWork().
struct UnitCache {
  ASTContext *Ctx = nullptr;
  llvm::DenseMap<const FunctionDecl *, const Expr *> FirstWork;
};
thread_local UnitCache Cache;

const Expr *firstWork(const FunctionDecl *FD, ASTContext &Ctx, unsigned Depth);

void collectWork(const Stmt *S, ASTContext &Ctx, unsigned Depth,
                 std::vector<GpuWork> &Out) {
  if (!S)
    return;
  if (const auto *L = dyn_cast<LambdaExpr>(S)) {
    if (!isDeviceLambda(L))
      collectWork(L->getBody(), Ctx, Depth, Out);
    return;
  }
  if (const auto *E = dyn_cast<Expr>(S)) {
    if (libtorch::isGpuWork(E)) {
      Out.push_back({E, E, nullptr});
    } else if (const auto *Call = dyn_cast<CallExpr>(E);
               Call && Depth > 0 && !isa<CXXOperatorCallExpr>(Call)) {
      const FunctionDecl *Callee = Call->getDirectCallee();
      const FunctionDecl *Def = Callee ? Callee->getDefinition() : nullptr;
      if (Def && !firstTensorParameter(Def))
        if (const Expr *W = firstWork(Def, Ctx, Depth - 1))
          Out.push_back({Call, W, Def});
    }
  }
  for (const Stmt *Child : S->children())
    collectWork(Child, Ctx, Depth, Out);
}

const Expr *firstWork(const FunctionDecl *FD, ASTContext &Ctx, unsigned Depth) {
  if (!FD->hasBody() || !device::isUserFunction(FD) ||
      ast::isDeviceFunction(FD) || libtorch::isLibraryDecl(FD))
    return nullptr;
  if (Cache.Ctx != &Ctx) {
    Cache = UnitCache();
    Cache.Ctx = &Ctx;
  }
  auto [It, New] = Cache.FirstWork.try_emplace(FD, nullptr);
  if (!New)
    return It->second; // known, or being computed (a cycle adds nothing)
  std::vector<GpuWork> Work;
  collectWork(FD->getBody(), Ctx, Depth, Work);
  const Expr *First = Work.empty() ? nullptr : Work.front().Work;
  Cache.FirstWork[FD] = First;
  return First;
}

/// True for a statement that declares a device guard or selects a device.
bool makesDeviceCurrent(const Stmt *S) {
  if (const auto *DS = dyn_cast<DeclStmt>(S))
    for (const Decl *D : DS->decls())
      if (const auto *V = dyn_cast<VarDecl>(D))
        if (libtorch::isDeviceGuardVariable(V))
          return true;
  return anyNode(S, [](const Stmt *N) {
    const auto *Call = dyn_cast<CallExpr>(N);
    return Call && libtorch::isDeviceSelection(Call);
  });
}

/// True if \p S reads the launch error: a cudaGetLastError() or
/// cudaPeekAtLastError() whose result is used, or c10's CUDA check.
bool readsLaunchError(const Stmt *S, bool Discarded) {
  if (!S || isa<LambdaExpr>(S))
    return false;
  if (const auto *Call = dyn_cast<CallExpr>(S)) {
    if (libtorch::isLaunchErrorRead(Call) && !Discarded)
      return true;
    if (const FunctionDecl *FD = Call->getDirectCallee())
      if (FD->getIdentifier() &&
          FD->getName() == "c10_cuda_check_implementation")
        return true;
  }
  if (isa<CompoundStmt>(S)) {
    for (const Stmt *Child : S->children())
      if (readsLaunchError(Child, true))
        return true;
    return false;
  }
  // A value passes through parentheses and implicit nodes; a cast to void
  // discards it.
  bool ChildDiscarded = false;
  if (isa<ParenExpr, ImplicitCastExpr, ExprWithCleanups>(S))
    ChildDiscarded = Discarded;
  else if (const auto *Cast = dyn_cast<CStyleCastExpr>(S))
    ChildDiscarded = Cast->getType()->isVoidType();
  for (const Stmt *Child : S->children())
    if (readsLaunchError(Child, ChildDiscarded))
      return true;
  return false;
}

/// True if the value of Path.back() is used: its parent is no block and no
/// cast to void.
bool resultUsed(const StmtPath &Path) {
  for (size_t I = Path.size() - 1; I-- > 0;) {
    const Stmt *Parent = Path[I];
    if (isa<ParenExpr, ImplicitCastExpr, ExprWithCleanups>(Parent))
      continue;
    if (const auto *Cast = dyn_cast<CStyleCastExpr>(Parent))
      return !Cast->getType()->isVoidType();
    return !isa<CompoundStmt>(Parent);
  }
  return false;
}

/// True for a comparison `t.device().type() == kCUDA` (either order) whose
/// tensor side comes from \p Tensor.
bool comparesWithCuda(const Expr *L, const Expr *R, const ParmVarDecl *Tensor,
                      const FunctionDecl *Fn) {
  return (libtorch::namesCuda(R) && tensorParameterOf(L, Fn) == Tensor) ||
         (libtorch::namesCuda(L) && tensorParameterOf(R, Fn) == Tensor);
}

/// For a comparison of two tensors' devices (`a.device() == b.device()`,
/// `a.device().type() == b.device().type()`, `a.get_device() ==
/// b.get_device()`) with \p Tensor on one side: the parameter on the other.
const ParmVarDecl *sameDeviceAs(const Expr *L, const Expr *R,
                                const ParmVarDecl *Tensor,
                                const FunctionDecl *Fn) {
  const Expr *A = libtorch::deviceOperandOf(L);
  const Expr *B = libtorch::deviceOperandOf(R);
  if (!A || !B)
    return nullptr;
  const ParmVarDecl *PA = tensorParameterOf(A, Fn);
  const ParmVarDecl *PB = tensorParameterOf(B, Fn);
  if (PA == Tensor && PB != Tensor)
    return PB;
  if (PB == Tensor && PA != Tensor)
    return PA;
  return nullptr;
}

bool testsOnCuda(const Stmt *S, const ParmVarDecl *Tensor,
                 const FunctionDecl *Fn, unsigned Depth);

/// True if \p Call passes \p Tensor to a function of this file that tests
/// its parameter (`check_input(x)`).
bool passesToTester(const CallExpr *Call, const ParmVarDecl *Tensor,
                    const FunctionDecl *Fn, unsigned Depth) {
  const FunctionDecl *Callee = Call->getDirectCallee();
  const FunctionDecl *Def = Callee ? Callee->getDefinition() : nullptr;
  if (!Def || Depth == 0 || !device::isUserFunction(Def))
    return false;
  for (unsigned I = 0; I < Call->getNumArgs() && I < Def->getNumParams(); ++I)
    if (tensorParameterOf(Call->getArg(I), Fn) == Tensor &&
        testsOnCuda(Def->getBody(), Def->getParamDecl(I), Def, Depth - 1))
      return true;
  return false;
}

/// True for at::checkAllSameGPU / at::checkSameGPU given \p Tensor, or a
/// TensorArg local made from it: they throw unless it is on a GPU; and for
/// at::cuda::check_device({...}), false unless each tensor is on the
/// current CUDA device (under a check that fails).
bool checksSameGPU(const CallExpr *Call, const ParmVarDecl *Tensor,
                   const FunctionDecl *Fn) {
  const FunctionDecl *Callee = Call->getDirectCallee();
  if (!Callee || !Callee->getIdentifier() ||
      !libtorch::isLibTorchDecl(Callee) ||
      (Callee->getName() != "checkAllSameGPU" &&
       Callee->getName() != "checkSameGPU" &&
       Callee->getName() != "check_device"))
    return false;
  std::function<bool(const Stmt *, unsigned)> Mentions = [&](const Stmt *S,
                                                             unsigned Depth) {
    return anyNode(S, [&](const Stmt *N) {
      const auto *DRE = dyn_cast<DeclRefExpr>(N);
      if (!DRE)
        return false;
      if (tensorParameterOf(DRE, Fn) == Tensor)
        return true;
      const auto *V = dyn_cast<VarDecl>(DRE->getDecl());
      return V && Depth > 0 && V->hasLocalStorage() && V->getInit() &&
             !isa<ParmVarDecl>(V) && Mentions(V->getInit(), Depth - 1);
    });
  };
  return llvm::any_of(Call->arguments(),
                      [&](const Expr *A) { return Mentions(A, 1); });
}

/// The statements that run before the one \p testsOnCuda looks at, for a
/// proof carried from another tensor (`a.device() == b.device()`).
thread_local const StmtPath *Earlier = nullptr;

bool provenBefore(const ParmVarDecl *Tensor, const FunctionDecl *Fn,
                  unsigned Depth) {
  if (!Earlier || !Tensor || Depth == 0)
    return false;
  return anyBefore(*Earlier, [&](const Stmt *S) {
    return testsOnCuda(S, Tensor, Fn, Depth - 1);
  });
}

/// True for `Tensor == <a proven tensor>` in devices (either order).
bool comparesWithProven(const Expr *L, const Expr *R, const ParmVarDecl *Tensor,
                        const FunctionDecl *Fn, unsigned Depth) {
  if (comparesWithCuda(L, R, Tensor, Fn))
    return true;
  const ParmVarDecl *Other = sameDeviceAs(L, R, Tensor, Fn);
  return Other && provenBefore(Other, Fn, Depth);
}

/// True for `Tensor = factory(..., p.options())` (or `p.device()`) with `p`
/// a proven tensor: it is allocated on p's device there.
bool allocatedLikeProven(const Expr *LHS, const Expr *RHS,
                         const ParmVarDecl *Tensor, const FunctionDecl *Fn,
                         unsigned Depth) {
  if (ast::rootVariable(ast::stripCopiesAndMoves(LHS)) != Tensor)
    return false;
  return anyNode(RHS, [&](const Stmt *N) {
    const auto *E = dyn_cast<Expr>(N);
    const Expr *Source = E ? libtorch::deviceOperandOf(E) : nullptr;
    const ParmVarDecl *P = Source ? tensorParameterOf(Source, Fn) : nullptr;
    return P && P != Tensor && provenBefore(P, Fn, Depth);
  });
}

bool testsOnCuda(const Stmt *S, const ParmVarDecl *Tensor,
                 const FunctionDecl *Fn, unsigned Depth) {
  return anyNode(S, [&](const Stmt *N) {
    if (const auto *MC = dyn_cast<CXXMemberCallExpr>(N))
      if (libtorch::isCudaDeviceTest(MC))
        return tensorParameterOf(MC->getImplicitObjectArgument(), Fn) == Tensor;
    if (const auto *BO = dyn_cast<BinaryOperator>(N)) {
      if (BO->getOpcode() == BO_EQ)
        return comparesWithProven(BO->getLHS(), BO->getRHS(), Tensor, Fn,
                                  Depth);
      if (BO->getOpcode() == BO_Assign)
        return allocatedLikeProven(BO->getLHS(), BO->getRHS(), Tensor, Fn,
                                   Depth);
      return false;
    }
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(N)) {
      if (Op->getOperator() == OO_EqualEqual && Op->getNumArgs() == 2)
        return comparesWithProven(Op->getArg(0), Op->getArg(1), Tensor, Fn,
                                  Depth);
      if (Op->getOperator() == OO_Equal && Op->getNumArgs() == 2)
        return allocatedLikeProven(Op->getArg(0), Op->getArg(1), Tensor, Fn,
                                   Depth);
      return false;
    }
    if (const auto *Call = dyn_cast<CallExpr>(N))
      return checksSameGPU(Call, Tensor, Fn) ||
             passesToTester(Call, Tensor, Fn, Depth);
    return false;
  });
}

/// True when a statement before \p Site in \p Fn tests that \p Tensor is
/// on CUDA; those statements are also where a proof of another tensor it
/// is compared with is looked for (Earlier).
bool testedBefore(const FunctionDecl *Fn, const Expr *Site,
                  const ParmVarDecl *Tensor) {
  StmtPath Path = pathIn(Fn, Site);
  const StmtPath *Outer = std::exchange(Earlier, &Path);
  bool Tested = anyBefore(
      Path, [&](const Stmt *S) { return testsOnCuda(S, Tensor, Fn, 2); });
  Earlier = Outer;
  return Tested;
}

/// True for the name of a tensor method that hands out memory, in a call a
/// template leaves unresolved.
bool isMemoryAccessName(DeclarationName Name) {
  return Name.isIdentifier() && libtorch::isTensorMemoryAccessName(
                                    Name.getAsIdentifierInfo()->getName());
}

/// The tensor expression whose memory \p S hands out directly, or null.
const Expr *accessedTensor(const Stmt *S) {
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(S))
    return libtorch::isTensorMemoryAccess(MC) ? MC->getImplicitObjectArgument()
                                              : nullptr;
  const auto *Call = dyn_cast<CallExpr>(S);
  if (!Call)
    return nullptr;
  const Expr *Callee = Call->getCallee()->IgnoreParens();
  const Expr *Base = nullptr;
  if (const auto *UM = dyn_cast<UnresolvedMemberExpr>(Callee)) {
    if (isMemoryAccessName(UM->getMemberName()) && !UM->isImplicitAccess())
      Base = UM->getBase();
  } else if (const auto *DM = dyn_cast<CXXDependentScopeMemberExpr>(Callee)) {
    if (isMemoryAccessName(DM->getMember()) && !DM->isImplicitAccess())
      Base = DM->getBase();
  }
  if (Base && libtorch::isTensorType(Base->getType().getNonReferenceType()))
    return Base;
  return nullptr;
}

/// True if \p Body takes the memory of parameter \p P (a helper's).
bool takesMemoryOf(const Stmt *Body, const ParmVarDecl *P) {
  return anyNode(Body, [&](const Stmt *N) {
    const Expr *T = accessedTensor(N);
    return T && ast::rootVariable(ast::stripCopiesAndMoves(T)) == P;
  });
}

void collectAccesses(const Stmt *S, const FunctionDecl *Fn, unsigned Depth,
                     std::vector<HandedMemory> &Out) {
  if (!S)
    return;
  if (const Expr *T = accessedTensor(S)) {
    if (const ParmVarDecl *P = tensorParameterOf(T, Fn)) {
      Out.push_back({P, cast<Expr>(S), T});
      return;
    }
  } else if (const auto *Call = dyn_cast<CallExpr>(S)) {
    // A helper of this file that takes the memory of a tensor it is given.
    const FunctionDecl *Callee = Call->getDirectCallee();
    const FunctionDecl *Def = Callee ? Callee->getDefinition() : nullptr;
    if (const FunctionTemplateDecl *Primary =
            Def ? Def->getPrimaryTemplate() : nullptr)
      Def = Primary->getTemplatedDecl();
    if (Def && Def->getBody() && device::isUserFunction(Def))
      for (unsigned I = 0; I < Call->getNumArgs() && I < Def->getNumParams();
           ++I)
        if (const ParmVarDecl *P = tensorParameterOf(Call->getArg(I), Fn))
          if (takesMemoryOf(Def->getBody(), Def->getParamDecl(I))) {
            Out.push_back({P, Call, Call->getArg(I)});
            return;
          }
  }
  if (const auto *DRE = dyn_cast<DeclRefExpr>(S))
    if (const auto *V = dyn_cast<VarDecl>(DRE->getDecl()))
      if (Depth > 0 && !isa<ParmVarDecl>(V) && V->hasLocalStorage() &&
          V->getInit() &&
          !libtorch::isTensorType(V->getType().getNonReferenceType()))
        collectAccesses(V->getInit(), Fn, Depth - 1, Out);
  for (const Stmt *Child : S->children())
    collectAccesses(Child, Fn, Depth, Out);
}

/// One way \p Fn is reached in this unit: a call, a registry's dispatch
/// (its arguments from ArgOffset on are Fn's), or PyTorch's dispatcher
/// (no call in the program: Site.Call is null).
struct Edge {
  device::CallSite Site;
  unsigned ArgOffset = 0;
  /// What the dispatch proves by itself: nothing, the first tensor
  /// argument on CUDA, or every one (program/DispatchRegistrations.h).
  enum : unsigned char { None, First, Every } Proves = None;
};

/// The ways \p Fn is reached in this unit; for a template (the pattern the
/// checks look at), the calls of each of its instantiations.
std::vector<Edge> callsOf(const FunctionDecl *Fn, ASTContext &Ctx) {
  std::vector<Edge> Edges;
  auto Add = [&](const FunctionDecl *FD) {
    for (const device::CallSite &S : device::callSitesOf(FD, Ctx))
      Edges.push_back({S});
  };
  Add(Fn);
  if (const FunctionTemplateDecl *FTD = Fn->getDescribedFunctionTemplate())
    for (const FunctionDecl *Spec : FTD->specializations())
      Add(Spec);
  if (const auto *MD = dyn_cast<CXXMethodDecl>(Fn))
    if (const ClassTemplateDecl *CTD =
            MD->getParent()->getDescribedClassTemplate())
      for (const ClassTemplateSpecializationDecl *Spec : CTD->specializations())
        for (const NamedDecl *D : Spec->lookup(MD->getDeclName()))
          if (const auto *FD = dyn_cast<FunctionDecl>(D))
            if (FD->getInstantiatedFromMemberFunction() == MD)
              Add(FD);
  if (const CudaRegistration *R = cudaRegistrationOf(Fn, Ctx)) {
    if (R->Registry.empty())
      Edges.push_back({{nullptr, nullptr}, 0, Edge::First});
    for (const RegistryDispatch &D : registryDispatchesInUnit(Ctx))
      if (D.Registry == R->Registry)
        Edges.push_back({{D.Call, D.Caller},
                         D.FirstForwarded,
                         D.ChecksOneDevice ? Edge::Every : Edge::First});
  }
  return Edges;
}

/// True when \p Fn is called and every call is covered: \p Covers holds
/// for it, or its caller is covered in turn, however many calls up (a
/// dispatch template that recurses once per value). A cycle covers
/// nothing.
template <typename F>
bool everyCallCovered(const FunctionDecl *Fn, ASTContext &Ctx, F Covers,
                      llvm::DenseMap<const FunctionDecl *, bool> &Memo) {
  auto [It, New] = Memo.try_emplace(Fn, false);
  if (!New)
    return It->second;
  std::vector<Edge> Edges = callsOf(Fn, Ctx);
  bool Covered =
      !Edges.empty() && Memo.size() < 4096 &&
      llvm::all_of(
          Edges,
          [&](const Edge &E) {
            return E.Site.Call &&
                   (Covers(E.Site) ||
                    everyCallCovered(E.Site.Caller, Ctx, Covers, Memo));
          });
  Memo[Fn] = Covered;
  return Covered;
}

} // namespace

const ParmVarDecl *firstTensorParameter(const FunctionDecl *Fn) {
  for (const ParmVarDecl *P : Fn->parameters())
    if (libtorch::isTensorType(P->getType().getNonReferenceType()))
      return P;
  return nullptr;
}

std::vector<GpuWork> gpuWorkOf(const FunctionDecl *Fn, ASTContext &Ctx) {
  std::vector<GpuWork> Out;
  collectWork(Fn->getBody(), Ctx, 3, Out);
  return Out;
}

bool guardedAt(const FunctionDecl *Fn, const Expr *Site) {
  StmtPath Path = pathIn(Fn, Site);
  return anyBefore(Path, makesDeviceCurrent);
}

bool guardedByEveryCaller(const FunctionDecl *Fn, ASTContext &Ctx) {
  llvm::DenseMap<const FunctionDecl *, bool> Memo;
  return everyCallCovered(
      Fn, Ctx,
      [](const device::CallSite &S) { return guardedAt(S.Caller, S.Call); },
      Memo);
}

bool launchErrorReadAfter(const FunctionDecl *Fn, const Expr *Site) {
  StmtPath Path = pathIn(Fn, Site);
  if (Path.empty())
    return false;
  if (!isa<CUDAKernelCallExpr>(Site) && libtorch::isKernelLaunch(Site) &&
      resultUsed(Path))
    return true;
  for (size_t I = Path.size() - 1; I-- > 0;) {
    const auto *CS = dyn_cast<CompoundStmt>(Path[I]);
    if (!CS)
      continue;
    bool After = false;
    for (const Stmt *Child : CS->body()) {
      if (After && readsLaunchError(Child, true))
        return true;
      After = After || Child == Path[I + 1];
    }
  }
  return false;
}

const Stmt *statementInBlock(const FunctionDecl *Fn, const Expr *Site) {
  StmtPath Path = pathIn(Fn, Site);
  for (size_t I = Path.size() - 1; I-- > 0;) {
    if (isa<CompoundStmt>(Path[I]))
      return Path[I + 1];
    if (!isa<Expr>(Path[I]))
      return nullptr;
  }
  return nullptr;
}

bool launchErrorReadByEveryCaller(const FunctionDecl *Fn, ASTContext &Ctx) {
  llvm::DenseMap<const FunctionDecl *, bool> Memo;
  return everyCallCovered(
      Fn, Ctx,
      [](const device::CallSite &S) {
        return launchErrorReadAfter(S.Caller, S.Call);
      },
      Memo);
}

std::vector<HandedMemory> memoryHandedTo(const FunctionDecl *Fn,
                                         const Expr *Site) {
  std::vector<HandedMemory> Out;
  const auto *Call = dyn_cast<CallExpr>(Site);
  if (!Call ||
      (!isa<CUDAKernelCallExpr>(Call) && libtorch::isKernelLaunch(Call)))
    return Out; // cudaLaunchKernel's arguments are an array of pointers
  for (const Expr *Arg : Call->arguments())
    collectAccesses(Arg, Fn, 1, Out);
  return Out;
}

/// For `f(t)`, a call of a function of the user's that takes one tensor
/// and returns one (`normalize_shape(x_)`, a view): the argument.
static const Expr *reshapedTensor(const Expr *E) {
  const auto *Call = dyn_cast<CallExpr>(ast::stripCopiesAndMoves(E));
  const FunctionDecl *Callee = Call ? Call->getDirectCallee() : nullptr;
  if (!Callee || isa<CXXMethodDecl>(Callee) ||
      !device::isUserFunction(Callee) ||
      !libtorch::isTensorType(Callee->getReturnType().getNonReferenceType()))
    return nullptr;
  const Expr *Only = nullptr;
  for (const Expr *Arg : Call->arguments())
    if (libtorch::isTensorType(Arg->getType().getNonReferenceType())) {
      if (Only)
        return nullptr;
      Only = Arg;
    }
  return Only;
}

const ParmVarDecl *tensorParameterOf(const Expr *E, const FunctionDecl *Fn) {
  const VarDecl *V = ast::rootVariable(ast::stripCopiesAndMoves(E));
  for (unsigned Step = 0; V && Step < 4; ++Step) {
    if (!libtorch::isTensorType(V->getType().getNonReferenceType()))
      return nullptr;
    if (const auto *P = dyn_cast<ParmVarDecl>(V))
      return P->getDeclContext() == Fn ? P : nullptr;
    if (!V->hasLocalStorage() || !V->getInit())
      return nullptr;
    const Expr *Init = V->getInit();
    if (const Expr *Arg = reshapedTensor(Init))
      Init = Arg;
    V = ast::rootVariable(ast::stripCopiesAndMoves(Init));
  }
  return nullptr;
}

bool provenOnCudaAt(const FunctionDecl *Fn, const ParmVarDecl *Tensor,
                    const Expr *Site, const Expr *Object, ASTContext &Ctx) {
  if (testedBefore(Fn, Site, Tensor))
    return true;
  if (!Object || ast::isTemplateCode(Fn))
    return false;
  const device::DeviceFlow &Flow = device::DeviceFlow::get(Fn, Ctx);
  return Flow.analyzed() &&
         Flow.deviceOf(Object).kind() == device::DeviceValue::CUDA;
}

/// True when the argument of \p S for parameter \p Index is proven on CUDA
/// at the call; else \p CallerParam is the caller's tensor parameter it
/// comes from, if any.
static bool provenAtCall(const device::CallSite &S, unsigned Index,
                         ASTContext &Ctx, const ParmVarDecl *&CallerParam,
                         bool AskDeviceFlow = true) {
  CallerParam = nullptr;
  if (Index >= S.Call->getNumArgs())
    return false;
  const Expr *Arg = S.Call->getArg(Index);
  CallerParam = tensorParameterOf(Arg, S.Caller);
  if (CallerParam && testedBefore(S.Caller, S.Call, CallerParam))
    return true;
  if (!AskDeviceFlow || ast::isTemplateCode(S.Caller))
    return false;
  const device::DeviceFlow &Flow = device::DeviceFlow::get(S.Caller, Ctx);
  return Flow.analyzed() &&
         Flow.deviceOf(Arg).kind() == device::DeviceValue::CUDA;
}

/// True when the dispatch of \p E proves \p Fn's parameter \p Index.
static bool provenByDispatch(const Edge &E, const FunctionDecl *Fn,
                             unsigned Index) {
  const ParmVarDecl *First = firstTensorParameter(Fn);
  return E.Proves == Edge::Every || (E.Proves == Edge::First && First &&
                                     First->getFunctionScopeIndex() == Index);
}

static bool provenOnCudaByEveryCaller(const FunctionDecl *Fn, unsigned Index,
                                      ASTContext &Ctx, unsigned Depth) {
  std::vector<Edge> Edges = callsOf(Fn, Ctx);
  return !Edges.empty() && llvm::all_of(Edges, [&](const Edge &E) {
    if (provenByDispatch(E, Fn, Index))
      return true;
    if (!E.Site.Call)
      return false;
    const ParmVarDecl *P = nullptr;
    return provenAtCall(E.Site, Index + E.ArgOffset, Ctx, P) ||
           (P && Depth > 1 &&
            provenOnCudaByEveryCaller(E.Site.Caller, P->getFunctionScopeIndex(),
                                      Ctx, Depth - 1));
  });
}

bool provenOnCudaByEveryCaller(const FunctionDecl *Fn, unsigned Index,
                               ASTContext &Ctx) {
  return provenOnCudaByEveryCaller(Fn, Index, Ctx, 3);
}

/// The key of \p FD in the facts: a template instantiation goes by its
/// template, which is what the checks report on.
static std::string factKey(const FunctionDecl *FD) {
  if (const FunctionDecl *Pattern = FD->getTemplateInstantiationPattern())
    FD = Pattern;
  return device::functionKey(FD);
}

std::string guardFacts(ASTContext &Ctx) {
  using device::ProgramFacts;
  std::string Lines;
  for (const auto &[Callee, S] : device::callSitesInUnit(Ctx))
    if (firstTensorParameter(Callee))
      Lines += ProgramFacts::guardFact(
          factKey(Callee), guardedAt(S.Caller, S.Call)
                               ? "guarded"
                               : ProgramFacts::guardOf(factKey(S.Caller)));
  for (const RegistryDispatch &D : registryDispatchesInUnit(Ctx))
    Lines += ProgramFacts::guardFact(
        registryFunctionKey(D.Registry),
        guardedAt(D.Caller, D.Call) ? "guarded"
                                    : ProgramFacts::guardOf(factKey(D.Caller)));
  // PyTorch's dispatcher calls its CUDA kernels with no guard.
  for (const CudaRegistration &R : cudaRegistrationsInUnit(Ctx))
    if (R.Registry.empty())
      Lines += ProgramFacts::guardFact(factKey(R.Fn), "unguarded");
  return Lines + registrationFacts(Ctx);
}

/// The proof value of the argument for parameter \p Index at \p S.
static std::string proofValue(const device::CallSite &S, unsigned Index,
                              ASTContext &Ctx) {
  const ParmVarDecl *CallerParam = nullptr;
  if (provenAtCall(S, Index, Ctx, CallerParam, /*AskDeviceFlow=*/false))
    return "cuda";
  return CallerParam
             ? device::ProgramFacts::proofOf(
                   CallerParam->getFunctionScopeIndex(), factKey(S.Caller))
             : "unproven";
}

std::string proofFacts(ASTContext &Ctx) {
  using device::ProgramFacts;
  std::string Lines;
  for (const auto &[Callee, S] : device::callSitesInUnit(Ctx))
    for (const ParmVarDecl *P : Callee->parameters())
      if (libtorch::isTensorType(P->getType().getNonReferenceType()))
        Lines += ProgramFacts::proofFact(
            factKey(Callee), P->getFunctionScopeIndex(),
            proofValue(S, P->getFunctionScopeIndex(), Ctx));
  for (const RegistryDispatch &D : registryDispatchesInUnit(Ctx)) {
    bool First = true;
    for (unsigned I = 0; I < D.Forwarded; ++I) {
      const Expr *Arg = D.Call->getArg(D.FirstForwarded + I);
      if (!libtorch::isTensorType(Arg->getType().getNonReferenceType()))
        continue;
      Lines += ProgramFacts::proofFact(
          registryFunctionKey(D.Registry), I,
          D.ChecksOneDevice || First
              ? "cuda"
              : proofValue({D.Call, D.Caller}, D.FirstForwarded + I, Ctx));
      First = false;
    }
  }
  // PyTorch's dispatcher proves one tensor argument of its CUDA kernels.
  for (const CudaRegistration &R : cudaRegistrationsInUnit(Ctx)) {
    if (!R.Registry.empty())
      continue;
    const ParmVarDecl *First = firstTensorParameter(R.Fn);
    for (const ParmVarDecl *P : R.Fn->parameters())
      if (libtorch::isTensorType(P->getType().getNonReferenceType()))
        Lines +=
            ProgramFacts::proofFact(factKey(R.Fn), P->getFunctionScopeIndex(),
                                    P == First ? "cuda" : "unproven");
  }
  return Lines + registrationFacts(Ctx);
}

std::string errorReadFacts(ASTContext &Ctx) {
  std::string Lines;
  for (const auto &[Callee, S] : device::callSitesInUnit(Ctx))
    Lines += device::ProgramFacts::errorReadFact(
        factKey(Callee),
        launchErrorReadAfter(S.Caller, S.Call)
            ? "read"
            : device::ProgramFacts::errorsOf(factKey(S.Caller)));
  return Lines;
}

std::vector<const CallExpr *> callsOfOtherFiles(const FunctionDecl *Fn) {
  std::vector<const CallExpr *> Out;
  std::function<void(const Stmt *)> Walk = [&](const Stmt *S) {
    if (!S)
      return;
    if (const auto *L = dyn_cast<LambdaExpr>(S)) {
      if (!isDeviceLambda(L))
        Walk(L->getBody());
      return;
    }
    if (const auto *Call = dyn_cast<CallExpr>(S);
        Call && !isa<CXXOperatorCallExpr, CXXMemberCallExpr>(Call))
      if (const FunctionDecl *Callee = Call->getDirectCallee())
        if (!Callee->isDefined() && device::isUserFunction(Callee) &&
            !libtorch::isLibraryDecl(Callee) &&
            !ast::isDeviceFunction(Callee) && !firstTensorParameter(Callee) &&
            Callee->isExternallyVisible())
          Out.push_back(Call);
    for (const Stmt *Child : S->children())
      Walk(Child);
  };
  Walk(Fn->getBody());
  return Out;
}

std::vector<HandedMemory> memoryInArgument(const FunctionDecl *Fn,
                                           const Expr *Arg) {
  std::vector<HandedMemory> Out;
  collectAccesses(Arg, Fn, 1, Out);
  return Out;
}

/// "kernel 'k'", or "'cudaMemcpy'".
static std::string workName(const Expr *Work) {
  if (libtorch::isKernelLaunch(Work))
    return "kernel '" + libtorch::launchedName(Work) + "'";
  const FunctionDecl *FD = cast<CallExpr>(Work)->getDirectCallee();
  return "'" + (FD ? FD->getNameAsString() : std::string("?")) + "'";
}

std::string launcherFacts(ASTContext &Ctx) {
  std::string Lines;
  const SourceManager &SM = Ctx.getSourceManager();
  for (const FunctionDecl *FD : libtorch::programFunctionDefinitions(Ctx)) {
    // An instantiation (`template void launch<float>(...)`) goes by its own
    // parameter types, as a call of it in another file does.
    if (!FD->isExternallyVisible() || isa<CXXMethodDecl>(FD) ||
        ast::isDeviceFunction(FD) || firstTensorParameter(FD))
      continue;
    std::vector<GpuWork> Work = gpuWorkOf(FD, Ctx);
    if (Work.empty())
      continue;
    bool Guarded = llvm::all_of(
        Work, [&](const GpuWork &W) { return guardedAt(FD, W.Site); });
    std::string Params;
    for (const ParmVarDecl *P : FD->parameters()) {
      QualType T = P->getType().getNonReferenceType();
      if (T->isArithmeticType() || T->isEnumeralType())
        continue; // pointers and accessors carry memory

      bool Handed = llvm::any_of(Work, [&](const GpuWork &W) {
        const auto *Call = dyn_cast<CallExpr>(W.Site);
        return Call && llvm::any_of(Call->arguments(), [&](const Expr *A) {
                 return anyNode(A, [&](const Stmt *N) {
                   const auto *DRE = dyn_cast<DeclRefExpr>(N);
                   return DRE && DRE->getDecl() == P;
                 });
               });
      });
      if (Handed)
        Params += (Params.empty() ? "" : ",") +
                  std::to_string(P->getFunctionScopeIndex());
    }
    auto Pos = device::findingPosition(
        SM.getFileLoc(Work.front().Site->getBeginLoc()), SM);
    if (Pos)
      Lines += device::ProgramFacts::launcherFact(
          device::functionKey(FD), Guarded, Params, Pos->first, Pos->second,
          workName(Work.front().Work));
  }
  return Lines;
}

std::string deviceCodeFacts(ASTContext &Ctx) {
  if (!Ctx.getLangOpts().CUDA || !Ctx.getDiagnostics().hasErrorOccurred())
    return "";
  const SourceManager &SM = Ctx.getSourceManager();
  std::set<std::string> Lines;
  auto Add = [&](SourceRange R) {
    auto B = device::findingPosition(
        SM.getExpansionRange(R.getBegin()).getBegin(), SM);
    auto E =
        device::findingPosition(SM.getExpansionRange(R.getEnd()).getEnd(), SM);
    if (B && E && B->first == E->first && B->second <= E->second)
      Lines.insert(device::ProgramFacts::deviceCodeFact(B->first, B->second,
                                                        E->second + 1));
  };
  std::function<void(const DeclContext *)> Walk = [&](const DeclContext *DC) {
    for (const Decl *D : DC->decls()) {
      if (const auto *FTD = dyn_cast<FunctionTemplateDecl>(D))
        D = FTD->getTemplatedDecl();
      if (const auto *FD = dyn_cast<FunctionDecl>(D)) {
        if (FD->doesThisDeclarationHaveABody() && ast::isDeviceFunction(FD))
          Add(FD->getSourceRange());
        else if (FD->doesThisDeclarationHaveABody())
          for (SourceRange R : ast::deviceLambdaBodies(FD))
            Add(R);
      }
      if (const auto *Inner = dyn_cast<DeclContext>(D);
          Inner && isa<NamespaceDecl, CXXRecordDecl, LinkageSpecDecl>(D))
        Walk(Inner);
      if (const auto *CTD = dyn_cast<ClassTemplateDecl>(D))
        Walk(CTD->getTemplatedDecl());
    }
  };
  Walk(Ctx.getTranslationUnitDecl());
  std::string Out;
  for (const std::string &L : Lines)
    Out += L;
  return Out;
}

void clearKernelLaunchCache() {
  Cache = UnitCache();
  clearRegistrationCache();
}

} // namespace clang::tidy::torch::program
