//===- HotLoops.cpp - loops that run once per step ---------------------===//
#include "program/HotLoops.h"
#include "ast/ASTHelpers.h"
#include "device/CallerDevices.h"
#include "device/DeviceFlow.h"
#include "device/ProgramFacts.h"
#include "libtorch/DeviceRules.h"
#include "libtorch/ProgramCode.h"
#include "libtorch/TorchModules.h"
#include "libtorch/TorchTypes.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include <array>
#include <deque>
#include <functional>
#include <set>

namespace clang::tidy::torch::program {

StringRef HotMarker::loopKind() const {
  switch (Kind) {
  case HotMarkerKind::Backward:
  case HotMarkerKind::OptimizerStep:
    return "training";
  case HotMarkerKind::Forward:
    return Loss ? "loss-computing" : "inference";
  case HotMarkerKind::DataLoader:
    return "data-loading";
  default:
    return "";
  }
}

std::string HotMarker::loopName() const {
  switch (Kind) {
  case HotMarkerKind::InForward:
  case HotMarkerKind::CalledPerStep:
    if (Body)
      return "the step loop of another file that runs '" + Name + "'";
    return "this loop in '" + Name + "'";
  case HotMarkerKind::PerElement:
    return Name.empty() ? "this loop over a tensor's elements"
                        : "this loop over '" + Name + "'";
  case HotMarkerKind::CallsElsewhere:
    return "this step loop";
  default:
    return ("this " + loopKind() + " loop").str();
  }
}

SourceLocation HotMarker::location() const {
  return E           ? E->getExprLoc()
         : Forward   ? Forward->getLocation()
         : Elsewhere ? Elsewhere->getLocation()
                     : SourceLocation();
}

std::string HotMarker::describe() const {
  switch (Kind) {
  case HotMarkerKind::Backward:
  case HotMarkerKind::OptimizerStep:
    if (!Via.empty())
      return "this loop runs a training step: '" + Via + "' calls '" + Name +
             "'";
    return "this loop runs a training step: '" + Name + "' is called here";
  case HotMarkerKind::Forward:
    if (!Via.empty())
      return "this loop runs the model: '" + Via + "' calls it";
    if (Loss)
      return "this loop computes a loss: the loss module is called here";
    if (Name == "operator()")
      return "this loop runs the model: the module is called here";
    return "this loop runs the model: '" + Name + "' is called here";
  case HotMarkerKind::DataLoader:
    return "this loop fetches a batch from a data loader on every iteration";
  case HotMarkerKind::InForward:
    return "'" + Name + "' runs on every call of the module";
  case HotMarkerKind::CalledPerStep:
    if (Elsewhere)
      return "'" + Name + "' runs once per step of a loop in another file";
    return "'" + Name + "' is called here " + Why;
  case HotMarkerKind::PerElement:
    return "this loop runs once per element of " +
           (Name.empty() ? std::string("the tensor") : "'" + Name + "'");
  case HotMarkerKind::CallsElsewhere:
    return "this loop runs a step: it calls functions of other files ('" +
           Name +
           "', ...) on every iteration, and one of them runs a backward pass, "
           "an optimizer step or a model";
  }
  return "";
}

/// True when \p Object (a module, or a pointer to one) is a loss: one of
/// LibTorch's (DeviceRules), or a class of the user's named like one
/// (`YoloLoss`).
static bool isLossObject(const Expr *Object) {
  const CXXRecordDecl *RD =
      Object ? libtorch::moduleClassOf(Object->IgnoreImpCasts()->getType())
             : nullptr;
  return RD && (libtorch::isLossModule(RD) ||
                (RD->getIdentifier() && (RD->getName().ends_with("Loss") ||
                                         RD->getName().ends_with("LossImpl"))));
}

static bool runsOwnStepLoop(const CXXMethodDecl *MD);

/// If \p E is itself a hot marker, describes it.
static HotMarker asHotMarker(const Expr *E) {
  HotMarker M;
  const auto *Call = dyn_cast_or_null<CallExpr>(E);
  if (!Call)
    return M;
  auto Found = [&](HotMarkerKind K, std::string Name) {
    M.E = E;
    M.Kind = K;
    M.Name = std::move(Name);
    return M;
  };
  // In a template, `model->forward(x)` on a model of a type parameter.
  if (const auto *Dependent = ast::dependentMemberCallee(Call);
      Dependent &&
      Dependent->getMember().getAsIdentifierInfo()->getName() == "forward") {
    Found(HotMarkerKind::Forward, "forward");
    M.Dependent = true;
    return M;
  }
  // In a pattern, `network->recurrent_inference(state)` with a dependent
  // argument names its one candidate.
  const FunctionDecl *FD = ast::calleeOrOnlyCandidate(Call);
  if (!FD)
    return M;
  M.Dependent = !Call->getDirectCallee();
  if (const auto *MD = dyn_cast<CXXMethodDecl>(FD)) {
    const CXXRecordDecl *RD = MD->getParent();
    if (MD->getOverloadedOperator() == OO_Call) {
      if (!libtorch::isForwardableModuleClass(RD))
        return M;
      Found(HotMarkerKind::Forward, "operator()");
      if (isa<CXXOperatorCallExpr>(Call))
        M.Loss = isLossObject(Call->getArg(0));
      return M;
    }
    if (!MD->getDeclName().isIdentifier())
      return M;
    StringRef Name = MD->getName();
    if (Name == "backward" && libtorch::isTensorRecord(RD))
      return Found(HotMarkerKind::Backward, "backward");
    if ((Name == "step" || Name == "zero_grad") &&
        libtorch::isOptimizerClass(RD))
      return Found(HotMarkerKind::OptimizerStep, Name.str());
    // A method of the user's own module that yields tensors (an agent's
    // `act(obs)`, a model's `sample()`) runs the model too.
    // Not one that loops over steps itself (style transfer's `optimise()`):
    // a loop around it runs once per image or epoch.
    bool UserModuleMethod = !MD->isStatic() && libtorch::isModuleClass(RD) &&
                            !libtorch::isLibraryDecl(MD) &&
                            libtorch::holdsTensors(MD->getReturnType()) &&
                            !runsOwnStepLoop(MD);
    if (((Name == "forward" || Name == "any_forward") &&
         libtorch::isForwardableModuleClass(RD)) ||
        UserModuleMethod) {
      Found(HotMarkerKind::Forward, Name.str());
      if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Call))
        M.Loss = isLossObject(MC->getImplicitObjectArgument());
      return M;
    }
    return M;
  }
  if (!FD->getDeclName().isIdentifier())
    return M;
  StringRef Name = FD->getName();
  if ((Name == "backward" || Name == "grad") &&
      FD->getQualifiedNameAsString() == ("torch::autograd::" + Name).str())
    return Found(HotMarkerKind::Backward, "torch::autograd::" + Name.str());
  return M;
}

