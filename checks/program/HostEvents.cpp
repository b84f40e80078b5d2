//===- HostEvents.cpp - what a function's host code does, in order -------===//
#include "program/HostEvents.h"
#include "ast/ASTHelpers.h"
#include "device/DeviceFlow.h"
#include "libtorch/CudaApi.h"
#include "libtorch/DeviceRules.h"
#include "libtorch/HostSync.h"
#include "libtorch/ProgramCode.h"
#include "libtorch/TorchModules.h"
#include "libtorch/TorchTypes.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/StringSet.h"
#include <functional>

namespace clang::tidy::torch::program {

namespace {
struct Collector {
  std::vector<HostEvent> Events;
  llvm::SmallVector<const Stmt *, 32> Stack;

  /// The key of one side of a subtraction.
  static const void *key(const Expr *E) {
    E = ast::stripImplicit(E);
    if (isa<CallExpr>(E) && !isa<CXXOperatorCallExpr>(E))
      return E;
    return ast::rootVariable(E);
  }

  static bool isWrapper(const Stmt *S) {
    return isa<ImplicitCastExpr, MaterializeTemporaryExpr, CXXBindTemporaryExpr,
               ExprWithCleanups, ParenExpr, CXXFunctionalCastExpr,
               CStyleCastExpr, CXXStaticCastExpr>(S) ||
           (isa<CXXConstructExpr>(S) &&
            cast<CXXConstructExpr>(S)->getNumArgs() == 1);
  }

  /// Where the value of the node on top of the stack's child goes.
  const ValueDecl *storedIn(const Stmt *Child) const {
    for (size_t I = Stack.size(); I-- > 0;) {
      const Stmt *P = Stack[I];
      if (isWrapper(P)) {
        Child = P;
        continue;
      }
      if (const auto *DS = dyn_cast<DeclStmt>(P))
        return DS->isSingleDecl() ? dyn_cast<VarDecl>(DS->getSingleDecl())
                                  : nullptr;
      auto [LHS, RHS] = ast::asAssignment(P);
      return LHS && RHS == Child ? ast::rootVariable(LHS) : nullptr;
    }
    return nullptr;
  }

  /// The statement around the top of the stack's child that sits directly
  /// in a block, if only expressions and a declaration lie between.
  const Stmt *statementInBlock(const Stmt *Child) const {
    for (size_t I = Stack.size(); I-- > 0;) {
      const Stmt *P = Stack[I];
      if (isa<CompoundStmt>(P))
        return Child;
      if (!isa<Expr>(P) && !isa<DeclStmt>(P))
        return nullptr;
      Child = P;
    }
    return nullptr;
  }

