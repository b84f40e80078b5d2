//===- DeviceFlow.cpp - where each tensor lives, at each program point ---===//
#include "ast/ASTHelpers.h"
#include "device/DeviceFlowBuilder.h"
#include "libtorch/DeviceRules.h"
#include "libtorch/TorchModules.h"
#include "libtorch/TorchTypes.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/StmtCXX.h"
#include <map>
#include <set>

namespace clang::tidy::torch::device {

namespace {

/// Per thread, per translation unit: the analyses and the type knowledge
/// they share.
struct FlowCache {
  const ASTContext *Ctx = nullptr;
  llvm::DenseMap<const FunctionDecl *, std::unique_ptr<DeviceFlow>> Flows;
  /// getForCallers: the template instantiations' analyses.
  llvm::DenseMap<const FunctionDecl *, std::unique_ptr<DeviceFlow>>
      Instantiations;
  /// getWithCPUParameters: (function, CPU parameters) -> its analysis.
  std::map<std::pair<const FunctionDecl *, uint32_t>,
           std::unique_ptr<DeviceFlow>>
      WithCPUParameters;
  llvm::DenseMap<const Type *, libtorch::Carrier> Carriers;
  llvm::DenseMap<const CXXRecordDecl *, libtorch::ModuleRegistrations>
      Registrations;

  void clear() {
    Ctx = nullptr;
    Flows.clear();
    Instantiations.clear();
    WithCPUParameters.clear();
    Carriers.clear();
    Registrations.clear();
  }
};

thread_local FlowCache Cache;

} // namespace

libtorch::Carrier cachedCarrier(QualType T) {
  if (T.isNull())
    return libtorch::Carrier::None;
  const Type *Key = T.getNonReferenceType().getCanonicalType().getTypePtr();
  auto [It, New] = Cache.Carriers.try_emplace(Key, libtorch::Carrier::None);
  if (New)
    It->second = libtorch::carrierOf(T);
  return It->second;
}

const libtorch::ModuleRegistrations &
cachedRegistrations(const CXXRecordDecl *RD, const SourceManager &SM) {
  auto [It, New] = Cache.Registrations.try_emplace(RD);
  if (New)
    It->second = libtorch::analyzeRegistrations(RD, SM);
  return It->second;
}

namespace {

bool sameState(const State &A, const State &B) {
  if (A.size() != B.size())
    return false;
  for (const auto &[D, F] : A) {
    auto It = B.find(D);
    if (It == B.end() || It->second.Device != F.Device ||
        !(It->second.Rank == F.Rank))
      return false;
  }
  return true;
}

/// The top-down scan done once per function, before the CFG.
struct Prescan : RecursiveASTVisitor<Prescan> {
  explicit Prescan(ScanFacts &Out)
      : Loops(Out.Loops), Volatile(Out.Volatile), NonLocals(Out.NonLocals),
        Lambdas(Out.Lambdas), HolderLocals(Out.HolderLocals) {}
  llvm::DenseMap<const VarDecl *, LoopSource> &Loops;
  llvm::DenseSet<const ValueDecl *> &Volatile;
  llvm::SetVector<const ValueDecl *> &NonLocals;
  std::vector<const FunctionDecl *> &Lambdas;
  llvm::DenseMap<const CXXRecordDecl *, unsigned> &HolderLocals;
  unsigned LambdaDepth = 0;

  bool VisitVarDecl(VarDecl *V) {
    if (!V->isLocalVarDecl() || V->getType()->isReferenceType() ||
        cachedCarrier(V->getType()) != libtorch::Carrier::None)
      return true;
    if (const CXXRecordDecl *RD = V->getType()->getAsCXXRecordDecl())
      ++HolderLocals[RD->getCanonicalDecl()];
    return true;
  }

  bool shouldVisitLambdaBody() const { return true; }