namespace {
/// Methods whose own loops are being searched (a method that calls itself
/// through its loop is not read again).
thread_local llvm::SmallPtrSet<const FunctionDecl *, 4> SearchingOwnLoops;
thread_local llvm::DenseMap<const FunctionDecl *, bool> OwnStepLoops;
} // namespace

/// True when the body of \p MD holds a loop with a hot marker of its own.
static bool runsOwnStepLoop(const CXXMethodDecl *MD) {
  const FunctionDecl *Def = nullptr;
  if (!MD->hasBody(Def))
    return false;
  if (auto It = OwnStepLoops.find(Def); It != OwnStepLoops.end())
    return It->second;
  if (!SearchingOwnLoops.insert(Def).second)
    return false;
  std::function<bool(const Stmt *)> HasHotLoop = [&](const Stmt *S) {
    if (!S || isa<LambdaExpr>(S))
      return false;
    if (ast::isLoop(S) && findHotMarker(S))
      return true;
    return llvm::any_of(S->children(), HasHotLoop);
  };
  bool Found = HasHotLoop(Def->getBody());
  SearchingOwnLoops.erase(Def);
  OwnStepLoops[Def] = Found;
  return Found;
}

/// The data loader \p Loop iterates over, if it is a range-for over one.
static const Expr *dataLoaderRange(const Stmt *Loop) {
  const auto *R = dyn_cast<CXXForRangeStmt>(Loop);
  if (!R || !R->getRangeInit())
    return nullptr;
  QualType T = R->getRangeInit()->getType().getNonReferenceType();
  return libtorch::isOrDerivesFrom(T->getAsCXXRecordDecl(),
                                   "torch::data::DataLoaderBase")
             ? R->getRangeInit()
             : nullptr;
}

