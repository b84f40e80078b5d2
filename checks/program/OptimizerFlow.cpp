//===- OptimizerFlow.cpp - optimizers that outlive their model's tensors --===//
#include "program/OptimizerFlow.h"
#include "ast/ASTHelpers.h"
#include "libtorch/TorchTypes.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"
#include "llvm/ADT/DenseSet.h"

namespace clang::tidy::torch::program {

namespace {

using ParamList =
    llvm::SmallVector<std::pair<libtorch::ModuleRef, const CXXMemberCallExpr *>,
                      2>;

constexpr int MaxLoopRepeat = 3;

class Flow {
public:
  explicit Flow(RegistrationLookup RegistrationsOf)
      : RegistrationsOf(RegistrationsOf) {}

  void walk(const Stmt *S);
  std::vector<StaleReplacement> Results;

private:
  struct Optimizer {
    ParamList Models;
    const Expr *Construction = nullptr;
  };

  void collectParams(const Stmt *S, ParamList &Out) const;
  void defineVar(const ValueDecl *V, const Expr *Init);
  void onAssignment(const Expr *E, const Expr *LHS, const Expr *RHS);
  void onMemberCall(const CXXMemberCallExpr *Call);
  void onForward(const Expr *Receiver);
  void createOptimizer(const ValueDecl *V, const Expr *Construction);
  void replaced(StaleReplacement::KindTy Kind, libtorch::ModuleRef Ref,
                const Expr *Replacing, const ValueDecl *Clone = nullptr,
                const Expr *CloneUse = nullptr);
  void stepped(const ValueDecl *Opt, const CallExpr *Step);
  void onCallWithArguments(const CallExpr *Call);
  bool isRegisteredMember(const FieldDecl *FD);