  void visit(const Stmt *S) {
    if (!S || isa<LambdaExpr>(S))
      return;
    Stack.push_back(S);
    for (const Stmt *Child : S->children())
      visit(Child);
    Stack.pop_back();

    HostEvent E;
    auto [LHS, RHS] = ast::asAssignment(S);
    if (LHS) {
      E.Assigned = ast::rootVariable(LHS);
      E.AssignedValue = ast::stripCopiesAndMoves(RHS);
    }
    const auto *Op = dyn_cast<CXXOperatorCallExpr>(S);
    if (const auto *Call = dyn_cast<CallExpr>(S);
        Call && !(Op && Op->getOperator() == OO_Equal)) {
      E.Call = Call;
      E.Statement = statementInBlock(S);
      E.StoredIn = storedIn(S);
    }
    const Expr *A = nullptr, *B = nullptr;
    if (const auto *BO = dyn_cast<BinaryOperator>(S);
        BO && BO->getOpcode() == BO_Sub) {
      A = BO->getLHS();
      B = BO->getRHS();
    } else if (Op && Op->getOperator() == OO_Minus && Op->getNumArgs() == 2) {
      A = Op->getArg(0);
      B = Op->getArg(1);
    }
    if (A) {
      const void *KA = key(A), *KB = key(B);
      if (KA && KB)
        E.Subtraction = std::make_pair(KA, KB);
    }
    if (E.Call || E.Assigned || E.Subtraction)
      Events.push_back(E);
  }
};
} // namespace

std::vector<HostEvent> hostEvents(const Stmt *Body) {
  Collector C;
  C.visit(Body);
  return std::move(C.Events);
}

bool launchesNoKernel(StringRef TensorMethod) {
  static const llvm::StringSet<> Names = {
      // metadata
      "sizes", "size", "dim", "ndimension", "numel", "dtype", "scalar_type",
      "options", "device", "get_device", "is_pinned", "defined", "strides",
      "stride", "is_cuda", "is_cpu", "layout", "is_contiguous", "element_size",
      "nbytes", "itemsize", "requires_grad", "storage_offset",
      "is_floating_point", "is_complex", "names", "has_names", "name",
      "use_count", "is_same", "is_leaf", "grad_fn", "sym_sizes", "sym_numel",
      // views
      "view", "view_as", "select", "narrow", "slice", "squeeze", "unsqueeze",
      "t", "transpose", "permute", "detach", "expand", "expand_as", "alias",
      "as_strided", "grad", "unfold", "diagonal", "split", "chunk", "unbind"};
  return Names.contains(TensorMethod);
}

/// True for `m.forward(inputs)` or `m(inputs)` of a module whose result is
/// not a tensor (a TorchScript module's IValue).
static bool runsModuleForIValue(const CallExpr *Call) {
  if (libtorch::carrierOf(Call->getType()) == libtorch::Carrier::Tensor)
    return false;
  const auto *MD = dyn_cast_or_null<CXXMethodDecl>(Call->getDirectCallee());
  if (!MD || !libtorch::isForwardableModuleClass(MD->getParent()))
    return false;
  return MD->getOverloadedOperator() == OO_Call ||
         (MD->getIdentifier() && MD->getName() == "forward");
}

device::DeviceValue workDevice(const CallExpr *Call,
                               const device::DeviceFlow &Flow) {
  const auto *MC = dyn_cast<CXXMemberCallExpr>(Call);
  const CXXMethodDecl *MD = MC ? MC->getMethodDecl() : nullptr;
  if (MD && MD->getIdentifier() && libtorch::isTensorRecord(MD->getParent()) &&
      launchesNoKernel(MD->getName()))
    return device::DeviceValue::unknown();
  // An IValue's accessors (`forward(...).toTensor()`) launch nothing.
  if (MD && MD->getIdentifier() && MD->getName().starts_with("to") &&
      libtorch::isOrDerivesFrom(MD->getParent(), "c10::IValue"))
    return device::DeviceValue::unknown();
  if (libtorch::carrierOf(Call->getType()) == libtorch::Carrier::Tensor)
    if (device::DeviceValue V = Flow.deviceOf(Call); V.isDeviceSide())
      return V;
  if (MC) {
    const Expr *R = MC->getImplicitObjectArgument();
    libtorch::Carrier C = libtorch::carrierOf(R->getType());
    if (C == libtorch::Carrier::Tensor || C == libtorch::Carrier::Module)
      if (device::DeviceValue V = Flow.deviceOf(R); V.isDeviceSide())
        return V;
  }
  // A TorchScript module runs where its inputs are.
  if (runsModuleForIValue(Call)) {
    llvm::SmallVector<const Expr *, 4> Inputs;
    for (const Expr *A : Call->arguments())
      libtorch::inputTensors(A, Inputs);
    for (const Expr *T : Inputs)
      if (device::DeviceValue V = Flow.deviceOf(T); V.isDeviceSide())
        return V;
  }
  return device::DeviceValue::unknown();
}

/// The tensor a waiting operation reads: its receiver, else its first
/// tensor argument.
static const Expr *readTensor(const CallExpr *Call) {
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Call))
    return MC->getImplicitObjectArgument();
  for (const Expr *A : Call->arguments())
    if (libtorch::isTensorType(A->getType()))
      return A;
  return nullptr;
}