/// The definition of a function of the user's code that \p Call runs
/// (not a lambda's), if its body can be read.
static const FunctionDecl *userCallee(const CallExpr *Call) {
  const FunctionDecl *FD = ast::calleeOrOnlyCandidate(Call);
  const FunctionDecl *Def = nullptr;
  if (!FD || !FD->hasBody(Def) ||
      (Def->isDependentContext() && !ast::isUninstantiatedPattern(Def)) ||
      libtorch::isLibraryDecl(Def))
    return nullptr;
  if (const auto *MD = dyn_cast<CXXMethodDecl>(Def))
    if (MD->getParent()->isLambda())
      return nullptr;
  return Def;
}

static bool searchMarkers(const Stmt *S, HotMarker (&First)[4], unsigned Depth);

namespace {
/// (function, calls still allowed) -> the markers its body runs once per
/// call, outside its loops: a training-step helper.
thread_local llvm::DenseMap<std::pair<const FunctionDecl *, unsigned>,
                            std::array<HotMarker, 4>>
    HelperMarkers;
} // namespace

/// The markers that a call of the helper \p Def runs on each call.
static const std::array<HotMarker, 4> &helperMarkers(const FunctionDecl *Def,
                                                     unsigned Depth) {
  auto [It, New] = HelperMarkers.try_emplace({Def, Depth});
  if (New) {
    HotMarker Found[4];
    searchMarkers(Def->getBody(), Found, Depth);
    auto &Slot = HelperMarkers[{Def, Depth}];
    for (unsigned I = 0; I < 4; ++I)
      Slot[I] = std::move(Found[I]);
    return Slot;
  }
  return It->second;
}

/// True if \p M should replace \p Slot, the first marker of its kind: the
/// model's forward() over a loss's, so that a Forward marker with Loss set
/// says that every forward() the loop runs is a loss's.
static bool preferredOver(const HotMarker &M, const HotMarker &Slot) {
  return M.Kind == HotMarkerKind::Forward && Slot.Loss && !M.Loss;
}

/// Searches \p S, not entering nested loops or lambdas, for the first marker
/// of each kind, and into the bodies of the user's functions it calls, up
/// to \p Depth calls deep; stops at a backward pass.
static bool searchMarkers(const Stmt *S, HotMarker (&First)[4],
                          unsigned Depth) {
  if (!S || ast::isLoop(S) || isa<LambdaExpr>(S))
    return false;
  if (const auto *E = dyn_cast<Expr>(S)) {
    HotMarker M = asHotMarker(E);
    const FunctionDecl *Helper =
        M || Depth == 0 ? nullptr : userCallee(dyn_cast<CallExpr>(E));
    if (Helper)
      for (const HotMarker &Inner : helperMarkers(Helper, Depth - 1))
        if (Inner) {
          HotMarker &Slot = First[static_cast<unsigned>(Inner.Kind)];
          if (!Slot || preferredOver(Inner, Slot)) {
            Slot = Inner;
            Slot.E = E;
            Slot.Via = Helper->getQualifiedNameAsString();
          }
        }
    if (M) {
      HotMarker &Slot = First[static_cast<unsigned>(M.Kind)];
      if (!Slot || preferredOver(M, Slot))
        Slot = std::move(M);
    }
    if (First[0])
      return true;
  }
  return llvm::any_of(S->children(), [&](const Stmt *Child) {
    return searchMarkers(Child, First, Depth);
  });
}

namespace {
/// (function, calls still allowed) -> whether a loop of its body trains.
thread_local llvm::DenseMap<std::pair<const FunctionDecl *, unsigned>, bool>
    TrainingLoopIn;
} // namespace

