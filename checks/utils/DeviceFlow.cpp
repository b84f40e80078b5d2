//===- DeviceFlow.cpp - where each tensor lives, at each program point ---===//
#include "DeviceFlow.h"
#include "ASTWalk.h"
#include "DeviceRules.h"
#include "TorchModules.h"
#include "TorchTypes.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Analysis/CFG.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"
#include <set>

namespace clang::tidy::torch::utils {

namespace {

/// Per thread, per translation unit: the analyses and the type knowledge
/// they share.
struct FlowCache {
  const ASTContext *Ctx = nullptr;
  llvm::DenseMap<const FunctionDecl *, std::unique_ptr<DeviceFlow>> Flows;
  llvm::DenseMap<const Type *, Carrier> Carriers;
  llvm::DenseMap<const CXXRecordDecl *, ModuleRegistrations> Registrations;

  void clear() {
    Ctx = nullptr;
    Flows.clear();
    Carriers.clear();
    Registrations.clear();
  }
};

thread_local FlowCache Cache;

Carrier cachedCarrier(QualType T) {
  if (T.isNull())
    return Carrier::None;
  const Type *Key = T.getNonReferenceType().getCanonicalType().getTypePtr();
  auto [It, New] = Cache.Carriers.try_emplace(Key, Carrier::None);
  if (New)
    It->second = carrierOf(T);
  return It->second;
}

using State = llvm::SmallDenseMap<const ValueDecl *, DeviceFact, 16>;

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

/// Range-for loops whose variable DeviceFlow knows.
struct LoopSource {
  enum { Loader, Parameters } Kind;
  const Expr *Range;  ///< the range expression
  const Expr *Module; ///< Parameters: the module
};

/// The top-down scan done once per function, before the CFG.
struct Prescan : RecursiveASTVisitor<Prescan> {
  const FunctionDecl *Fn;
  llvm::DenseMap<const VarDecl *, LoopSource> Loops;
  /// Locals a lambda captures by reference and writes.
  llvm::DenseSet<const ValueDecl *> Volatile;
  /// Parameters, globals and fields the body reads: present in the entry
  /// state, so that joins see their initial facts.
  llvm::SetVector<const ValueDecl *> NonLocals;
  unsigned LambdaDepth = 0;

  bool shouldVisitLambdaBody() const { return true; }

  bool TraverseLambdaExpr(LambdaExpr *L) {
    for (const LambdaCapture &C : L->captures())
      if (C.capturesVariable() && C.getCaptureKind() == LCK_ByRef)
        if (const auto *V = dyn_cast<VarDecl>(C.getCapturedVar()))
          if (writesIn(L->getBody(), V))
            Volatile.insert(V);
    ++LambdaDepth;
    bool R = RecursiveASTVisitor::TraverseLambdaExpr(L);
    --LambdaDepth;
    return R;
  }

  static bool writesIn(const Stmt *S, const ValueDecl *V) {
    if (!S)
      return false;
    auto Refers = [V](const Expr *E) {
      const auto *DRE = dyn_cast_or_null<DeclRefExpr>(stripImplicit(E));
      return DRE && DRE->getDecl() == V;
    };
    if (auto [L, R] = asAssignment(S); L && Refers(L))
      return true;
    if (const auto *MC = dyn_cast<CXXMemberCallExpr>(S))
      if (const CXXMethodDecl *MD = MC->getMethodDecl())
        if (MD->getIdentifier() && MD->getName() == "to" &&
            isModuleClass(MD->getParent()) &&
            moduleRoot(MC->getImplicitObjectArgument()).Root == V)
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
    if (isOrDerivesFrom(T->getAsCXXRecordDecl(), "torch::data::DataLoaderBase")) {
      Loops[V] = {LoopSource::Loader, Range, nullptr};
      return true;
    }
    if (const auto *MC = dyn_cast<CXXMemberCallExpr>(stripImplicit(Range)))
      if (const CXXMethodDecl *MD = MC->getMethodDecl())
        if (MD->getIdentifier() &&
            (MD->getName() == "parameters" || MD->getName() == "buffers") &&
            isModuleClass(MD->getParent()))
          Loops[V] = {LoopSource::Parameters, Range,
                      MC->getImplicitObjectArgument()};
    return true;
  }

  bool VisitDeclRefExpr(DeclRefExpr *DRE) {
    const auto *V = dyn_cast<VarDecl>(DRE->getDecl());
    if (!V || LambdaDepth || cachedCarrier(V->getType()) == Carrier::None)
      return true;
    if (isa<ParmVarDecl>(V) || !V->isLocalVarDecl())
      NonLocals.insert(V);
    return true;
  }

  bool VisitMemberExpr(MemberExpr *ME) {
    const auto *F = dyn_cast<FieldDecl>(ME->getMemberDecl());
    if (F && !LambdaDepth && isa<CXXThisExpr>(stripImplicit(ME->getBase())) &&
        cachedCarrier(F->getType()) != Carrier::None)
      NonLocals.insert(F);
    return true;
  }
};

} // namespace

/// Computes one DeviceFlow.
class DeviceFlowBuilder {
public:
  DeviceFlowBuilder(const FunctionDecl *FD, ASTContext &Ctx, DeviceFlow &Out)
      : Fn(FD), Ctx(Ctx), Out(Out), Forward(DeviceFlow::isModuleForward(FD)) {}