/// True if a call of \p FD, a function of the program, may wait for the
/// device: its body (or the bodies it calls, three deep) makes a blocking
/// call anywhere, loops included, or cannot be read here.
static bool mayWaitInside(const FunctionDecl *FD, ASTContext &Ctx,
                          unsigned Depth = 3) {
  const FunctionDecl *Def = nullptr;
  if (!FD->hasBody(Def) || Def->isDependentContext())
    return true;
  thread_local llvm::DenseMap<const FunctionDecl *, bool> Known;
  thread_local const ASTContext *KnownCtx = nullptr;
  if (KnownCtx != &Ctx) {
    Known.clear();
    KnownCtx = &Ctx;
  }
  if (auto It = Known.find(Def); It != Known.end())
    return It->second;
  Known[Def] = false; // a recursive call adds nothing
  std::function<bool(const Stmt *)> Waits = [&](const Stmt *S) {
    if (!S)
      return false;
    if (const auto *Call = dyn_cast<CallExpr>(S)) {
      if (libtorch::syncOperationOf(Call, true, Ctx))
        return true;
      const FunctionDecl *Callee = Call->getDirectCallee();
      if (Callee && Depth > 0 && !libtorch::isLibraryDecl(Callee) &&
          !isa<CXXOperatorCallExpr>(Call) && Callee->hasBody() &&
          mayWaitInside(Callee, Ctx, Depth - 1))
        return true;
    }
    return llvm::any_of(S->children(), Waits);
  };
  bool Answer = Waits(Def->getBody());
  Known[Def] = Answer;
  return Answer;
}

HostCallKind classifyHostCall(const CallExpr *Call,
                              const device::DeviceFlow &Flow, ASTContext &Ctx) {
  if (const libtorch::SyncOperation *Op =
          libtorch::syncOperationOf(Call, true, Ctx)) {
    const Expr *Read = readTensor(Call);
    return Op->Wait == libtorch::SyncWait::AllWork || !Read ||
                   !Flow.isOnCPU(Read)
               ? HostCallKind::MayWait
               : HostCallKind::Other;
  }
  // A function of the program other than a module's forward() may wait
  // inside (write_results() reading its detections back to the host).
  if (const FunctionDecl *FD = Call->getDirectCallee();
      FD && !libtorch::isLibraryDecl(FD) && !isa<CXXOperatorCallExpr>(Call) &&
      !(FD->getIdentifier() && FD->getName() == "forward")) {
    if (mayWaitInside(FD, Ctx))
      return HostCallKind::MayWait;
    return workDevice(Call, Flow).isDeviceSide() ? HostCallKind::DeviceWork
                                                 : HostCallKind::Other;
  }
  if (workDevice(Call, Flow).isDeviceSide())
    return HostCallKind::DeviceWork;
  const FunctionDecl *FD = Call->getDirectCallee();
  if (!FD)
    return HostCallKind::MayWait;
  if (libtorch::isLibraryDecl(FD))
    return HostCallKind::Other;
  if (const auto *MD = dyn_cast<CXXMethodDecl>(FD))
    if (libtorch::isOrDerivesFrom(MD->getParent(), "torch::nn::Module"))
      return HostCallKind::Other;
  return HostCallKind::MayWait;
}

static const StringRef ClockFunctions[] = {"now",           "clock",
                                           "gettimeofday",  "clock_gettime",
                                           "omp_get_wtime", "MPI_Wtime"};

llvm::ArrayRef<StringRef> clockFunctions() { return ClockFunctions; }

bool isClockRead(const CallExpr *Call) {
  const FunctionDecl *FD = Call->getDirectCallee();
  if (!FD || !FD->getIdentifier())
    return false;
  StringRef Name = FD->getName();
  if (const auto *MD = dyn_cast<CXXMethodDecl>(FD))
    return Name == "now" && MD->isStatic() &&
           libtorch::outermostNamespace(MD) == "std" &&
           MD->getParent()->getName().ends_with("_clock");
  bool CFunction =
      FD->getDeclContext()->getRedeclContext()->isTranslationUnit() ||
      libtorch::outermostNamespace(FD) == "std";
  return CFunction && Name != "now" && llvm::is_contained(ClockFunctions, Name);
}