/// True if \p S holds a loop (not in a lambda) that runs a training step,
/// or calls a function of the program whose body holds one, up to \p Depth
/// calls deep (a PPO update loop's `update()`, whose minibatch loop trains).
/// With \p OnEachRun, only where \p S runs it on each of its runs: not in
/// the branches of an `if`, `switch` or `?:` (an off-policy agent's
/// `if (step >= learning_starts) for (...) { ... backward(); }` updates
/// inside its environment-step loop, which stays a step loop).
static bool containsTrainingLoop(const Stmt *S, unsigned Depth = 2,
                                 bool OnEachRun = false) {
  if (!S || isa<LambdaExpr>(S))
    return false;
  if (OnEachRun) {
    if (const auto *If = dyn_cast<IfStmt>(S))
      return containsTrainingLoop(If->getInit(), Depth, true) ||
             containsTrainingLoop(If->getCond(), Depth, true);
    if (const auto *Switch = dyn_cast<SwitchStmt>(S))
      return containsTrainingLoop(Switch->getCond(), Depth, true);
    if (const auto *CO = dyn_cast<AbstractConditionalOperator>(S))
      return containsTrainingLoop(CO->getCond(), Depth, true);
  }
  if (ast::isLoop(S)) {
    HotMarker M = findHotMarker(S);
    if (M && (M.Kind == HotMarkerKind::Backward ||
              M.Kind == HotMarkerKind::OptimizerStep))
      return true;
  }
  if (const FunctionDecl *Def =
          Depth ? userCallee(dyn_cast<CallExpr>(S)) : nullptr) {
    auto [It, New] = TrainingLoopIn.try_emplace({Def, Depth}, false);
    // Known, or being computed (recursion): false so far.
    bool Trains = It->second;
    if (New) {
      Trains = containsTrainingLoop(Def->getBody(), Depth - 1);
      TrainingLoopIn[{Def, Depth}] = Trains;
    }
    if (Trains)
      return true;
  }
  return llvm::any_of(S->children(), [&](const Stmt *Child) {
    return containsTrainingLoop(Child, Depth, OnEachRun);
  });
}

/// A part of a loop's iteration that trains in a nested loop on each run.
static bool containsTrainingLoopPart(const Stmt *S) {
  return containsTrainingLoop(S, 2, /*OnEachRun=*/true);
}

HotMarker findHotMarker(const Stmt *Loop) {
  HotMarker First[4];
  for (const Stmt *Part : ast::iterationParts(Loop))
    if (searchMarkers(Part, First, 3))
      break;
  if (const Expr *Range = dataLoaderRange(Loop)) {
    HotMarker &Slot = First[static_cast<unsigned>(HotMarkerKind::DataLoader)];
    Slot.E = Range;
    Slot.Kind = HotMarkerKind::DataLoader;
    Slot.Name = "data loader";
  }
  // A loop that only runs the model, around a nested training loop, is an
  // epoch or update loop: its model call (an evaluation, a bootstrap value)
  // runs once per epoch.
  bool OnlyForward = First[static_cast<unsigned>(HotMarkerKind::Forward)] &&
                     !First[0] && !First[1] && !First[3];
  if (OnlyForward &&
      llvm::any_of(ast::iterationParts(Loop), containsTrainingLoopPart))
    return {};
  // The enumerators are in order of preference.
  for (HotMarker &M : First)
    if (M)
      return std::move(M);
  return {};
}

/// The tensor whose size a read in \p E gives (`dets.size(0)`,
/// `order.numel()`, `t.sizes()[0]`), through one local initialised from
/// it; \p Depth bounds that.
static const CXXMemberCallExpr *sizeRead(const Stmt *S, unsigned Depth = 1) {
  if (!S || isa<LambdaExpr>(S))
    return nullptr;
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(S)) {
    const CXXMethodDecl *MD = MC->getMethodDecl();
    if (MD && MD->getIdentifier() &&
        libtorch::isTensorRecord(MD->getParent()) &&
        llvm::is_contained({"size", "sizes", "numel", "sym_size", "sym_numel"},
                           MD->getName()))
      return MC;
  }
  if (const auto *Ref = dyn_cast<DeclRefExpr>(S))
    if (const auto *VD = dyn_cast<VarDecl>(Ref->getDecl());
        VD && Depth > 0 && VD->hasLocalStorage() && !isa<ParmVarDecl>(VD))
      return sizeRead(VD->getInit(), Depth - 1);
  for (const Stmt *Child : S->children())
    if (const CXXMemberCallExpr *Found = sizeRead(Child, Depth))
      return Found;
  return nullptr;
}