  bool TraverseLambdaExpr(LambdaExpr *L) {
    for (const LambdaCapture &C : L->captures())
      if (C.capturesVariable() && C.getCaptureKind() == LCK_ByRef)
        if (const auto *V = dyn_cast<VarDecl>(C.getCapturedVar()))
          if (writesIn(L->getBody(), V))
            Volatile.insert(V);
    if (LambdaDepth == 0 && L->getCallOperator())
      Lambdas.push_back(L->getCallOperator());
    ++LambdaDepth;
    bool R = RecursiveASTVisitor::TraverseLambdaExpr(L);
    --LambdaDepth;
    return R;
  }

  static bool writesIn(const Stmt *S, const ValueDecl *V) {
    if (!S)
      return false;
    if (auto [L, R] = ast::asAssignment(S); L && ast::namesDecl(L, V))
      return true;
    if (libtorch::movedModule(S).Root == V)
      return true;
    return llvm::any_of(S->children(),
                        [V](const Stmt *C) { return writesIn(C, V); });
  }

  bool VisitCXXForRangeStmt(CXXForRangeStmt *R) {
    const VarDecl *V = R->getLoopVariable();
    const Expr *Range = R->getRangeInit();
    if (!V || !Range)
      return true;
    QualType T = Range->getType().getNonReferenceType();
    if (libtorch::isOrDerivesFrom(T->getAsCXXRecordDecl(),
                                  "torch::data::DataLoaderBase")) {
      Loops[V] = {LoopSource::Loader, Range, nullptr,
                  !libtorch::loaderDatasetHandlesDevice(T)};
      return true;
    }
    if (cachedCarrier(T) == libtorch::Carrier::ExampleVector) {
      Loops[V] = {LoopSource::Elements, Range, nullptr};
      return true;
    }
    if (const auto *MC = dyn_cast<CXXMemberCallExpr>(ast::stripImplicit(Range)))
      if (const CXXMethodDecl *MD = MC->getMethodDecl())
        if (MD->getIdentifier() &&
            (MD->getName() == "parameters" || MD->getName() == "buffers") &&
            libtorch::isModuleClass(MD->getParent()))
          Loops[V] = {LoopSource::Parameters, Range,
                      MC->getImplicitObjectArgument()};
    return true;
  }

  bool VisitDeclRefExpr(DeclRefExpr *DRE) {
    const auto *V = dyn_cast<VarDecl>(DRE->getDecl());
    if (!V || LambdaDepth ||
        cachedCarrier(V->getType()) == libtorch::Carrier::None)
      return true;
    if (isa<ParmVarDecl>(V) || !V->isLocalVarDecl())
      NonLocals.insert(V);
    return true;
  }