  void run();

private:
  struct MemoEntry {
    DeviceFact Fact;
    unsigned Visit;
  };

  // --- engine ---
  void transferBlock(const CFGBlock &B);
  void transferElement(const Stmt *S);
  void joinStates(State &Into, const State &From);

  // --- values ---
  DeviceFact get(const Expr *E);
  DeviceFact compute(const Expr *E);
  DeviceFact computeNode(const Expr *E, Carrier C);
  DeviceFact varFact(const ValueDecl *D);
  DeviceFact initialFact(const ValueDecl *D);
  DeviceFact constructFact(const CXXConstructExpr *CE, Carrier C);
  DeviceFact operatorFact(const CXXOperatorCallExpr *Op, Carrier C);
  DeviceFact memberCallFact(const CXXMemberCallExpr *Call, Carrier C);
  DeviceFact callFact(const CallExpr *Call, Carrier C);
  DeviceFact factoryFact(const CallExpr *Call, FactoryKind K);
  DeviceFact moduleCallFact(const Expr *Call, const Expr *Module,
                            llvm::ArrayRef<const Expr *> Args);
  DeviceFact conversionFact(const CXXMemberCallExpr *Call);
  DeviceValue deviceArgument(const Expr *E);
  DeviceFact common(llvm::ArrayRef<const Expr *> Operands, bool Broadcast);
  TensorRank rankOf(const Expr *E) { return get(E).Rank; }

  // --- effects ---
  void assign(const ValueDecl *D, DeviceFact F, bool Declaration);
  void escape(const CallExpr *Call);
  void moduleTo(const CXXMemberCallExpr *Call);
  const ValueDecl *assignedDecl(const Expr *LHS) const;
  const VarDecl *rootVar(const Expr *E) const;

  Carrier carrier(const Expr *E) const {
    return E ? cachedCarrier(E->getType()) : Carrier::None;
  }
  bool isLocal(const ValueDecl *D) const {
    const auto *V = dyn_cast<VarDecl>(D);
    return V && V->isLocalVarDecl() && !isa<ParmVarDecl>(V);
  }

  const FunctionDecl *Fn;
  ASTContext &Ctx;
  DeviceFlow &Out;
  const bool Forward;
  Prescan Scan;
  std::unique_ptr<CFG> Graph;
  llvm::DenseSet<const Stmt *> Elements;
  State Cur;
  llvm::DenseMap<const Expr *, MemoEntry> Memo;
  unsigned Visit = 0;
  unsigned Depth = 0;
};

// ===--------------------------------------------------------------------===//
// Engine
// ===--------------------------------------------------------------------===//

void DeviceFlowBuilder::run() {
  const Stmt *Body = Fn->getBody();
  if (!Body) {
    Out.Skip = "no body";
    return;
  }
  if (isTemplateCode(Fn)) {
    Out.Skip = "template code";
    return;
  }
  CFG::BuildOptions Opts;
  Opts.AddImplicitDtors = false;
  Opts.AddTemporaryDtors = false;
  Opts.AddInitializers = false;
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
               " elements (limit " +
               std::to_string(DeviceFlow::MaxElements) + ")";
    return;
  }