/// A PerElement marker if \p Loop's condition reads a tensor's size.
static HotMarker perElementMarker(const Stmt *Loop) {
  const Stmt *Cond = nullptr;
  if (const auto *F = dyn_cast<ForStmt>(Loop))
    Cond = F->getCond();
  else if (const auto *W = dyn_cast<WhileStmt>(Loop))
    Cond = W->getCond();
  else if (const auto *D = dyn_cast<DoStmt>(Loop))
    Cond = D->getCond();
  HotMarker M;
  const CXXMemberCallExpr *Read = sizeRead(Cond);
  if (!Read)
    return M;
  M.E = Read;
  M.Kind = HotMarkerKind::PerElement;
  M.BySize = true;
  const Expr *Tensor = ast::stripImplicit(Read->getImplicitObjectArgument());
  if (const auto *Ref = dyn_cast_or_null<DeclRefExpr>(Tensor))
    M.Name = Ref->getDecl()->getNameAsString();
  else if (const auto *Member = dyn_cast_or_null<MemberExpr>(Tensor))
    M.Name = Member->getMemberDecl()->getNameAsString();
  return M;
}

namespace {
/// What hotLoop() and perStepCall() know about one translation unit.
struct HotLoopState {
  ASTContext *Ctx = nullptr;
  /// Canonical declaration -> why it runs once per step.
  llvm::DenseMap<const FunctionDecl *, HotMarker> PerStep;
  /// Function -> its loops that are hot (hotLoop()).
  llvm::DenseMap<const FunctionDecl *, llvm::DenseMap<const Stmt *, HotMarker>>
      Roots;
  /// Keys of the functions defined elsewhere that run once per step.
  std::set<std::string> PerStepElsewhere;
};
thread_local HotLoopState State;

/// A call that makes its callee run once per step.
struct PerStepSeed {
  const CallExpr *Call;
  std::string Why;
  unsigned Depth;
  bool BySize;
};

/// The function of the program that \p Call runs, if it is defined in
/// another file (no body here).
const FunctionDecl *elsewhereCallee(const CallExpr *Call) {
  const FunctionDecl *FD = Call->getDirectCallee();
  if (FD && !FD->hasBody() && device::isUserFunction(FD) &&
      !libtorch::isLibraryDecl(FD) && !device::DeviceFlow::isModuleForward(FD))
    return FD;
  return nullptr;
}

/// Appends the calls in \p S (lambdas included) to \p Out.
void collectCalls(const Stmt *S, const std::string &Why, unsigned Depth,
                  bool BySize, std::deque<PerStepSeed> &Out) {
  if (!S)
    return;
  // A branch under a periodic guard (`if (step % every == 0) sample();`)
  // runs once per interval: its calls are not per step.
  if (auto Parts = ast::partsBesidePeriodicBranch(S)) {
    for (const Stmt *Part : *Parts)
      collectCalls(Part, Why, Depth, BySize, Out);
    return;
  }
  if (const auto *Call = dyn_cast<CallExpr>(S))
    Out.push_back({Call, Why, Depth, BySize});
  if (const auto *Lambda = dyn_cast<LambdaExpr>(S))
    return collectCalls(Lambda->getBody(), Why, Depth, BySize, Out);
  for (const Stmt *Child : S->children())
    collectCalls(Child, Why, Depth, BySize, Out);
}

/// "on every iteration of a training loop", for calls in the loop of \p M.
std::string perIterationWhy(const HotMarker &M) {
  switch (M.Kind) {
  case HotMarkerKind::PerElement:
    return "on every iteration of a loop over " +
           (M.Name.empty() ? std::string("a tensor") : "'" + M.Name + "'");
  default:
    StringRef Kind = M.loopKind();
    return ("on every iteration of " +
            StringRef(Kind.starts_with("i") ? "an " : "a ") + Kind + " loop")
        .str();
  }
}

/// Seeds from the loops of \p S that are hot by themselves or per element.
void seedFromLoops(const Stmt *S, std::deque<PerStepSeed> &Out) {
  if (!S)
    return;
  if (ast::isLoop(S)) {
    HotMarker M = findHotMarker(S);
    if (!M)
      M = perElementMarker(S);
    if (M)
      for (const Stmt *Part : ast::iterationParts(S))
        collectCalls(Part, perIterationWhy(M), 1,
                     M.Kind == HotMarkerKind::PerElement, Out);
  }
  if (const auto *Lambda = dyn_cast<LambdaExpr>(S))
    return seedFromLoops(Lambda->getBody(), Out);
  for (const Stmt *Child : S->children())
    seedFromLoops(Child, Out);
}

void buildPerStep(ASTContext &Ctx) {
  State = HotLoopState();
  State.Ctx = &Ctx;
  std::deque<PerStepSeed> Work;
  for (const FunctionDecl *Fn :
       libtorch::programFunctionDefinitions(Ctx, /*WithPatterns=*/true)) {
    if (device::DeviceFlow::isModuleForward(Fn))
      collectCalls(Fn->getBody(),
                   "on every call of '" + Fn->getQualifiedNameAsString() + "'",
                   1, false, Work);
    seedFromLoops(Fn->getBody(), Work);
  }
  // Breadth first: each function keeps the shortest reason.
  while (!Work.empty()) {
    PerStepSeed Seed = std::move(Work.front());
    Work.pop_front();
    const FunctionDecl *Def = userCallee(Seed.Call);
    if (const FunctionDecl *FD = elsewhereCallee(Seed.Call))
      State.PerStepElsewhere.insert(device::functionKey(FD));
    if (!Def || device::DeviceFlow::isModuleForward(Def))
      continue;
    auto [It, New] = State.PerStep.try_emplace(Def->getCanonicalDecl());
    if (!New)
      continue;
    HotMarker &M = It->second;
    M.E = Seed.Call;
    M.Kind = HotMarkerKind::CalledPerStep;
    M.Name = Def->getQualifiedNameAsString();
    M.Why = Seed.Why;
    M.BySize = Seed.BySize;
    if (Seed.Depth < 3)
      collectCalls(Def->getBody(),
                   "in '" + M.Name + "', which runs once per step",
                   Seed.Depth + 1, Seed.BySize, Work);
  }
}

void ensureBuilt(ASTContext &Ctx) {
  if (State.Ctx != &Ctx)
    buildPerStep(Ctx);
}

/// The keys of the functions defined elsewhere that \p S calls, outside
/// nested loops and lambdas (where a marker would not make its loop hot);
/// \p First, when given, gets the first such call in source order.
static void collectElsewhereCalls(const Stmt *S, std::set<std::string> &Out,
                                  const CallExpr **First = nullptr) {
  if (!S || ast::isLoop(S) || isa<LambdaExpr>(S))
    return;
  // Not the calls under a periodic guard: they run once per interval.
  if (auto Parts = ast::partsBesidePeriodicBranch(S)) {
    for (const Stmt *Part : *Parts)
      collectElsewhereCalls(Part, Out, First);
    return;
  }
  if (const auto *Call = dyn_cast<CallExpr>(S))
    if (const FunctionDecl *FD = elsewhereCallee(Call)) {
      Out.insert(device::functionKey(FD));
      if (First && !*First)
        *First = Call;
    }
  for (const Stmt *Child : S->children())
    collectElsewhereCalls(Child, Out, First);
}

/// For the innermost loop \p Loop (no loop nested in it) that calls
/// functions of other files outside lambdas: a marker that the program
/// confirms when one of them runs a training step (batch mode).
static HotMarker callsElsewhereMarker(const Stmt *Loop) {
  HotMarker M;
  auto Parts = ast::iterationParts(Loop);
  if (llvm::any_of(Parts, [](const Stmt *P) { return ast::containsLoop(P); }))
    return M;
  std::set<std::string> Keys;
  const CallExpr *First = nullptr;
  for (const Stmt *Part : Parts)
    collectElsewhereCalls(Part, Keys, &First);
  if (!First)
    return M;
  M.Kind = HotMarkerKind::CallsElsewhere;
  M.E = First;
  M.Name = elsewhereCallee(First)->getNameAsString();
  M.Callees.assign(Keys.begin(), Keys.end());
  return M;
}

/// Records the hot loops of \p S (hotLoop()); \p Context is the marker of
/// the function's place, \p Covered: S is inside a hot loop.
void collectRoots(const Stmt *S, const HotMarker &Context, bool Covered,
                  llvm::DenseMap<const Stmt *, HotMarker> &Roots,
                  bool OpenLoops) {
  if (!S)
    return;
  if (ast::isLoop(S)) {
    HotMarker M = findHotMarker(S);
    // In forward() or a per-step function, the place names a module call's
    // loop better than "inference".
    if (M && M.Kind == HotMarkerKind::Forward && Context && !Context.Elsewhere)
      M = Context;
    // A function that may run per step from another file: its loops that
    // are hot by themselves keep their own marker, and findings made with
    // the conditional one are only kept if the program confirms it.
    if (!M && !Covered)
      M = Context && !Context.Elsewhere ? Context : perElementMarker(S);
    if (!M && !Covered && Context.Elsewhere)
      M = Context;
    if (!M && !Covered && OpenLoops)
      M = callsElsewhereMarker(S);
    if (M) {
      Roots[S] = std::move(M);
      Covered = true;
    }
  }
  if (const auto *Lambda = dyn_cast<LambdaExpr>(S))
    return collectRoots(Lambda->getBody(), Context, Covered, Roots, OpenLoops);
  for (const Stmt *Child : S->children())
    collectRoots(Child, Context, Covered, Roots, OpenLoops);
}
} // namespace