  bool VisitMemberExpr(MemberExpr *ME) {
    const auto *F = dyn_cast<FieldDecl>(ME->getMemberDecl());
    if (F && !LambdaDepth &&
        isa<CXXThisExpr>(ast::stripImplicit(ME->getBase())) &&
        cachedCarrier(F->getType()) != libtorch::Carrier::None)
      NonLocals.insert(F);
    return true;
  }
};

} // namespace

// ===--------------------------------------------------------------------===//
// Engine
// ===--------------------------------------------------------------------===//

void DeviceFlowBuilder::run() {
  const Stmt *Body = Fn->getBody();
  if (!Body) {
    Out.Skip = "no body";
    return;
  }
  if (Instantiations ? Fn->isDependentContext() : ast::isTemplateCode(Fn)) {
    Out.Skip = "template code";
    return;
  }
  CFG::BuildOptions Opts;
  Opts.AddImplicitDtors = false;
  Opts.AddTemporaryDtors = false;
  Opts.AddInitializers = true; // a constructor's member initializers
  Opts.AddLifetime = false;
  Opts.AddScopes = false;
  Opts.setAllAlwaysAdd(); // every subexpression is an element
  Graph = CFG::buildCFG(Fn, const_cast<Stmt *>(Body), &Ctx, Opts);
  if (!Graph) {
    Out.Skip = "no CFG could be built";
    return;
  }
  Out.NumBlocks = Graph->getNumBlockIDs();
  if (Out.NumBlocks > DeviceFlow::MaxBlocks) {
    Out.Skip = "its CFG has " + std::to_string(Out.NumBlocks) +
               " blocks (limit " + std::to_string(DeviceFlow::MaxBlocks) + ")";
    return;
  }
  for (const CFGBlock *B : *Graph)
    for (const CFGElement &El : *B)
      if (auto CS = El.getAs<CFGStmt>())
        Elements.insert(CS->getStmt());
  if (Elements.size() > DeviceFlow::MaxElements) {
    Out.Skip = "its CFG has " + std::to_string(Elements.size()) +
               " elements (limit " + std::to_string(DeviceFlow::MaxElements) +
               ")";
    return;
  }

  Prescan(Scan).TraverseStmt(const_cast<Stmt *>(Body));
  Out.Context = &Ctx;
  Out.Lambdas = Scan.Lambdas;

  // Reverse post-order.
  const unsigned N = Graph->getNumBlockIDs();
  std::vector<const CFGBlock *> Order;
  std::vector<unsigned> RPO(N, ~0u);
  {
    std::vector<char> Seen(N, 0);
    std::vector<std::pair<const CFGBlock *, CFGBlock::const_succ_iterator>>
        Stack;
    const CFGBlock *Entry = &Graph->getEntry();
    Seen[Entry->getBlockID()] = 1;
    Stack.push_back({Entry, Entry->succ_begin()});
    while (!Stack.empty()) {
      auto &[B, It] = Stack.back();
      if (It == B->succ_end()) {
        Order.push_back(B);
        Stack.pop_back();
        continue;
      }
      const CFGBlock *Next = It->getReachableBlock();
      ++It;
      if (Next && !Seen[Next->getBlockID()]) {
        Seen[Next->getBlockID()] = 1;
        Stack.push_back({Next, Next->succ_begin()});
      }
    }
    std::reverse(Order.begin(), Order.end());
    for (unsigned I = 0; I < Order.size(); ++I)
      RPO[Order[I]->getBlockID()] = I;
  }

  State EntryState;
  for (const ValueDecl *D : Scan.NonLocals)
    EntryState[D] = initialFact(D);

  std::vector<std::optional<State>> Outs(N);
  std::vector<unsigned> Visits(N, 0);
  std::set<unsigned> Work; // RPO indices
  Work.insert(0);
  auto InState = [&](const CFGBlock &B) {
    State In;
    if (&B == &Graph->getEntry())
      return EntryState;
    bool First = true;
    for (const auto &P : B.preds()) {
      const CFGBlock *PB = P.getReachableBlock();
      if (!PB || !Outs[PB->getBlockID()])
        continue;
      if (First)
        In = *Outs[PB->getBlockID()];
      else
        joinStates(In, *Outs[PB->getBlockID()]);
      First = false;
    }
    return In;
  };

  while (!Work.empty()) {
    const CFGBlock &B = *Order[*Work.begin()];
    Work.erase(Work.begin());
    if (++Visits[B.getBlockID()] > DeviceFlow::MaxVisitsPerBlock) {
      Out.Skip = "the analysis did not converge within " +
                 std::to_string(DeviceFlow::MaxVisitsPerBlock) +
                 " visits per block";
      Out.Facts.clear();
      return;
    }
    ++Out.NumVisits;
    Cur = InState(B);
    transferBlock(B);
    std::optional<State> &O = Outs[B.getBlockID()];
    if (O && sameState(*O, Cur))
      continue;
    O = std::move(Cur);
    for (const auto &S : B.succs())
      if (const CFGBlock *SB = S.getReachableBlock())
        if (RPO[SB->getBlockID()] != ~0u)
          Work.insert(RPO[SB->getBlockID()]);
  }

  // Final pass over the converged states: the facts the checks read.
  Memo.clear();
  for (const CFGBlock *B : Order) {
    Cur = InState(*B);
    transferBlock(*B);
  }
  Out.Facts.reserve(Memo.size());
  for (const auto &[E, M] : Memo)
    Out.Facts[E] = M.Fact;
}

/// True when the paths that reach a torch::Device variable disagree on its
/// value: Unknown, or a parameter's device on one path and the CPU on
/// another. The variable is then "on D" itself.
static bool pathsDisagree(const DeviceValue &V) {
  return V.kind() == DeviceValue::Unknown ||
         (V.kind() == DeviceValue::Inherited && V.orCPU());
}

void DeviceFlowBuilder::joinStates(State &Into, const State &From) {
  for (const auto &[D, F] : From) {
    auto [It, New] = Into.try_emplace(D, F);
    if (!New)
      DeviceFact::joinInto(It->second, F);
  }
  // A torch::Device variable holds one device on every path: where the
  // paths disagree (a parameter's device on one, the CPU on another) it is
  // "on D" itself.
  for (auto &[D, F] : Into) {
    if (!pathsDisagree(F.Device))
      continue;
    libtorch::Carrier C = cachedCarrier(D->getType());
    if (libtorch::holdsDevice(C))
      F = {DeviceValue::onDevice(D),
           {},
           Origin(Origin::DeviceValueDecl, D->getLocation())};
  }
}

void DeviceFlowBuilder::transferBlock(const CFGBlock &B) {
  ++Visit;
  for (const CFGElement &El : B)
    if (auto CS = El.getAs<CFGStmt>())
      transferElement(CS->getStmt());
}

void DeviceFlowBuilder::transferElement(const Stmt *S) {
  if (const auto *E = dyn_cast<Expr>(S)) {
    if (carrier(E) != libtorch::Carrier::None)
      Memo[E] = {compute(E), Visit};
  }
  // Effects.
  if (const auto *DS = dyn_cast<DeclStmt>(S)) {
    for (const Decl *D : DS->decls()) {
      const auto *V = dyn_cast<VarDecl>(D);
      if (!V)
        continue;
      libtorch::Carrier C = cachedCarrier(V->getType());
      if (C == libtorch::Carrier::None)
        continue;
      auto Loop = Scan.Loops.find(V);
      if (Loop != Scan.Loops.end()) {
        const LoopSource &L = Loop->second;
        DeviceFact F = DeviceFact::unknown();
        if (L.Kind == LoopSource::Loader && L.CPUBatches &&
            (C == libtorch::Carrier::Example ||
             C == libtorch::Carrier::ExampleVector))
          F = {DeviceValue::cpu(),
               C == libtorch::Carrier::Example ? TensorRank::nonScalar()
                                               : TensorRank::unknown(),
               Origin(Origin::LoaderBatch, L.Range)};
        else if (L.Kind == LoopSource::Elements &&
                 C == libtorch::Carrier::Example) {
          F = get(L.Range);
          F.Rank = TensorRank::unknown();
        } else if (L.Kind == LoopSource::Parameters &&
                   C == libtorch::Carrier::Tensor) {
          DeviceValue M = get(L.Module).Device;
          if (M.isKnown())
            F = {M, {}, Origin(Origin::ModuleTensor, L.Range)};
        }
        assign(V, F, true);
        continue;
      }
      if (const Expr *Init = V->getInit())
        assign(V, compute(Init), true);
      else
        assign(V, {}, true);
    }
    return;
  }
  if (auto [LHS, RHS] = ast::asAssignment(S); LHS && RHS) {
    const auto *Tie = dyn_cast<CallExpr>(ast::stripImplicit(LHS));
    if (const ValueDecl *D = assignedDecl(LHS)) {
      assign(D, get(RHS), false);
    } else if (Tie && ast::isStdCall(Tie, "tie")) {
      // `std::tie(output, hidden) = rnn->forward(x, hidden)`: each tensor
      // takes the device of the tuple's elements.
      DeviceFact F = tupleElementFact(RHS);
      for (const Expr *A : Tie->arguments())
        if (carrier(A) == libtorch::Carrier::Tensor)
          if (const ValueDecl *D = assignedDecl(A))
            assign(D, F, false);
    } else if (isa<MemberExpr>(ast::stripImplicit(LHS))) {
      // `batch.data = ...`: the batch no longer holds the loader's tensors.
      const VarDecl *Root = ast::rootVariable(LHS);
      libtorch::Carrier RC =
          Root ? cachedCarrier(Root->getType()) : libtorch::Carrier::None;
      if (RC == libtorch::Carrier::Example ||
          RC == libtorch::Carrier::ExampleVector ||
          RC == libtorch::Carrier::Module)
        assign(Root, DeviceFact::unknown(), false);
    }
    return;
  }
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(S)) {
    const CXXMethodDecl *MD = MC->getMethodDecl();
    if (MD && MD->getIdentifier() && MD->getName() == "to" &&
        libtorch::isModuleClass(MD->getParent()))
      return moduleTo(MC);
    if (MD && MD->getIdentifier() && MD->getName() == "set_" &&
        libtorch::isTensorRecord(MD->getParent()))
      if (const ValueDecl *D = assignedDecl(MC->getImplicitObjectArgument()))
        assign(D, DeviceFact::unknown(), false);
  }
  if (const auto *Call = dyn_cast<CallExpr>(S))
    escape(Call);
}