bool readsClock(const Stmt *S) {
  if (!S || isa<LambdaExpr>(S))
    return false;
  if (const auto *Call = dyn_cast<CallExpr>(S); Call && isClockRead(Call))
    return true;
  return llvm::any_of(S->children(), readsClock);
}

/// True when \p S reads the time between two CUDA events
/// (`cudaEventElapsedTime`, `CUDAEvent::elapsed_time`): the wait before it
/// is the timing's, like one next to a host clock.
static bool readsEventTime(const Stmt *S) {
  if (!S || isa<LambdaExpr>(S))
    return false;
  if (const auto *Call = dyn_cast<CallExpr>(S))
    if (const FunctionDecl *FD = Call->getDirectCallee();
        FD && FD->getIdentifier() &&
        (FD->getName() == "cudaEventElapsedTime" ||
         FD->getName() == "cudaEventElapsedTime_v2" ||
         (FD->getName() == "elapsed_time" && isa<CXXMethodDecl>(FD) &&
          libtorch::isLibraryDecl(FD))))
      return true;
  return llvm::any_of(S->children(), readsEventTime);
}

/// The waits for all device work \p S consists of: the call itself, or an
/// `if` (or block) holding only such waits; empty if \p S does anything else.
static bool onlyWaits(const Stmt *S, ASTContext &Ctx,
                      llvm::SmallVectorImpl<const Expr *> &Waits) {
  if (!S)
    return true;
  if (const auto *If = dyn_cast<IfStmt>(S))
    return !If->getInit() && !If->getConditionVariableDeclStmt() &&
           onlyWaits(If->getThen(), Ctx, Waits) &&
           onlyWaits(If->getElse(), Ctx, Waits);
  if (const auto *CS = dyn_cast<CompoundStmt>(S))
    return llvm::all_of(CS->body(), [&](const Stmt *Child) {
      return onlyWaits(Child, Ctx, Waits);
    });
  if (isa<NullStmt>(S))
    return true;
  // `auto stream = at::cuda::getCurrentCUDAStream();` before the wait on it.
  if (const auto *DS = dyn_cast<DeclStmt>(S))
    return llvm::all_of(DS->decls(), [](const Decl *D) {
      const auto *VD = dyn_cast<VarDecl>(D);
      return VD && libtorch::isStreamType(VD->getType());
    });
  const auto *E = dyn_cast<Expr>(S);
  if (!E)
    return false;
  E = ast::stripImplicit(E);
  if (const auto *Cast = dyn_cast<ExplicitCastExpr>(E))
    if (Cast->getType()->isVoidType())
      E = ast::stripImplicit(Cast->getSubExpr());
  const auto *Call = dyn_cast<CallExpr>(E);
  const libtorch::SyncOperation *Op =
      Call ? libtorch::syncOperationOf(Call, false, Ctx) : nullptr;
  if (!Op || Op->Wait != libtorch::SyncWait::AllWork)
    return false;
  Waits.push_back(E);
  return true;
}

/// The waits for all device work in \p S, lambdas left out.
static void allWorkWaitsIn(const Stmt *S, ASTContext &Ctx,
                           llvm::SmallPtrSetImpl<const Expr *> &Out) {
  if (!S || isa<LambdaExpr>(S))
    return;
  if (const auto *Call = dyn_cast<CallExpr>(S))
    if (const libtorch::SyncOperation *Op =
            libtorch::syncOperationOf(Call, false, Ctx);
        Op && Op->Wait == libtorch::SyncWait::AllWork)
      Out.insert(Call);
  for (const Stmt *Child : S->children())
    allWorkWaitsIn(Child, Ctx, Out);
}