HotMarker perStepCall(const FunctionDecl *Fn, ASTContext &Ctx) {
  ensureBuilt(Ctx);
  auto It = State.PerStep.find(Fn->getCanonicalDecl());
  return It == State.PerStep.end() ? HotMarker() : It->second;
}

HotMarker hotLoop(const Stmt *Loop, const FunctionDecl *Fn, ASTContext &Ctx) {
  ensureBuilt(Ctx);
  auto [It, New] = State.Roots.try_emplace(Fn);
  if (New) {
    HotMarker Context;
    if (device::DeviceFlow::isModuleForward(Fn)) {
      Context.Kind = HotMarkerKind::InForward;
      Context.Forward = Fn;
      Context.Name = Fn->getQualifiedNameAsString();
    } else {
      Context = perStepCall(Fn, Ctx);
      if (!Context)
        Context = perStepElsewhere(Fn, Ctx);
    }
    // Loops that call functions of other files, in batch mode; not in
    // template code, whose patterns may hide a marker the instantiation has.
    collectRoots(Fn->getBody(), Context, false, It->second,
                 device::exportsUnitFacts() && !ast::isTemplateCode(Fn));
  }
  auto Root = It->second.find(Loop);
  return Root == It->second.end() ? HotMarker() : Root->second;
}