// ===--------------------------------------------------------------------===//
// Effects
// ===--------------------------------------------------------------------===//

const FieldDecl *DeviceFlowBuilder::aggregateModuleField(const Expr *E) const {
  E = ast::stripImplicit(E);
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E))
    if ((Op->getOperator() == OO_Arrow || Op->getOperator() == OO_Star) &&
        Op->getNumArgs() == 1)
      E = ast::stripImplicit(Op->getArg(0));
  const auto *ME = dyn_cast<MemberExpr>(E);
  const auto *F = ME ? dyn_cast<FieldDecl>(ME->getMemberDecl()) : nullptr;
  if (!F || cachedCarrier(F->getType()) != libtorch::Carrier::Module)
    return nullptr;
  const auto *Base = dyn_cast<DeclRefExpr>(ast::stripImplicit(ME->getBase()));
  const auto *V = Base ? dyn_cast<VarDecl>(Base->getDecl()) : nullptr;
  // One such local in the function: the field stands for it.
  const CXXRecordDecl *RD =
      V && isLocal(V) ? V->getType()->getAsCXXRecordDecl() : nullptr;
  if (!RD || cachedCarrier(V->getType()) != libtorch::Carrier::None ||
      Scan.HolderLocals.lookup(RD->getCanonicalDecl()) != 1)
    return nullptr;
  // Not a member of the class whose method this is: `this->gen` is keyed
  // by the same field.
  if (const auto *MD = dyn_cast<CXXMethodDecl>(Fn))
    if (MD->getParent()->getCanonicalDecl() ==
        F->getParent()->getCanonicalDecl())
      return nullptr;
  return F;
}