  Scan.Fn = Fn;
  Scan.TraverseStmt(const_cast<Stmt *>(Body));

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

void DeviceFlowBuilder::joinStates(State &Into, const State &From) {
  for (const auto &[D, F] : From) {
    auto [It, New] = Into.try_emplace(D, F);
    if (!New)
      DeviceFact::joinInto(It->second, F);
  }
  // A torch::Device variable holds one device on every path: where the
  // paths disagree it is "on D" itself.
  for (auto &[D, F] : Into) {
    if (F.Device.kind() != DeviceValue::Unknown)
      continue;
    Carrier C = cachedCarrier(D->getType());
    if (C == Carrier::Device || C == Carrier::DeviceType)
      F = {DeviceValue::onDevice(D), {}, Origin(Origin::DeviceValueDecl,
                                                D->getLocation())};
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
    if (carrier(E) != Carrier::None)
      Memo[E] = {compute(E), Visit};
  }
  // Effects.
  if (const auto *DS = dyn_cast<DeclStmt>(S)) {
    for (const Decl *D : DS->decls()) {
      const auto *V = dyn_cast<VarDecl>(D);
      if (!V)
        continue;
      Carrier C = cachedCarrier(V->getType());
      if (C == Carrier::None)
        continue;
      auto Loop = Scan.Loops.find(V);
      if (Loop != Scan.Loops.end()) {
        const LoopSource &L = Loop->second;
        DeviceFact F = DeviceFact::unknown();
        if (L.Kind == LoopSource::Loader &&
            (C == Carrier::Example || C == Carrier::ExampleVector))
          F = {DeviceValue::cpu(),
               C == Carrier::Example ? TensorRank::nonScalar()
                                     : TensorRank::unknown(),
               Origin(Origin::LoaderBatch, L.Range)};
        else if (L.Kind == LoopSource::Parameters && C == Carrier::Tensor) {
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
  if (auto [LHS, RHS] = asAssignment(S); LHS && RHS) {
    if (const ValueDecl *D = assignedDecl(LHS)) {
      assign(D, get(RHS), false);
    } else if (isa<MemberExpr>(stripImplicit(LHS))) {
      // `batch.data = ...`: the batch no longer holds the loader's tensors.
      const VarDecl *Root = rootVar(LHS);
      Carrier RC = Root ? cachedCarrier(Root->getType()) : Carrier::None;
      if (RC == Carrier::Example || RC == Carrier::ExampleVector ||
          RC == Carrier::Module)
        assign(Root, DeviceFact::unknown(), false);
    }
    return;
  }
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(S)) {
    const CXXMethodDecl *MD = MC->getMethodDecl();
    if (MD && MD->getIdentifier() && MD->getName() == "to" &&
        isModuleClass(MD->getParent()))
      return moduleTo(MC);
    if (MD && MD->getIdentifier() && MD->getName() == "set_" &&
        isTensorRecord(MD->getParent()))
      if (const ValueDecl *D = assignedDecl(MC->getImplicitObjectArgument()))
        assign(D, DeviceFact::unknown(), false);
  }
  if (const auto *Call = dyn_cast<CallExpr>(S))
    escape(Call);
}

// ===--------------------------------------------------------------------===//
// Effects
// ===--------------------------------------------------------------------===//

const ValueDecl *DeviceFlowBuilder::assignedDecl(const Expr *LHS) const {
  LHS = stripImplicit(LHS);
  if (const auto *DRE = dyn_cast_or_null<DeclRefExpr>(LHS))
    return dyn_cast<VarDecl>(DRE->getDecl());
  if (const auto *ME = dyn_cast_or_null<MemberExpr>(LHS))
    if (isa<CXXThisExpr>(stripImplicit(ME->getBase())))
      return dyn_cast<FieldDecl>(ME->getMemberDecl());
  return nullptr;
}

const VarDecl *DeviceFlowBuilder::rootVar(const Expr *E) const {
  for (int I = 0; E && I < 16; ++I) {
    E = stripImplicit(E);
    if (const auto *DRE = dyn_cast<DeclRefExpr>(E))
      return dyn_cast<VarDecl>(DRE->getDecl());
    if (const auto *ME = dyn_cast<MemberExpr>(E))
      E = ME->getBase();
    else if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E))
      E = Op->getNumArgs() ? Op->getArg(0) : nullptr;
    else if (const auto *MC = dyn_cast<CXXMemberCallExpr>(E))
      E = MC->getImplicitObjectArgument();
    else
      return nullptr;
  }
  return nullptr;
}

void DeviceFlowBuilder::assign(const ValueDecl *D, DeviceFact F,
                               bool Declaration) {
  Carrier C = cachedCarrier(D->getType());
  if (C == Carrier::None)
    return;
  if (Scan.Volatile.contains(D)) {
    Cur[D] = DeviceFact::unknown();
    return;
  }
  if (C == Carrier::Device || C == Carrier::DeviceType) {
    // Tensors moved to the old value of D are no longer "on D".
    if (!Declaration)
      for (auto &[Other, OF] : Cur)
        if (OF.Device.kind() == DeviceValue::OnDevice && OF.Device.decl() == D)
          OF = DeviceFact::unknown();
    if (F.Device.kind() == DeviceValue::Unknown ||
        (F.Device.kind() == DeviceValue::OnDevice && F.Device.decl() != D))
      F = {DeviceValue::onDevice(D), {}, Origin(Origin::DeviceValueDecl,
                                                D->getLocation())};
  }
  Cur[D] = F;
}

void DeviceFlowBuilder::moduleTo(const CXXMemberCallExpr *Call) {
  ModuleRef R = moduleRoot(Call->getImplicitObjectArgument());
  if (!R || Call->getNumArgs() == 0)
    return;
  const ValueDecl *Root = R.Root;
  Carrier A = carrier(Call->getArg(0));
  if (A != Carrier::Device && A != Carrier::DeviceType)
    return; // to(dtype)
  DeviceValue D = deviceArgument(Call->getArg(0));
  if (R.Member || !D.isKnown() || D.kind() == DeviceValue::Unspecified)
    return assign(Root, DeviceFact::unknown(), false);
  assign(Root, {D, {}, Origin(Origin::ModuleMoved, Call)}, false);
}

void DeviceFlowBuilder::escape(const CallExpr *Call) {
  const FunctionDecl *FD = Call->getDirectCallee();
  if (!FD || isLibTorchDecl(FD))
    return;
  if (FD->getIdentifier() &&
      (FD->getName() == "move" || FD->getName() == "forward") &&
      outermostNamespace(FD) == "std")
    return;
  // A call of a non-const member function of this class may reassign the
  // members: back to what is known on entry.
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Call))
    if (const CXXMethodDecl *MD = MC->getMethodDecl())
      if (!MD->isConst() &&
          isa<CXXThisExpr>(stripImplicit(MC->getImplicitObjectArgument())))
        for (auto &[D, F] : Cur)
          if (isa<FieldDecl>(D))
            F = initialFact(D);
  unsigned Offset = isa<CXXOperatorCallExpr>(Call) && isa<CXXMethodDecl>(FD);
  for (unsigned I = 0; I < Call->getNumArgs(); ++I) {
    const Expr *Arg = stripImplicit(Call->getArg(I));
    bool AddressOf = false;
    if (const auto *UO = dyn_cast<UnaryOperator>(Arg))
      if (UO->getOpcode() == UO_AddrOf) {
        Arg = stripImplicit(UO->getSubExpr());
        AddressOf = true;
      }
    const VarDecl *V = rootVar(Arg);
    if (!V)
      continue;
    Carrier C = cachedCarrier(V->getType());
    if (C == Carrier::None)
      continue;
    bool Escapes = AddressOf || C == Carrier::Module;
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
// Values
// ===--------------------------------------------------------------------===//

DeviceFact DeviceFlowBuilder::get(const Expr *E) {
  if (!E)
    return DeviceFact::unknown();
  auto It = Memo.find(E);
  if (It != Memo.end() &&
      (It->second.Visit == Visit || Elements.contains(E)))
    return It->second.Fact;
  DeviceFact F = compute(E);
  if (carrier(E) != Carrier::None)
    Memo[E] = {F, Visit};
  return F;
}

DeviceFact DeviceFlowBuilder::compute(const Expr *E) {
  Carrier C = carrier(E);
  if (C == Carrier::None || Depth > 48)
    return DeviceFact::unknown();
  ++Depth;
  DeviceFact F = computeNode(E, C);
  --Depth;
  return F;
}

DeviceFact DeviceFlowBuilder::initialFact(const ValueDecl *D) {
  Carrier C = cachedCarrier(D->getType());
  auto Symbolic = [&] {
    return DeviceFact{DeviceValue::onDevice(D), {},
                      Origin(Origin::DeviceValueDecl, D->getLocation())};
  };
  if (const auto *P = dyn_cast<ParmVarDecl>(D)) {
    if (C == Carrier::Device || C == Carrier::DeviceType)
      return Symbolic();
    if (C == Carrier::Tensor && Forward && P->getDeclContext() == Fn)
      return {DeviceValue::moduleDevice(), {},
              Origin(Origin::ForwardArgument, P->getLocation())};
    return DeviceFact::unknown();
  }
  if (const auto *F = dyn_cast<FieldDecl>(D)) {
    if (C == Carrier::Device || C == Carrier::DeviceType)
      return Symbolic();
    if (!Forward)
      return DeviceFact::unknown();
    if (C == Carrier::Module)
      return {DeviceValue::moduleDevice(), {},
              Origin(Origin::ModuleTensor, F->getLocation())};
    if (C == Carrier::Tensor) {
      const auto *RD = dyn_cast<CXXRecordDecl>(F->getParent());
      if (!RD)
        return DeviceFact::unknown();
      auto [It, New] = Cache.Registrations.try_emplace(RD);
      if (New)
        It->second = analyzeRegistrations(RD, Ctx.getSourceManager());
      if (It->second.find(F))
        return {DeviceValue::moduleDevice(), {},
                Origin(Origin::ModuleTensor, F->getLocation())};
    }
    return DeviceFact::unknown();
  }
  if (const auto *V = dyn_cast<VarDecl>(D)) {
    if (C != Carrier::Device && C != Carrier::DeviceType &&
        C != Carrier::Options)
      return DeviceFact::unknown();
    if (V->getType().isConstQualified() && V->getInit() && Depth < 8) {
      DeviceFact F = compute(V->getInit());
      if (F.Device.isKnown())
        return F;
    }
    if (C != Carrier::Options)
      return Symbolic();
  }
  return DeviceFact::unknown();
}

DeviceFact DeviceFlowBuilder::varFact(const ValueDecl *D) {
  if (Scan.Volatile.contains(D))
    return DeviceFact::unknown();
  auto It = Cur.find(D);
  if (It != Cur.end())
    return It->second;
  if (isLocal(D))
    return DeviceFact::unknown();
  return initialFact(D);
}

DeviceValue DeviceFlowBuilder::deviceArgument(const Expr *E) {
  return get(E).Device;
}

DeviceFact DeviceFlowBuilder::common(llvm::ArrayRef<const Expr *> Operands,
                                     bool Broadcast) {
  // ATen's rule (TensorIteratorBase::compute_types): the first operand not
  // on the CPU decides the device; 0-dim CPU operands follow it.
  llvm::SmallVector<DeviceFact, 4> Facts;
  for (const Expr *O : Operands)
    Facts.push_back(get(O));
  bool AnyDevice = llvm::any_of(Facts, [](const DeviceFact &F) {
    return !F.Device.isCPU() && !F.Device.isBottom();
  });
  DeviceFact R;
  bool First = true;
  TensorRank Rank = TensorRank::exactly(0);
  bool RankKnown = true;
  for (const DeviceFact &F : Facts) {
    if (F.Device.isBottom())
      continue;
    if (Broadcast && RankKnown)
      Rank = TensorRank::broadcast(Rank, F.Rank);
    if (AnyDevice && F.Device.isCPU() && F.Rank.isScalar())
      continue;
    if (First)
      R = F;
    else
      DeviceFact::joinInto(R, F);
    First = false;
  }
  if (First) // all 0-dim CPU, or none known
    R = Facts.empty() ? DeviceFact::unknown() : Facts.front();
  R.Rank = Broadcast ? Rank : TensorRank::unknown();
  return R;
}

DeviceFact DeviceFlowBuilder::computeNode(const Expr *E, Carrier C) {
  // Wrappers.
  if (const auto *EWC = dyn_cast<ExprWithCleanups>(E))
    return get(EWC->getSubExpr());
  if (const auto *M = dyn_cast<MaterializeTemporaryExpr>(E))
    return get(M->getSubExpr());
  if (const auto *B = dyn_cast<CXXBindTemporaryExpr>(E))
    return get(B->getSubExpr());
  if (const auto *P = dyn_cast<ParenExpr>(E))
    return get(P->getSubExpr());
  if (const auto *DA = dyn_cast<CXXDefaultArgExpr>(E))
    return get(DA->getExpr());
  if (const auto *Cast = dyn_cast<CastExpr>(E)) {
    const Expr *Sub = Cast->getSubExpr();
    if (carrier(Sub) != Carrier::None)
      return get(Sub);
    return DeviceFact::unknown();
  }
  if (C == Carrier::DeviceType)
    if (std::optional<DeviceValue> K = constantDeviceType(E, Ctx))
      return {*K, {}, Origin()};

  if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
    if (isa<VarDecl>(DRE->getDecl()))
      return varFact(DRE->getDecl());
    return DeviceFact::unknown();
  }
  if (const auto *ME = dyn_cast<MemberExpr>(E)) {
    const auto *FD = dyn_cast<FieldDecl>(ME->getMemberDecl());
    if (!FD)
      return DeviceFact::unknown();
    const Expr *Base = stripImplicit(ME->getBase());
    if (isa<CXXThisExpr>(Base))
      return varFact(FD);
    Carrier BC = carrier(Base);
    if (BC == Carrier::Example)
      return get(Base);
    if (BC == Carrier::Module) {
      DeviceFact M = get(Base);
      if (C == Carrier::Tensor && M.Device.isKnown())
        return {M.Device, {}, Origin(Origin::ModuleTensor, E)};
      if (C == Carrier::Module)
        return M;
    }
    return DeviceFact::unknown();
  }
  if (isa<CXXThisExpr>(E))
    return Forward && C == Carrier::Module
               ? DeviceFact{DeviceValue::moduleDevice(), {}, Origin()}
               : DeviceFact::unknown();
  if (const auto *CO = dyn_cast<AbstractConditionalOperator>(E)) {
    DeviceFact T = get(CO->getTrueExpr()), F = get(CO->getFalseExpr());
    bool Negated = false;
    if (isCudaAvailabilityTest(CO->getCond(), Negated)) {
      const DeviceFact &Gpu = Negated ? F : T, &Cpu = Negated ? T : F;
      if (Gpu.Device.kind() == DeviceValue::CUDA && Cpu.Device.isCPU())
        return {DeviceValue::cuda(Gpu.Device.index(), true), Gpu.Rank,
                Origin(Origin::DeviceValueDecl, E)};
    }
    DeviceFact::joinInto(T, F);
    return T;
  }
  if (const auto *CE = dyn_cast<CXXConstructExpr>(E))
    return constructFact(CE, C);
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E))
    return operatorFact(Op, C);
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(E))
    return memberCallFact(MC, C);
  if (const auto *Call = dyn_cast<CallExpr>(E))
    return callFact(Call, C);
  if (isa<CXXNullPtrLiteralExpr>(E))
    return {};
  return DeviceFact::unknown();
}