/// True for a function of the program that a call in another file can name
/// (ProgramFacts keys it): a named function or a function object's
/// operator() (a detector's `detector(output)`), not main(), a lambda, a
/// template, a constructor or destructor, nor a module's forward() (a model
/// call is a marker itself).
static bool callableFromOtherFiles(const FunctionDecl *Fn) {
  const auto *MD = dyn_cast<CXXMethodDecl>(Fn);
  return Fn->isExternallyVisible() && !Fn->isMain() &&
         (Fn->getIdentifier() || Fn->getOverloadedOperator() == OO_Call) &&
         !ast::isTemplateCode(Fn) && !libtorch::isLibraryDecl(Fn) &&
         !(MD && MD->getParent()->isLambda()) &&
         !isa<CXXConstructorDecl, CXXDestructorDecl>(Fn) &&
         !device::DeviceFlow::isModuleForward(Fn);
}

HotMarker perStepElsewhere(const FunctionDecl *Fn, ASTContext &Ctx) {
  HotMarker M;
  if (!device::exportsUnitFacts() || !callableFromOtherFiles(Fn) ||
      perStepCall(Fn, Ctx))
    return M;
  M.Kind = HotMarkerKind::CalledPerStep;
  M.Elsewhere = Fn;
  M.Name = Fn->getQualifiedNameAsString();
  return M;
}