const ValueDecl *DeviceFlowBuilder::assignedDecl(const Expr *LHS) const {
  if (const FieldDecl *F = aggregateModuleField(LHS))
    return F;
  LHS = ast::stripImplicit(LHS);
  if (const auto *DRE = dyn_cast_or_null<DeclRefExpr>(LHS))
    return dyn_cast<VarDecl>(DRE->getDecl());
  if (const auto *ME = dyn_cast_or_null<MemberExpr>(LHS))
    if (isa<CXXThisExpr>(ast::stripImplicit(ME->getBase())))
      return dyn_cast<FieldDecl>(ME->getMemberDecl());
  return nullptr;
}

void DeviceFlowBuilder::assign(const ValueDecl *D, DeviceFact F,
                               bool Declaration) {
  libtorch::Carrier C = cachedCarrier(D->getType());
  if (C == libtorch::Carrier::None)
    return;
  if (Scan.Volatile.contains(D)) {
    Cur[D] = DeviceFact::unknown();
    return;
  }
  if (libtorch::holdsDevice(C)) {
    // Tensors moved to the old value of D are no longer "on D".
    if (!Declaration)
      for (auto &[Other, OF] : Cur)
        if (OF.Device.kind() == DeviceValue::OnDevice && OF.Device.decl() == D)
          OF = DeviceFact::unknown();
    if (pathsDisagree(F.Device) ||
        (F.Device.kind() == DeviceValue::OnDevice && F.Device.decl() != D))
      F = {DeviceValue::onDevice(D),
           {},
           Origin(Origin::DeviceValueDecl, D->getLocation())};
  }
  Cur[D] = F;
}