/// The string literal inside \p E (a std::string built from one), or null.
static const StringLiteral *stringLiteralIn(const Expr *E, int Depth = 0) {
  if (!E || Depth > 6)
    return nullptr;
  E = stripImplicit(E);
  if (const auto *SL = dyn_cast<StringLiteral>(E))
    return SL;
  if (const auto *B = dyn_cast<CXXBindTemporaryExpr>(E))
    return stringLiteralIn(B->getSubExpr(), Depth + 1);
  if (const auto *M = dyn_cast<MaterializeTemporaryExpr>(E))
    return stringLiteralIn(M->getSubExpr(), Depth + 1);
  if (const auto *CE = dyn_cast<CXXConstructExpr>(E))
    if (CE->getNumArgs() >= 1)
      return stringLiteralIn(CE->getArg(0), Depth + 1);
  return nullptr;
}

DeviceFact DeviceFlowBuilder::constructFact(const CXXConstructExpr *CE,
                                            Carrier C) {
  const unsigned N = CE->getNumArgs();
  const Expr *Arg0 = N ? CE->getArg(0) : nullptr;
  Carrier A0 = carrier(Arg0);
  // Copies, moves and conversions between carriers of one kind.
  if (Arg0 && A0 == C)
    return get(Arg0);
  switch (C) {
  case Carrier::Device: {
    if (A0 == Carrier::DeviceType) {
      DeviceFact F = get(Arg0);
      Expr::EvalResult R;
      if (F.Device.kind() == DeviceValue::CUDA && N > 1 &&
          !isa<CXXDefaultArgExpr>(CE->getArg(1)) &&
          !CE->getArg(1)->isValueDependent() &&
          CE->getArg(1)->EvaluateAsInt(R, Ctx))
        F.Device = DeviceValue::cuda(R.Val.getInt().getExtValue(),
                                     F.Device.ifAvailable());
      return F;
    }
    if (const StringLiteral *SL = stringLiteralIn(Arg0))
      if (SL->getCharByteWidth() == 1)
        return {parseDeviceString(SL->getString()), {}, Origin()};
    return DeviceFact::unknown();
  }
  case Carrier::Options:
    if (N == 0)
      return {DeviceValue::unspecified(), {}, Origin()};
    if (A0 == Carrier::Device || A0 == Carrier::DeviceType)
      return get(Arg0);
    if (N == 1) // dtype, layout, memory format
      return {DeviceValue::unspecified(), {}, Origin()};
    return DeviceFact::unknown();
  case Carrier::Module:
    if (Arg0 && isa<CXXNullPtrLiteralExpr>(stripImplicit(Arg0)))
      return {};
    if (A0 == Carrier::Module)
      return get(Arg0);
    return {DeviceValue::cpu(), {}, Origin(Origin::ModuleCreated, CE)};
  case Carrier::Tensor:
    if (A0 == Carrier::Tensor)
      return get(Arg0);
    return DeviceFact::unknown();
  case Carrier::Example:
  case Carrier::ExampleVector:
    return DeviceFact::unknown();
  default:
    return DeviceFact::unknown();
  }
}