/// The O lines of the loops in \p S that are not hot by themselves: whether
/// they are depends on the functions they call in other files.
static void collectOpenLoops(const Stmt *S, std::set<std::string> &Lines) {
  if (!S)
    return;
  if (ast::isLoop(S) && !findHotMarker(S) && !perElementMarker(S) &&
      llvm::none_of(ast::iterationParts(S), containsTrainingLoopPart)) {
    std::set<std::string> Callees;
    for (const Stmt *Part : ast::iterationParts(S))
      collectElsewhereCalls(Part, Callees);
    if (!Callees.empty())
      Lines.insert(device::ProgramFacts::loopCallsFact(
          std::vector<std::string>(Callees.begin(), Callees.end())));
  }
  for (const Stmt *Child : S->children())
    collectOpenLoops(Child, Lines);
}

/// The functions of the program, callable from other files, that \p S
/// calls on each of its runs: outside loops, lambdas and the branches of an
/// `if`, `switch` or `?:` (a wrapper's `read(frame); runInference(frame);`).
static void collectCallsOnEachRun(const Stmt *S,
                                  std::set<const FunctionDecl *> &Out) {
  if (!S || ast::isLoop(S) || isa<LambdaExpr>(S))
    return;
  if (const auto *If = dyn_cast<IfStmt>(S)) {
    collectCallsOnEachRun(If->getInit(), Out);
    collectCallsOnEachRun(If->getCond(), Out);
    return;
  }
  if (isa<SwitchStmt, AbstractConditionalOperator>(S))
    return;
  if (const auto *Call = dyn_cast<CallExpr>(S))
    if (const FunctionDecl *FD = Call->getDirectCallee();
        FD && callableFromOtherFiles(FD))
      Out.insert(FD->getCanonicalDecl());
  for (const Stmt *Child : S->children())
    collectCallsOnEachRun(Child, Out);
}

std::string perStepFacts(ASTContext &Ctx) {
  ensureBuilt(Ctx);
  std::set<std::string> Lines;
  for (const std::string &Key : State.PerStepElsewhere)
    Lines.insert(device::ProgramFacts::perStepFact(Key));
  for (const FunctionDecl *Fn : libtorch::programFunctionDefinitions(Ctx)) {
    collectOpenLoops(Fn->getBody(), Lines);
    if (!callableFromOtherFiles(Fn))
      continue;
    std::set<const FunctionDecl *> Callees;
    collectCallsOnEachRun(Fn->getBody(), Callees);
    for (const FunctionDecl *Callee : Callees)
      if (Callee != Fn->getCanonicalDecl())
        for (const std::string &Key : device::functionKeysOfCalls(Fn))
          Lines.insert(device::ProgramFacts::callsOnEachRunFact(
              Key, device::functionKey(Callee)));
    const auto &Markers = helperMarkers(Fn, 2);
    if (llvm::any_of(Markers, [](const HotMarker &M) { return bool(M); }))
      for (const std::string &Key : device::functionKeysOfCalls(Fn))
        Lines.insert(device::ProgramFacts::stepFunctionFact(Key));
  }
  std::string Out;
  for (const std::string &L : Lines)
    Out += L;
  return Out;
}

void clearHotLoopCache() {
  State = HotLoopState();
  HelperMarkers.clear();
  TrainingLoopIn.clear();
  OwnStepLoops.clear();
}

} // namespace clang::tidy::torch::program