void DeviceFlowBuilder::moduleTo(const CXXMemberCallExpr *Call) {
  libtorch::ModuleRef R =
      libtorch::moduleRoot(Call->getImplicitObjectArgument());
  if (!R || Call->getNumArgs() == 0)
    return;
  const ValueDecl *Root = R.Root;
  if (const FieldDecl *F =
          aggregateModuleField(Call->getImplicitObjectArgument())) {
    Root = F;
    R.Member = nullptr;
  }
  libtorch::Carrier A = carrier(Call->getArg(0));
  if (!libtorch::holdsDevice(A))
    return; // to(dtype)
  DeviceValue D = deviceArgument(Call->getArg(0));
  if (R.Member || !D.isKnown() || D.kind() == DeviceValue::Unspecified)
    return assign(Root, DeviceFact::unknown(), false);
  assign(Root, {D, {}, Origin(Origin::ModuleMoved, Call)}, false);
}

void DeviceFlowBuilder::escape(const CallExpr *Call) {
  const FunctionDecl *FD = Call->getDirectCallee();
  // `torch::load(model, path)` restores each tensor on the device it was
  // saved from: a checkpoint of a CUDA model puts a never-moved one there.
  if (libtorch::isSerializeLoad(FD) && Call->getNumArgs() > 0)
    if (const VarDecl *V =
            ast::rootVariable(ast::stripImplicit(Call->getArg(0))))
      if (cachedCarrier(V->getType()) != libtorch::Carrier::None)
        assign(V, DeviceFact::unknown(), false);
  if (!FD || libtorch::isLibTorchDecl(FD))
    return;
  if (FD->getIdentifier() &&
      (FD->getName() == "move" || FD->getName() == "forward") &&
      libtorch::outermostNamespace(FD) == "std")
    return;
  // `net->forward(x)` on a std::shared_ptr: its const members (`->`, `*`,
  // get()) hand out the module without changing it.
  if (const auto *MD = dyn_cast<CXXMethodDecl>(FD);
      MD && MD->isConst() && libtorch::outermostNamespace(MD) == "std")
    return;
  // A call of a non-const member function of this class may reassign the
  // members: back to what is known on entry.
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Call))
    if (const CXXMethodDecl *MD = MC->getMethodDecl())
      if (!MD->isConst() &&
          isa<CXXThisExpr>(ast::stripImplicit(MC->getImplicitObjectArgument())))
        for (auto &[D, F] : Cur)
          if (isa<FieldDecl>(D))
            F = initialFact(D);
  unsigned Offset = isa<CXXOperatorCallExpr>(Call) && isa<CXXMethodDecl>(FD);
  for (unsigned I = 0; I < Call->getNumArgs(); ++I) {
    const Expr *Arg = ast::stripImplicit(Call->getArg(I));
    bool AddressOf = false;
    if (const auto *UO = dyn_cast<UnaryOperator>(Arg))
      if (UO->getOpcode() == UO_AddrOf) {
        Arg = ast::stripImplicit(UO->getSubExpr());
        AddressOf = true;
      }
    const VarDecl *V = ast::rootVariable(Arg);
    if (!V)
      continue;
    libtorch::Carrier C = cachedCarrier(V->getType());
    if (C == libtorch::Carrier::None) {
      // A class holding modules, handed over itself: its modules may move
      // (a copy shares them).
      const CXXRecordDecl *RD = V->getType()->getAsCXXRecordDecl();
      if (RD && ast::namesDecl(Arg, V))
        for (auto &[D, F] : Cur)
          if (const auto *Field = dyn_cast<FieldDecl>(D);
              Field &&
              Field->getParent()->getCanonicalDecl() == RD->getCanonicalDecl())
            F = DeviceFact::unknown();
      continue;
    }
    // A module escapes when it is handed over itself, not when a value
    // read from it is (`clip(model->parameters())` cannot move it).
    // A function of the program that only calls the module's members
    // (`train(model, loader)`: model.train(), model.forward(x)) keeps it.
    const bool WholeModule =
        C == libtorch::Carrier::Module &&
        cachedCarrier(Arg->getType()) == libtorch::Carrier::Module;
    if (WholeModule && !AddressOf && I >= Offset &&
        !libtorch::mayMoveModuleParameter(FD, I - Offset))
      continue;
    bool Escapes = AddressOf || WholeModule;
    if (!Escapes && I >= Offset && I - Offset < FD->getNumParams()) {
      QualType P = FD->getParamDecl(I - Offset)->getType();
      Escapes = P->isLValueReferenceType() &&
                !P.getNonReferenceType().isConstQualified();
    }
    if (Escapes)
      assign(V, DeviceFact::unknown(), false);
  }
}