DeviceFact DeviceFlowBuilder::operatorFact(const CXXOperatorCallExpr *Op,
                                           Carrier C) {
  OverloadedOperatorKind K = Op->getOperator();
  const unsigned N = Op->getNumArgs();
  if (N == 0)
    return DeviceFact::unknown();
  const Expr *Arg0 = Op->getArg(0);
  Carrier A0 = carrier(Arg0);
  if ((K == OO_Arrow || K == OO_Star) && N == 1 && A0 == Carrier::Module)
    return get(Arg0);
  if (K == OO_Equal && N == 2)
    return get(Op->getArg(1));
  if (K == OO_Call && A0 == Carrier::Module) {
    llvm::SmallVector<const Expr *, 4> Args(llvm::drop_begin(Op->arguments()));
    return moduleCallFact(Op, Arg0, Args);
  }
  if (K == OO_Subscript && N == 2) {
    if (A0 == Carrier::ExampleVector && C == Carrier::Example) {
      DeviceFact F = get(Arg0);
      F.Rank = TensorRank::unknown();
      return F;
    }
    if (A0 != Carrier::Tensor || C != Carrier::Tensor)
      return DeviceFact::unknown();
    DeviceFact F = get(Arg0);
    F.Rank = Op->getArg(1)->getType()->isIntegerType() ? F.Rank.dropOne()
                                                       : TensorRank::unknown();
    return F;
  }
  if (C != Carrier::Tensor)
    return DeviceFact::unknown();
  // Compound assignment: in place, the left operand's device.
  switch (K) {
  case OO_PlusEqual:
  case OO_MinusEqual:
  case OO_StarEqual:
  case OO_SlashEqual:
  case OO_PercentEqual:
  case OO_AmpEqual:
  case OO_PipeEqual:
  case OO_CaretEqual:
    return get(Arg0);
  default:
    break;
  }
  llvm::SmallVector<const Expr *, 2> Tensors;
  for (const Expr *A : Op->arguments())
    if (carrier(A) == Carrier::Tensor)
      Tensors.push_back(A);
  if (Tensors.empty())
    return DeviceFact::unknown();
  return common(Tensors, /*Broadcast=*/true);
}