/// True when a statement that reads a clock comes before (\p Forward false)
/// or after \p It in its block, with only straight-line statements (no
/// loop) between: `begin = now(); cudaEventCreate(&e); for (...) {...}
/// drain(); end = now();`.
static bool clockReadBeside(llvm::ArrayRef<Stmt *> Body,
                            llvm::ArrayRef<Stmt *>::iterator It, bool Forward) {
  while (Forward ? std::next(It) != Body.end() : It != Body.begin()) {
    It = Forward ? std::next(It) : std::prev(It);
    if (readsClock(*It))
      return true;
    if (ast::containsLoop(*It))
      return false;
  }
  return false;
}

static bool containsCall(const Stmt *S) {
  if (!S)
    return false;
  if (isa<CallExpr>(S) || isa<CXXConstructExpr>(S))
    return true;
  return llvm::any_of(S->children(), containsCall);
}

/// A read of a tensor's value made only to wait for the work before it:
/// \p It discards the value or stores it in a new variable, a statement
/// after it reads a clock with only call-free statements between
/// (`first += 1.0;`), and nothing after the clock reads that variable.
static const CallExpr *waitingRead(llvm::ArrayRef<Stmt *> Body,
                                   llvm::ArrayRef<Stmt *>::iterator It,
                                   ASTContext &Ctx) {
  const Expr *E = nullptr;
  const VarDecl *Stored = nullptr;
  if (const auto *DS = dyn_cast<DeclStmt>(*It)) {
    Stored =
        DS->isSingleDecl() ? dyn_cast<VarDecl>(DS->getSingleDecl()) : nullptr;
    E = Stored ? Stored->getInit() : nullptr;
  } else {
    E = dyn_cast<Expr>(*It);
  }
  const auto *Call =
      E ? dyn_cast<CallExpr>(ast::stripCopiesAndConversions(E)) : nullptr;
  const libtorch::SyncOperation *Op =
      Call ? libtorch::syncOperationOf(Call, false, Ctx) : nullptr;
  if (!Op || Op->Wait != libtorch::SyncWait::Value)
    return nullptr;
  for (++It; It != Body.end(); ++It) {
    if (readsClock(*It))
      break;
    if (containsCall(*It) || ast::containsLoop(*It))
      return nullptr;
  }
  if (It == Body.end())
    return nullptr;
  for (; It != Body.end(); ++It)
    if (Stored &&
        ast::mentions(*It, [&](const ValueDecl *D) { return D == Stored; }))
      return nullptr;
  return Call;
}

void collectTimingWaits(const CompoundStmt *Block, ASTContext &Ctx,
                        llvm::SmallPtrSetImpl<const Expr *> &Out) {
  llvm::ArrayRef<Stmt *> Body(Block->body_begin(), Block->body_end());
  for (auto It = Body.begin(); It != Body.end(); ++It) {
    bool NextToClock =
        (It != Body.begin() && readsClock(*std::prev(It))) ||
        (std::next(It) != Body.end() &&
         (readsClock(*std::next(It)) || readsEventTime(*std::next(It))));
    llvm::SmallVector<const Expr *, 2> Waits;
    if (NextToClock && !isa<NullStmt>(*It) && onlyWaits(*It, Ctx, Waits))
      Out.insert(Waits.begin(), Waits.end());
    // A read of the timed work's result right before the end clock waits
    // for that work: `float first = out[0][0].item<float>(); end = now();`.
    if (const CallExpr *Read = waitingRead(Body, It, Ctx))
      Out.insert(Read);
    // A timed loop: `begin = now(); for (...) { run(); sync(); } end = now();`
    // with only straight-line code between the clocks and the loop (a `do`
    // is left out: `do { ... } while (0)` is a macro's block).
    const auto *Timed =
        isa<DoStmt>(*It) ? nullptr
                         : dyn_cast_or_null<CompoundStmt>(ast::loopBody(*It));
    if (Timed && clockReadBeside(Body, It, /*Forward=*/false) &&
        clockReadBeside(Body, It, /*Forward=*/true))
      allWorkWaitsIn(Timed, Ctx, Out); // also in C10_CUDA_CHECK(...)
  }
}

} // namespace clang::tidy::torch::program