// ===--------------------------------------------------------------------===//
// API
// ===--------------------------------------------------------------------===//

bool DeviceFlow::isModuleForward(const FunctionDecl *FD) {
  const auto *MD = dyn_cast_or_null<CXXMethodDecl>(FD);
  return MD && MD->getIdentifier() && MD->getName() == "forward" &&
         libtorch::isModuleClass(MD->getParent());
}

/// What the caches key \p FD's analysis by: its definition, if it has one.
/// A new translation unit (\p Ctx) starts the caches afresh.
static const FunctionDecl *cacheKey(const FunctionDecl *FD, ASTContext &Ctx) {
  if (Cache.Ctx != &Ctx) {
    Cache.clear();
    Cache.Ctx = &Ctx;
  }
  const FunctionDecl *Def = FD->getDefinition();
  return Def ? Def : FD;
}

/// The cached analysis of \p FD's definition in \p Flows, built on first
/// use (\p Instantiations: DeviceFlowBuilder's).
static const DeviceFlow &cachedFlow(
    llvm::DenseMap<const FunctionDecl *, std::unique_ptr<DeviceFlow>> &Flows,
    const FunctionDecl *FD, ASTContext &Ctx, bool Instantiations) {
  const FunctionDecl *Def = cacheKey(FD, Ctx);
  auto [It, New] = Flows.try_emplace(Def);
  if (!New)
    return *It->second;
  // Building may analyse the callers (a forward() argument's device), which
  // adds flows and moves the entries: keep the object, not the iterator.
  It->second = std::make_unique<DeviceFlow>();
  DeviceFlow &Flow = *It->second;
  DeviceFlowBuilder(Def, Ctx, Flow, Instantiations).run();
  return Flow;
}

const DeviceFlow &DeviceFlow::get(const FunctionDecl *FD, ASTContext &Ctx) {
  return cachedFlow(Cache.Flows, FD, Ctx, /*Instantiations=*/false);
}

const DeviceFlow &DeviceFlow::getForCallers(const FunctionDecl *FD,
                                            ASTContext &Ctx) {
  if (!ast::isTemplateCode(FD) || FD->isDependentContext())
    return get(FD, Ctx);
  return cachedFlow(Cache.Instantiations, FD, Ctx, /*Instantiations=*/true);
}