DeviceFact DeviceFlowBuilder::conversionFact(const CXXMemberCallExpr *Call) {
  DeviceFact From = get(Call->getImplicitObjectArgument());
  DeviceValue To;
  const CXXMethodDecl *MD = Call->getMethodDecl();
  StringRef Name = MD->getName();
  if (Name == "cpu")
    To = DeviceValue::cpu();
  else if (Name == "cuda")
    To = DeviceValue::cuda();
  else if (Call->getNumArgs() > 0) {
    const Expr *A = Call->getArg(0);
    Carrier AC = carrier(A);
    if (AC == Carrier::Device || AC == Carrier::DeviceType ||
        AC == Carrier::Options || AC == Carrier::Tensor)
      To = get(A).Device;
  }
  if (To.isBottom() || To.kind() == DeviceValue::Unspecified)
    return From;
  return {To, From.Rank, Origin(Origin::Moved, Call)};
}

DeviceFact DeviceFlowBuilder::memberCallFact(const CXXMemberCallExpr *Call,
                                             Carrier C) {
  const CXXMethodDecl *MD = Call->getMethodDecl();
  if (!MD)
    return DeviceFact::unknown();
  const Expr *Recv = Call->getImplicitObjectArgument();
  Carrier RC = carrier(Recv);
  StringRef Name = MD->getIdentifier() ? MD->getName() : StringRef();
  const CXXRecordDecl *Class = MD->getParent();

  if (RC == Carrier::Tensor && isTensorRecord(Class)) {
    if (Name == "to" || Name == "cuda" || Name == "cpu" || Name == "type_as")
      return C == Carrier::Tensor ? conversionFact(Call)
                                  : DeviceFact::unknown();
    DeviceFact R = get(Recv);
    if (C == Carrier::Options || C == Carrier::Device)
      return (Name == "options" || Name == "device")
                 ? DeviceFact{R.Device, {}, R.From}
                 : DeviceFact::unknown();
    if (C != Carrier::Tensor)
      return DeviceFact::unknown();
    bool NoWrittenArgs = llvm::all_of(Call->arguments(), [](const Expr *A) {
      return isa<CXXDefaultArgExpr>(A);
    });
    if (Name.starts_with("new_")) {
      TensorRank Rank = Call->getNumArgs() > 0
                            ? sizesRank(Call->getArg(0),
                                        [&](const Expr *T) { return rankOf(T); })
                            : TensorRank::unknown();
      return {R.Device, Rank, R.From};
    }
    if (NoWrittenArgs && isFullReduction(Name))
      return {R.Device, TensorRank::exactly(0), R.From};
    if (Name == "select" && Call->getNumArgs() == 2)
      return {R.Device, R.Rank.dropOne(), R.From};
    llvm::SmallVector<const Expr *, 4> Tensors{Recv};
    if (!isDeviceMixAllowed(Name))
      for (const Expr *A : Call->arguments())
        if (carrier(A) == Carrier::Tensor)
          Tensors.push_back(A);
    bool Broadcast = isBroadcastingOp(Name);
    DeviceFact F = Tensors.size() == 1 ? R : common(Tensors, Broadcast);
    if (keepsRank(Name) && Tensors.size() == 1)
      F.Rank = R.Rank;
    else if (!Broadcast)
      F.Rank = TensorRank::unknown();
    return F;
  }
  if (RC == Carrier::Options && C == Carrier::Options) {
    if (Name == "device" && Call->getNumArgs() == 1)
      return get(Call->getArg(0));
    return get(Recv);
  }
  if (RC == Carrier::Options && C == Carrier::Device && Name == "device") {
    DeviceFact F = get(Recv);
    if (F.Device.kind() == DeviceValue::Unspecified)
      F.Device = DeviceValue::cpu();
    return F;
  }
  if (RC == Carrier::Module || isForwardableModuleClass(Class)) {
    if ((Name == "forward" || Name == "any_forward") &&
        isForwardableModuleClass(Class)) {
      llvm::SmallVector<const Expr *, 4> Args(Call->arguments());
      return moduleCallFact(Call, Recv, Args);
    }
    if ((Name == "ptr" || Name == "get") && C == Carrier::Module)
      return get(Recv);
  }
  if ((Name == "get" || Name == "ptr") && C == Carrier::Module &&
      RC == Carrier::Module)
    return get(Recv);
  return DeviceFact::unknown();
}