  RegistrationLookup RegistrationsOf;
  llvm::DenseMap<const ValueDecl *, Optimizer> Opts;
  llvm::DenseMap<const ValueDecl *, ParamList> ParamSources;
  llvm::DenseMap<const ValueDecl *,
                 std::pair<libtorch::ModuleRef, const Expr *>>
      Clones;
  std::vector<StaleReplacement> Pending;
  llvm::DenseSet<const Expr *> Reported;
  int LoopDepth = 0;
};

/// The `M->clone()` call in \p E, if any.
const CXXMemberCallExpr *findClone(const Stmt *S) {
  if (!S)
    return nullptr;
  if (const auto *Call = dyn_cast<CXXMemberCallExpr>(S)) {
    const CXXMethodDecl *M = Call->getMethodDecl();
    if (M && M->getDeclName().isIdentifier() && M->getName() == "clone" &&
        libtorch::isModuleClass(M->getParent()))
      return Call;
  }
  for (const Stmt *Child : S->children())
    if (const CXXMemberCallExpr *Found = findClone(Child))
      return Found;
  return nullptr;
}

void Flow::collectParams(const Stmt *S, ParamList &Out) const {
  if (!S)
    return;
  if (const auto *Call = dyn_cast<CXXMemberCallExpr>(S))
    if (libtorch::ModuleRef Ref = libtorch::parametersReceiver(Call)) {
      Out.push_back({Ref, Call});
      return;
    }
  if (const auto *DRE = dyn_cast<DeclRefExpr>(S)) {
    auto It = ParamSources.find(DRE->getDecl());
    if (It != ParamSources.end())
      Out.append(It->second.begin(), It->second.end());
    return;
  }
  for (const Stmt *Child : S->children())
    collectParams(Child, Out);
}

void Flow::createOptimizer(const ValueDecl *V, const Expr *Construction) {
  // A rebuilt optimizer no longer holds the replaced tensors.
  llvm::erase_if(Pending,
                 [V](const StaleReplacement &R) { return R.Optimizer == V; });
  Optimizer O;
  O.Construction = Construction;
  collectParams(Construction, O.Models);
  if (O.Models.empty())
    Opts.erase(V);
  else
    Opts[V] = std::move(O);
}

void Flow::defineVar(const ValueDecl *V, const Expr *Init) {
  if (!V || !Init)
    return;
  if (const Expr *C = libtorch::optimizerConstruction(Init)) {
    createOptimizer(V, C);
    return;
  }
  if (const CXXMemberCallExpr *Clone = findClone(Init)) {
    if (libtorch::ModuleRef From =
            libtorch::moduleRoot(Clone->getImplicitObjectArgument()))
      Clones[V] = {From, Clone};
    return;
  }
  Clones.erase(V);
  ParamList Params;
  collectParams(Init, Params);
  if (!Params.empty())
    ParamSources[V] = Params;
}

bool Flow::isRegisteredMember(const FieldDecl *FD) {
  const libtorch::ModuleRegistrations &Regs =
      RegistrationsOf(cast<CXXRecordDecl>(FD->getParent()));
  const libtorch::Registration *Reg = Regs.find(FD);
  if (!Reg)
    return !Regs.Complete;
  return Reg->Method != "register_buffer";
}

void Flow::onAssignment(const Expr *E, const Expr *LHS, const Expr *RHS) {
  const Expr *Target = ast::stripImplicit(LHS);
  libtorch::ModuleRef Ref = libtorch::moduleRoot(Target);
  if (!Ref)
    return;
  bool Whole = isa<DeclRefExpr>(Target) || ast::thisField(Target);
  if (Whole) {
    if (const Expr *C = libtorch::optimizerConstruction(RHS))
      return createOptimizer(Ref.Root, C);
    defineVar(Ref.Root, RHS);
    replaced(StaleReplacement::Reassigned, Ref, E);
    return;
  }
  const auto *ME = dyn_cast<MemberExpr>(Target);
  const auto *FD = ME ? dyn_cast<FieldDecl>(ME->getMemberDecl()) : nullptr;
  if (!FD ||
      libtorch::moduleMemberKind(FD->getType()) == libtorch::MemberKind::None ||
      !libtorch::isModuleClass(dyn_cast<CXXRecordDecl>(FD->getParent())) ||
      libtorch::asRegisterCall(RHS))
    return;
  if (isRegisteredMember(FD))
    replaced(StaleReplacement::MemberReassigned, Ref, E);
}

void Flow::onForward(const Expr *Receiver) {
  libtorch::ModuleRef Ref = libtorch::moduleRoot(Receiver);
  if (!Ref)
    return;
  auto It = Clones.find(Ref.Root);
  if (It != Clones.end()) {
    replaced(StaleReplacement::CloneTrained, It->second.first,
             It->second.second, Ref.Root, Receiver);
    return;
  }
  // The original is trained too: the clone is likely an evaluation copy.
  llvm::erase_if(Pending, [&](const StaleReplacement &R) {
    return R.Kind == StaleReplacement::CloneTrained && R.Model.Root == Ref.Root;
  });
}

void Flow::onMemberCall(const CXXMemberCallExpr *Call) {
  const CXXMethodDecl *M = Call->getMethodDecl();
  if (!M || !M->getDeclName().isIdentifier())
    return;
  StringRef Name = M->getName();
  const Expr *Obj = Call->getImplicitObjectArgument();
  if (libtorch::isOptimizerClass(M->getParent())) {
    libtorch::ModuleRef Opt = libtorch::moduleRoot(Obj);
    if (!Opt)
      return;
    if (Name == "step")
      stepped(Opt.Root, Call);
    else if (Name == "add_param_group") {
      auto It = Opts.find(Opt.Root);
      if (It != Opts.end())
        collectParams(Call, It->second.Models);
    }
    return;
  }
  if (libtorch::isModuleClass(M->getParent())) {
    if (Name == "replace_module")
      replaced(StaleReplacement::ReplaceModule, libtorch::moduleRoot(Obj),
               Call);
    else if (Name == "forward")
      onForward(Obj);
    return;
  }
  // params.push_back(net->parameters()), ptr.reset(new SGD(...)).
  libtorch::ModuleRef Var = libtorch::moduleRoot(Obj);
  if (!Var || Var.Member)
    return;
  if (Name == "reset" && Call->getNumArgs() == 1) {
    if (const Expr *C = libtorch::optimizerConstruction(Call->getArg(0)))
      createOptimizer(Var.Root, C);
    return;
  }
  if (Name == "push_back" || Name == "emplace_back" || Name == "insert" ||
      Name == "emplace" || Name == "assign") {
    ParamList Params;
    for (const Expr *Arg : Call->arguments())
      collectParams(Arg, Params);
    if (!Params.empty())
      ParamSources[Var.Root].append(Params.begin(), Params.end());
  }
}

void Flow::replaced(StaleReplacement::KindTy Kind, libtorch::ModuleRef Ref,
                    const Expr *Replacing, const ValueDecl *Clone,
                    const Expr *CloneUse) {
  if (!Ref)
    return;
  for (const auto &[OptVar, O] : Opts)
    for (const auto &[Model, Params] : O.Models) {
      if (Model.Root != Ref.Root)
        continue;
      // `net->fc = ...` leaves an optimizer built on `net->head` alone.
      if (Kind == StaleReplacement::MemberReassigned && Model.Member &&
          Model.Member != Ref.Member)
        continue;
      StaleReplacement R;
      R.Kind = Kind;
      R.Replacing = Replacing;
      R.Model = Ref;
      R.Optimizer = OptVar;
      R.Construction = O.Construction;
      R.Params = Params;
      R.Clone = Clone;
      R.CloneUse = CloneUse;
      Pending.push_back(R);
      break;
    }
}

/// A function outside LibTorch given an optimizer by non-const reference
/// or pointer may step it (`train_step(model, opt)`); one given a model may
/// train it.
void Flow::onCallWithArguments(const CallExpr *Call) {
  const FunctionDecl *FD = Call->getDirectCallee();
  if (!FD || libtorch::isLibTorchDecl(FD) ||
      libtorch::outermostNamespace(FD) == "std")
    return;
  for (unsigned I = 0; I < Call->getNumArgs() && I < FD->getNumParams(); ++I) {
    QualType T = FD->getParamDecl(I)->getType();
    QualType Pointee = T->isReferenceType() || T->isPointerType()
                           ? T->getPointeeType()
                           : QualType();
    const Expr *Arg = ast::stripImplicit(Call->getArg(I));
    if (const auto *UO = dyn_cast<UnaryOperator>(Arg);
        UO && UO->getOpcode() == UO_AddrOf)
      Arg = UO->getSubExpr();
    libtorch::ModuleRef Ref = libtorch::moduleRoot(Arg);
    if (!Ref || Ref.Member)
      continue;
    if (Opts.count(Ref.Root)) {
      if (!Pointee.isNull() && !Pointee.isConstQualified())
        stepped(Ref.Root, Call);
    } else if (libtorch::moduleMemberKind(Arg->getType()) !=
                   libtorch::MemberKind::None &&
               libtorch::moduleMemberKind(Arg->getType()) !=
                   libtorch::MemberKind::Tensor) {
      onForward(Arg);
    }
  }
}

void Flow::stepped(const ValueDecl *Opt, const CallExpr *Step) {
  for (StaleReplacement &R : Pending)
    if (R.Optimizer == Opt && Reported.insert(R.Replacing).second) {
      R.Step = Step;
      Results.push_back(R);
    }
  llvm::erase_if(
      Pending, [Opt](const StaleReplacement &R) { return R.Optimizer == Opt; });
}

void Flow::walk(const Stmt *S) {
  if (!S)
    return;
  if (const auto *Lambda = dyn_cast<LambdaExpr>(S))
    return walk(Lambda->getBody());
  if (const auto *DS = dyn_cast<DeclStmt>(S)) {
    for (const Decl *D : DS->decls())
      if (const auto *VD = dyn_cast<VarDecl>(D)) {
        walk(VD->getInit());
        defineVar(VD, VD->getInit());
      }
    return;
  }
  for (const Stmt *Child : S->children())
    walk(Child);
  // A loop's next iteration runs its body again after the replacement.
  const Stmt *Body = ast::loopBody(S);
  if (Body && LoopDepth < MaxLoopRepeat) {
    ++LoopDepth;
    walk(Body);
    --LoopDepth;
    return;
  }
  const auto *E = dyn_cast<Expr>(S);
  if (!E)
    return;
  if (auto [LHS, RHS] = ast::asAssignment(E); LHS)
    return onAssignment(E, LHS, RHS);
  if (const auto *Call = dyn_cast<CXXMemberCallExpr>(E)) {
    const CXXMethodDecl *M = Call->getMethodDecl();
    if (M && !libtorch::isOptimizerClass(M->getParent()) &&
        !libtorch::isModuleClass(M->getParent()))
      onCallWithArguments(Call);
    return onMemberCall(Call);
  }
  if (const auto *Call = dyn_cast<CallExpr>(E);
      Call && !isa<CXXOperatorCallExpr>(Call))
    onCallWithArguments(Call);
  // net(x) through a ModuleHolder's operator().
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E))
    if (Op->getOperator() == OO_Call && Op->getNumArgs() >= 1 &&
        libtorch::moduleMemberKind(Op->getArg(0)->getType()) ==
            libtorch::MemberKind::Holder)
      onForward(Op->getArg(0));
}

} // namespace

std::vector<StaleReplacement>
findStaleReplacements(const Stmt *Body, RegistrationLookup RegistrationsOf) {
  Flow F(RegistrationsOf);
  F.walk(Body);
  return std::move(F.Results);
}

} // namespace clang::tidy::torch::program