const DeviceFlow &DeviceFlow::getWithCPUParameters(const FunctionDecl *FD,
                                                   uint32_t CPUParameters,
                                                   ASTContext &Ctx) {
  if (!CPUParameters)
    return getForCallers(FD, Ctx);
  const FunctionDecl *Def = cacheKey(FD, Ctx);
  auto [It, New] = Cache.WithCPUParameters.try_emplace({Def, CPUParameters});
  if (!New)
    return *It->second;
  It->second = std::make_unique<DeviceFlow>();
  DeviceFlow &Flow = *It->second;
  DeviceFlowBuilder(Def, Ctx, Flow,
                    ast::isTemplateCode(Def) && !Def->isDependentContext(),
                    CPUParameters)
      .run();
  return Flow;
}

uint32_t cpuParameters(const CallExpr *Call, const FunctionDecl *Callee,
                       llvm::function_ref<bool(const Expr *)> OnCPU) {
  const unsigned Skip =
      isa<CXXOperatorCallExpr>(Call) && isa<CXXMethodDecl>(Callee);
  uint32_t Bits = 0;
  for (unsigned I = Skip; I < Call->getNumArgs(); ++I) {
    const unsigned Param = I - Skip;
    if (Param >= 32 || Param >= Callee->getNumParams())
      break;
    if (libtorch::isTensorType(Callee->getParamDecl(Param)->getType()) &&
        OnCPU(Call->getArg(I)))
      Bits |= 1u << Param;
  }
  return Bits;
}

void DeviceFlow::clearCache() { Cache.clear(); }

const DeviceFact *DeviceFlow::find(const Expr *E) const {
  const Expr *Start = E;
  for (int I = 0; E && I < 8; ++I) {
    auto It = Facts.find(E);
    if (It != Facts.end())
      return &It->second;
    const Expr *Next = E->IgnoreImplicit()->IgnoreParens();
    if (const auto *M = dyn_cast<MaterializeTemporaryExpr>(Next))
      Next = M->getSubExpr();
    if (Next == E)
      break;
    E = Next;
  }
  // An expression in a lambda body: that lambda's own analysis.
  for (const FunctionDecl *L : Lambdas)
    if (const DeviceFact *F = get(L, *Context).find(Start))
      return F;
  return nullptr;
}

DeviceFact DeviceFlow::factOf(const Expr *E) const {
  const DeviceFact *F = E ? find(E) : nullptr;
  return F ? *F : DeviceFact::unknown();
}

DeviceValue DeviceFlow::conversionTarget(const CXXMemberCallExpr *Call) const {
  const CXXMethodDecl *MD = Call ? Call->getMethodDecl() : nullptr;
  if (!MD || !MD->getIdentifier() || !libtorch::isTensorRecord(MD->getParent()))
    return {};
  StringRef Name = MD->getName();
  if (Name == "cpu")
    return DeviceValue::cpu();
  if (Name == "cuda")
    return DeviceValue::cuda();
  if ((Name != "to" && Name != "type_as") || Call->getNumArgs() == 0)
    return {};
  const Expr *A = Call->getArg(0);
  libtorch::Carrier AC = cachedCarrier(A->getType());
  if (!libtorch::holdsDevice(AC) && AC != libtorch::Carrier::Options &&
      AC != libtorch::Carrier::Tensor)
    return {};
  DeviceValue V = deviceOf(A);
  return V.kind() == DeviceValue::Unspecified ? DeviceValue() : V;
}

bool DeviceFlow::movesToDevice() const {
  return llvm::any_of(Facts, [&](const auto &Entry) {
    const auto *Call = dyn_cast<CXXMemberCallExpr>(Entry.first);
    return Call && conversionTarget(Call).isDeviceSide();
  });
}

bool DeviceFlow::isAlreadyOnTarget(const CXXMemberCallExpr *Call) const {
  DeviceValue To = conversionTarget(Call);
  DeviceValue From = deviceOf(Call->getImplicitObjectArgument());
  if (!To.isKnown() || !From.isKnown())
    return false;
  return To == From;
}

} // namespace clang::tidy::torch::device