DeviceFact DeviceFlowBuilder::moduleCallFact(const Expr *Call,
                                             const Expr *Module,
                                             llvm::ArrayRef<const Expr *> Args) {
  if (carrier(Call) != Carrier::Tensor)
    return DeviceFact::unknown();
  llvm::SmallVector<const Expr *, 4> Tensors;
  for (const Expr *A : Args)
    if (carrier(A) == Carrier::Tensor)
      Tensors.push_back(A);
  // A loss module computes on its inputs' device. Any other module's
  // output is on the module's device; when that is unknown, so is the
  // output (its forward() may move the input).
  const CXXRecordDecl *Class = moduleClassOf(Module->getType());
  if (isLossModule(Class))
    return Tensors.empty() ? DeviceFact::unknown()
                           : common(Tensors, /*Broadcast=*/false);
  DeviceFact M = get(Module);
  if (M.Device.isKnown() && M.Device.kind() != DeviceValue::Unspecified)
    return {M.Device, {}, Origin(Origin::ModuleOutput, Call)};
  return DeviceFact::unknown();
}

DeviceFact DeviceFlowBuilder::factoryFact(const CallExpr *Call,
                                          FactoryKind K) {
  const FunctionDecl *FD = Call->getDirectCallee();
  DeviceValue Dev = DeviceValue::unspecified();
  const Expr *Sizes = nullptr, *Like = nullptr;
  for (unsigned I = 0; I < Call->getNumArgs() && I < FD->getNumParams(); ++I) {
    const ParmVarDecl *P = FD->getParamDecl(I);
    const Expr *A = Call->getArg(I);
    Carrier PC = cachedCarrier(P->getType());
    StringRef PN = P->getIdentifier() ? P->getName() : StringRef();
    if (PC == Carrier::Options) {
      if (!isa<CXXDefaultArgExpr>(A))
        Dev = get(A).Device;
    } else if (PN == "device" && !isa<CXXDefaultArgExpr>(A)) {
      // at::randn(size, dtype, layout, device, pin_memory): an optional.
      const Expr *Inner = stripImplicit(A);
      if (const auto *CE = dyn_cast<CXXConstructExpr>(Inner))
        Inner = CE->getNumArgs() ? CE->getArg(0) : nullptr;
      Carrier IC = carrier(Inner);
      Dev = (IC == Carrier::Device || IC == Carrier::DeviceType)
                ? get(Inner).Device
                : DeviceValue::unknown();
    } else if (PN == "size" || PN == "sizes") {
      Sizes = A;
    } else if (PC == Carrier::Tensor && !Like) {
      Like = A;
    }
  }
  TensorRank Rank;
  auto RankOfTensor = [&](const Expr *T) { return rankOf(T); };
  switch (K) {
  case FactoryKind::Sized:
  case FactoryKind::FromBlob:
    Rank = Sizes ? sizesRank(Sizes, RankOfTensor) : TensorRank::unknown();
    break;
  case FactoryKind::Data:
    Rank = Call->getNumArgs() ? tensorDataRank(Call->getArg(0))
                              : TensorRank::unknown();
    break;
  case FactoryKind::Scalar:
    Rank = TensorRank::exactly(0);
    break;
  case FactoryKind::Vector:
    Rank = TensorRank::exactly(1);
    break;
  case FactoryKind::Matrix:
    Rank = TensorRank::exactly(2);
    break;
  case FactoryKind::Like:
  case FactoryKind::None:
    break;
  }
  if (K == FactoryKind::Like) {
    DeviceFact Base = get(Like);
    if (Dev.kind() == DeviceValue::Unspecified)
      return Base;
    return {Dev, Base.Rank, Origin(Origin::FactoryWithDevice, Call)};
  }
  if (Dev.kind() == DeviceValue::Unspecified)
    return {DeviceValue::cpu(), Rank, Origin(Origin::Factory, Call)};
  return {Dev, Rank, Origin(Origin::FactoryWithDevice, Call)};
}

DeviceFact DeviceFlowBuilder::callFact(const CallExpr *Call, Carrier C) {
  const FunctionDecl *FD = Call->getDirectCallee();
  if (!FD || !FD->getIdentifier())
    return DeviceFact::unknown();
  StringRef Name = FD->getName();
  StringRef NS = outermostNamespace(FD);
  if (NS == "std") {
    if ((Name == "move" || Name == "forward") && Call->getNumArgs() == 1)
      return get(Call->getArg(0));
    if ((Name == "make_shared" || Name == "make_unique") &&
        C == Carrier::Module)
      return {DeviceValue::cpu(), {}, Origin(Origin::ModuleCreated, Call)};
    return DeviceFact::unknown();
  }
  if (!isLibTorchDecl(FD))
    return DeviceFact::unknown();
  if (C == Carrier::Options) {
    if (Name == "device" && Call->getNumArgs() == 1)
      return get(Call->getArg(0));
    return {DeviceValue::unspecified(), {}, Origin()};
  }
  if (C != Carrier::Tensor)
    return DeviceFact::unknown();
  if (FactoryKind K = factoryKind(FD); K != FactoryKind::None)
    return factoryFact(Call, K);
  llvm::SmallVector<const Expr *, 4> Tensors;
  bool OtherArgs = false;
  for (const Expr *A : Call->arguments()) {
    if (carrier(A) == Carrier::Tensor)
      Tensors.push_back(A);
    else if (!isa<CXXDefaultArgExpr>(A))
      OtherArgs = true;
  }
  if (Tensors.empty())
    return DeviceFact::unknown();
  if (isDeviceMixAllowed(Name))
    Tensors.resize(1);
  bool Broadcast = isBroadcastingOp(Name);
  DeviceFact F = common(Tensors, Broadcast);
  if (Tensors.size() == 1 && !OtherArgs && isFullReduction(Name))
    F.Rank = TensorRank::exactly(0);
  else if (Tensors.size() == 1 && keepsRank(Name))
    F.Rank = get(Tensors.front()).Rank;
  return F;
}

// ===--------------------------------------------------------------------===//
// API
// ===--------------------------------------------------------------------===//

bool DeviceFlow::isModuleForward(const FunctionDecl *FD) {
  const auto *MD = dyn_cast_or_null<CXXMethodDecl>(FD);
  return MD && MD->getIdentifier() && MD->getName() == "forward" &&
         isModuleClass(MD->getParent());
}

const DeviceFlow &DeviceFlow::get(const FunctionDecl *FD, ASTContext &Ctx) {
  if (Cache.Ctx != &Ctx) {
    Cache.clear();
    Cache.Ctx = &Ctx;
  }
  const FunctionDecl *Def = FD;
  if (const FunctionDecl *D = FD->getDefinition())
    Def = D;
  auto [It, New] = Cache.Flows.try_emplace(Def);
  if (New) {
    It->second = std::make_unique<DeviceFlow>();
    DeviceFlowBuilder(Def, Ctx, *It->second).run();
  }
  return *It->second;
}

void DeviceFlow::clearCache() { Cache.clear(); }

DeviceFact DeviceFlow::factOf(const Expr *E) const {
  for (int I = 0; E && I < 8; ++I) {
    auto It = Facts.find(E);
    if (It != Facts.end())
      return It->second;
    const Expr *Next = E->IgnoreImplicit()->IgnoreParens();
    if (const auto *M = dyn_cast<MaterializeTemporaryExpr>(Next))
      Next = M->getSubExpr();
    if (Next == E)
      break;
    E = Next;
  }
  return DeviceFact::unknown();
}

DeviceValue DeviceFlow::conversionTarget(const CXXMemberCallExpr *Call) const {
  const CXXMethodDecl *MD = Call ? Call->getMethodDecl() : nullptr;
  if (!MD || !MD->getIdentifier() || !isTensorRecord(MD->getParent()))
    return {};
  StringRef Name = MD->getName();
  if (Name == "cpu")
    return DeviceValue::cpu();
  if (Name == "cuda")
    return DeviceValue::cuda();
  if ((Name != "to" && Name != "type_as") || Call->getNumArgs() == 0)
    return {};
  const Expr *A = Call->getArg(0);
  Carrier AC = cachedCarrier(A->getType());
  if (AC != Carrier::Device && AC != Carrier::DeviceType &&
      AC != Carrier::Options && AC != Carrier::Tensor)
    return {};
  DeviceValue V = deviceOf(A);
  return V.kind() == DeviceValue::Unspecified ? DeviceValue() : V;
}

bool DeviceFlow::isAlreadyOnTarget(const CXXMemberCallExpr *Call) const {
  DeviceValue To = conversionTarget(Call);
  DeviceValue From = deviceOf(Call->getImplicitObjectArgument());
  if (!To.isKnown() || !From.isKnown())
    return false;
  return To == From;
}

} // namespace clang::tidy::torch::utils
