//===- DeviceEval.cpp - the device of each expression, for DeviceFlow ----===//
// The rules are DeviceFlow.h's "Sources"; LibTorch's names are in
// libtorch/DeviceRules.cpp.
#include "ast/ASTHelpers.h"
#include "ast/ConstantStrings.h"
#include "device/CallerDevices.h"
#include "device/DeviceFlowBuilder.h"
#include "device/DeviceLiterals.h"
#include "libtorch/TorchTypes.h"

namespace clang::tidy::torch::device {

// ===--------------------------------------------------------------------===//
// Values
// ===--------------------------------------------------------------------===//

DeviceFact DeviceFlowBuilder::get(const Expr *E) {
  if (!E)
    return DeviceFact::unknown();
  auto It = Memo.find(E);
  if (It != Memo.end() && (It->second.Visit == Visit || Elements.contains(E)))
    return It->second.Fact;
  DeviceFact F = compute(E);
  if (carrier(E) != libtorch::Carrier::None)
    Memo[E] = {F, Visit};
  return F;
}

DeviceFact DeviceFlowBuilder::compute(const Expr *E) {
  libtorch::Carrier C = carrier(E);
  if (C == libtorch::Carrier::None || Depth > 48)
    return DeviceFact::unknown();
  ++Depth;
  DeviceFact F = computeNode(E, C);
  --Depth;
  return F;
}

DeviceFact DeviceFlowBuilder::initialFact(const ValueDecl *D) {
  if (const auto *V = dyn_cast<VarDecl>(D))
    if (DeviceFact F = capturedFact(V); F.Device.isKnown())
      return F;
  libtorch::Carrier C = cachedCarrier(D->getType());
  auto Symbolic = [&] {
    return DeviceFact{DeviceValue::onDevice(D),
                      {},
                      Origin(Origin::DeviceValueDecl, D->getLocation())};
  };
  if (const auto *P = dyn_cast<ParmVarDecl>(D)) {
    if (libtorch::holdsDevice(C))
      return Symbolic();
    if (C == libtorch::Carrier::Tensor && P->getDeclContext() == Fn &&
        P->getFunctionScopeIndex() < 32 &&
        (CPUParameters >> P->getFunctionScopeIndex() & 1u))
      return {DeviceValue::cpu(), {}, Origin()};
    if (C == libtorch::Carrier::Tensor && Forward && P->getDeclContext() == Fn)
      return {DeviceValue::moduleDevice(),
              {},
              Origin(Origin::ForwardArgument, P->getLocation())};
    if (C == libtorch::Carrier::Tensor || C == libtorch::Carrier::Module)
      return {DeviceValue::inherited(P), {}, Origin()};
    return DeviceFact::unknown();
  }
  if (const auto *F = dyn_cast<FieldDecl>(D)) {
    if (libtorch::holdsDevice(C))
      return Symbolic();
    if (isFollowedField(F)) // what the program stores in it
      return {DeviceValue::inherited(F), {}, Origin()};
    if (!Forward)
      return DeviceFact::unknown();
    if (C == libtorch::Carrier::Module)
      return {DeviceValue::moduleDevice(),
              {},
              Origin(Origin::ModuleTensor, F->getLocation())};
    if (C == libtorch::Carrier::Tensor) {
      const auto *RD = dyn_cast<CXXRecordDecl>(F->getParent());
      if (!RD)
        return DeviceFact::unknown();
      if (cachedRegistrations(RD, Ctx.getSourceManager()).find(F))
        return {DeviceValue::moduleDevice(),
                {},
                Origin(Origin::ModuleTensor, F->getLocation())};
    }
    return DeviceFact::unknown();
  }
  if (const auto *V = dyn_cast<VarDecl>(D)) {
    if (!libtorch::holdsDevice(C) && C != libtorch::Carrier::Options)
      return DeviceFact::unknown();
    if (V->getType().isConstQualified() && V->getInit() && Depth < 8) {
      DeviceFact F = compute(V->getInit());
      if (F.Device.isKnown())
        return F;
    }
    if (C != libtorch::Carrier::Options)
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
  if (isLocal(D)) {
    if (DeviceFact F = capturedFact(cast<VarDecl>(D)); F.Device.isKnown())
      return F;
    return DeviceFact::unknown();
  }
  return initialFact(D);
}

/// The lambda expression in \p S that creates \p Closure.
static const LambdaExpr *lambdaCreating(const Stmt *S,
                                        const CXXRecordDecl *Closure) {
  if (!S)
    return nullptr;
  if (const auto *L = dyn_cast<LambdaExpr>(S);
      L && L->getLambdaClass() == Closure)
    return L;
  for (const Stmt *C : S->children())
    if (const LambdaExpr *L = lambdaCreating(C, Closure))
      return L;
  return nullptr;
}

/// Whether \p S (lambda bodies in it too) assigns \p V, takes its address
/// or passes it by non-const reference.
static bool changesIn(const Stmt *S, const VarDecl *V) {
  if (!S)
    return false;
  if (auto [L, R] = ast::asAssignment(S); L && ast::namesDecl(L, V))
    return true;
  if (const auto *U = dyn_cast<UnaryOperator>(S);
      U && U->getOpcode() == UO_AddrOf && ast::namesDecl(U->getSubExpr(), V))
    return true;
  if (const auto *Call = dyn_cast<CallExpr>(S))
    if (const FunctionDecl *FD = Call->getDirectCallee()) {
      // A member operator's object is its first argument, not a parameter.
      unsigned Shift =
          isa<CXXOperatorCallExpr>(Call) && isa<CXXMethodDecl>(FD) ? 1 : 0;
      for (unsigned I = 0, N = FD->getNumParams();
           I < N && I + Shift < Call->getNumArgs(); ++I) {
        QualType T = FD->getParamDecl(I)->getType();
        if (T->isLValueReferenceType() &&
            !T.getNonReferenceType().isConstQualified() &&
            ast::namesDecl(Call->getArg(I + Shift), V))
          return true;
      }
    }
  if (const auto *L = dyn_cast<LambdaExpr>(S))
    if (changesIn(L->getBody(), V))
      return true;
  return llvm::any_of(S->children(),
                      [V](const Stmt *C) { return changesIn(C, V); });
}

/// Whether \p S moves the module \p V (`v->to(...)`) after \p Loc.
static bool movesModuleAfter(const Stmt *S, const VarDecl *V,
                             SourceLocation Loc, const SourceManager &SM) {
  if (!S)
    return false;
  if (libtorch::movedModule(S).Root == V &&
      SM.isBeforeInTranslationUnit(Loc, S->getBeginLoc()))
    return true;
  return llvm::any_of(S->children(), [&](const Stmt *C) {
    return movesModuleAfter(C, V, Loc, SM);
  });
}

DeviceFact DeviceFlowBuilder::capturedFact(const VarDecl *V) {
  const auto *Call = dyn_cast<CXXMethodDecl>(Fn);
  if (!Call || !Call->getParent()->isLambda())
    return DeviceFact::unknown();
  const CXXRecordDecl *Closure = Call->getParent();
  const auto *Outer = dyn_cast<FunctionDecl>(Closure->getDeclContext());
  if (!Outer || V->getDeclContext() != Outer || !Outer->getBody())
    return DeviceFact::unknown();
  auto [It, New] = Captured.try_emplace(V, DeviceFact::unknown());
  if (!New)
    return It->second;
  const LambdaExpr *L = lambdaCreating(Outer->getBody(), Closure);
  if (!L || changesIn(Outer->getBody(), V) ||
      movesModuleAfter(Outer->getBody(), V, L->getBeginLoc(),
                       Ctx.getSourceManager()))
    return It->second;
  for (auto [C, Init] : llvm::zip(L->captures(), L->capture_inits()))
    if (C.capturesVariable() && C.getCapturedVar() == V && Init) {
      DeviceFact F = DeviceFlow::get(Outer, Ctx).factOf(Init);
      // `It` may have moved while the outer function was analysed.
      Captured[V] = F;
      return F;
    }
  return It->second;
}

DeviceValue DeviceFlowBuilder::deviceArgument(const Expr *E) {
  return get(E).Device;
}

/// A device the callers decide: a parameter's, or one inherited whole
/// (not the CPU on some paths).
static bool fromCallers(const DeviceValue &V) {
  return (V.kind() == DeviceValue::Inherited && !V.orCPU()) ||
         (V.kind() == DeviceValue::OnDevice &&
          isa_and_nonnull<ParmVarDecl>(V.decl()));
}

DeviceFact DeviceFlowBuilder::common(llvm::ArrayRef<const Expr *> Operands,
                                     bool Broadcast) {
  // ATen's rule (TensorIteratorBase::compute_types): the first operand not
  // on the CPU decides the device; 0-dim CPU operands follow it. Other CPU
  // operands make the op throw when that device is a GPU: where it does
  // not, the result is on that device too (`ys = torch::cat({ys, cpu})` in
  // a loop keeps ys on `device`, and the next iteration's mix is seen).
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
    if (AnyDevice && F.Device.isCPU())
      continue;
    if (First)
      R = F;
    else if (!(fromCallers(R.Device) && fromCallers(F.Device)))
      DeviceFact::joinInto(R, F);
    // else: two devices the callers decide (`loss_fn(model(x), y)`, the
    // model's and `y.to(device)`'s) are one device, or the op throws: the
    // first operand's stands for both.
    First = false;
  }
  if (First) // all 0-dim CPU, or none known
    R = Facts.empty() ? DeviceFact::unknown() : Facts.front();
  R.Rank = Broadcast ? Rank : TensorRank::unknown();
  return R;
}

/// The pointer \p E dereferences: `p` in `*p`, `sp` in `*sp` of a smart
/// pointer; null otherwise.
static const Expr *dereferencedPointer(const Expr *E) {
  if (const auto *UO = dyn_cast<UnaryOperator>(E))
    return UO->getOpcode() == UO_Deref ? UO->getSubExpr() : nullptr;
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E))
    return Op->getOperator() == OO_Star && Op->getNumArgs() == 1 ? Op->getArg(0)
                                                                 : nullptr;
  return nullptr;
}

DeviceFact DeviceFlowBuilder::computeNode(const Expr *E, libtorch::Carrier C) {
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
    if (carrier(Sub) != libtorch::Carrier::None)
      return get(Sub);
    return DeviceFact::unknown();
  }
  if (C == libtorch::Carrier::DeviceType)
    if (std::optional<DeviceValue> K = constantDeviceType(E, Ctx))
      return {*K, {}, Origin()};

  // `*dev`, `*m_device`: the device a pointer or smart pointer variable or
  // member holds, taken as held by that declaration.
  if (const Expr *Pointer =
          C == libtorch::Carrier::Device ? dereferencedPointer(E) : nullptr)
    if (const ValueDecl *Holder = assignedDecl(Pointer))
      return {DeviceValue::onDevice(Holder),
              {},
              Origin(Origin::DeviceValueDecl, Holder->getLocation())};

  if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
    if (isa<VarDecl>(DRE->getDecl()))
      return varFact(DRE->getDecl());
    return DeviceFact::unknown();
  }
  if (const auto *ME = dyn_cast<MemberExpr>(E)) {
    const auto *FD = dyn_cast<FieldDecl>(ME->getMemberDecl());
    if (!FD)
      return DeviceFact::unknown();
    const Expr *Base = ast::stripImplicit(ME->getBase());
    if (isa<CXXThisExpr>(Base))
      return varFact(FD);
    if (aggregateModuleField(ME)) {
      auto It = Cur.find(FD);
      return It != Cur.end() && !Scan.Volatile.contains(FD)
                 ? It->second
                 : DeviceFact::unknown();
    }
    // `out.first` of a std::pair a module or a LibTorch op returned.
    if (C == libtorch::Carrier::Tensor && FD->getIdentifier() &&
        (FD->getName() == "first" || FD->getName() == "second") &&
        FD->getParent()->getIdentifier() &&
        FD->getParent()->getName() == "pair" &&
        libtorch::outermostNamespace(FD->getParent()) == "std")
      return tupleElementFact(Base);
    libtorch::Carrier BC = carrier(Base);
    if (BC == libtorch::Carrier::Example)
      return get(Base);
    // A tensor in a struct of a data-loader batch (`batch.target.lengths`):
    // the batch's device.
    if (C == libtorch::Carrier::Tensor)
      for (const Expr *Outer = Base;
           const auto *OME = dyn_cast<MemberExpr>(Outer);) {
        Outer = ast::stripImplicit(OME->getBase());
        if (carrier(Outer) == libtorch::Carrier::Example) {
          DeviceFact F = get(Outer);
          F.Rank = TensorRank::unknown(); // annotations: lengths, boxes, ...
          return F;
        }
      }
    // A tensor member of the user's struct: what the program stores in it.
    if (BC == libtorch::Carrier::None && isFollowedField(FD))
      return {DeviceValue::inherited(FD), {}, Origin()};
    if (BC == libtorch::Carrier::Module) {
      DeviceFact M = get(Base);
      if (C == libtorch::Carrier::Tensor && M.Device.isKnown())
        return {M.Device, {}, Origin(Origin::ModuleTensor, E)};
      if (C == libtorch::Carrier::Module)
        return M;
    }
    return DeviceFact::unknown();
  }
  if (isa<CXXThisExpr>(E))
    return Forward && C == libtorch::Carrier::Module
               ? DeviceFact{DeviceValue::moduleDevice(), {}, Origin()}
               : DeviceFact::unknown();
  if (const auto *CO = dyn_cast<AbstractConditionalOperator>(E)) {
    // `mode == "cuda" ? kCUDA : kCPU` with `std::string mode = "cpu";`.
    if (std::optional<bool> Taken =
            ast::constantStringComparison(CO->getCond()))
      return get(*Taken ? CO->getTrueExpr() : CO->getFalseExpr());
    DeviceFact T = get(CO->getTrueExpr()), F = get(CO->getFalseExpr());
    bool Negated = false;
    if (libtorch::isCudaAvailabilityTest(CO->getCond(), Negated)) {
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

DeviceFact DeviceFlowBuilder::constructFact(const CXXConstructExpr *CE,
                                            libtorch::Carrier C) {
  const unsigned N = CE->getNumArgs();
  const Expr *Arg0 = N ? CE->getArg(0) : nullptr;
  libtorch::Carrier A0 = carrier(Arg0);
  // Copies, moves and conversions between carriers of one kind.
  if (Arg0 && A0 == C)
    return get(Arg0);
  switch (C) {
  case libtorch::Carrier::Device: {
    if (A0 == libtorch::Carrier::DeviceType) {
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
    if (std::optional<StringRef> Name = ast::constantString(Arg0))
      return {parseDeviceString(*Name), {}, Origin()};
    return DeviceFact::unknown();
  }
  case libtorch::Carrier::Options:
    if (N == 0)
      return {DeviceValue::unspecified(), {}, Origin()};
    if (libtorch::holdsDevice(A0))
      return get(Arg0);
    // The constructor template that builds a Device from its arguments:
    // `TensorOptions(device_name)` with a std::string.
    if (const CXXConstructorDecl *Ctor = CE->getConstructor();
        Ctor && Ctor->isTemplateInstantiation()) {
      if (std::optional<StringRef> Name = ast::constantString(Arg0);
          Name && N == 1)
        return {parseDeviceString(*Name), {}, Origin()};
      return DeviceFact::unknown();
    }
    if (N == 1) // dtype, layout, memory format
      return {DeviceValue::unspecified(), {}, Origin()};
    return DeviceFact::unknown();
  case libtorch::Carrier::Module:
    if (Arg0 && isa<CXXNullPtrLiteralExpr>(ast::stripImplicit(Arg0)))
      return {};
    if (A0 == libtorch::Carrier::Module)
      return get(Arg0);
    return createdModuleFact(CE, llvm::ArrayRef(CE->getArgs(), N));
  case libtorch::Carrier::Tensor:
    if (A0 == libtorch::Carrier::Tensor)
      return get(Arg0);
    return DeviceFact::unknown();
  case libtorch::Carrier::Example: {
    // `{image, label}`: where its tensors are, when they agree.
    llvm::SmallVector<const Expr *, 2> Tensors;
    for (const Expr *A : CE->arguments())
      if (carrier(A) == libtorch::Carrier::Tensor)
        Tensors.push_back(A);
    return Tensors.empty() ? DeviceFact::unknown()
                           : common(Tensors, /*Broadcast=*/false);
  }
  default: // the rest: what they copy is not tracked
    return DeviceFact::unknown();
  }
}

DeviceFact DeviceFlowBuilder::operatorFact(const CXXOperatorCallExpr *Op,
                                           libtorch::Carrier C) {
  OverloadedOperatorKind K = Op->getOperator();
  const unsigned N = Op->getNumArgs();
  if (N == 0)
    return DeviceFact::unknown();
  const Expr *Arg0 = Op->getArg(0);
  libtorch::Carrier A0 = carrier(Arg0);
  // `net->` on a std::shared_ptr: libstdc++ declares operator-> in a base
  // class (__shared_ptr_access), so the object is cast to it first.
  if ((K == OO_Arrow || K == OO_Star) && N == 1) {
    const Expr *Object = Arg0->IgnoreImpCasts();
    if (carrier(Object) == libtorch::Carrier::Module)
      return get(Object);
  }
  if (K == OO_Equal && N == 2)
    return get(Op->getArg(1));
  if (K == OO_Call && A0 == libtorch::Carrier::Module) {
    llvm::SmallVector<const Expr *, 4> Args(llvm::drop_begin(Op->arguments()));
    return moduleCallFact(Op, Arg0, Args);
  }
  if (K == OO_Subscript && N == 2) {
    if (A0 == libtorch::Carrier::ExampleVector &&
        C == libtorch::Carrier::Example) {
      DeviceFact F = get(Arg0);
      F.Rank = TensorRank::unknown();
      return F;
    }
    if (A0 == libtorch::Carrier::None && C == libtorch::Carrier::Tensor)
      return inheritedElement(Arg0);
    if (A0 != libtorch::Carrier::Tensor || C != libtorch::Carrier::Tensor)
      return DeviceFact::unknown();
    DeviceFact F = get(Arg0);
    F.Rank = Op->getArg(1)->getType()->isIntegerType() ? F.Rank.dropOne()
                                                       : TensorRank::unknown();
    return F;
  }
  if (C != libtorch::Carrier::Tensor)
    return DeviceFact::unknown();
  // Compound assignment: in place, the left operand's device.
  if (ast::isArithmeticCompoundAssignment(K))
    return get(Arg0);
  llvm::SmallVector<const Expr *, 2> Tensors;
  for (const Expr *A : Op->arguments())
    if (carrier(A) == libtorch::Carrier::Tensor)
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
    libtorch::Carrier AC = carrier(A);
    if (libtorch::holdsDevice(AC) || AC == libtorch::Carrier::Options ||
        AC == libtorch::Carrier::Tensor)
      To = get(A).Device;
  }
  if (To.isBottom() || To.kind() == DeviceValue::Unspecified)
    return From;
  return {To, From.Rank, Origin(Origin::Moved, Call)};
}

/// The TorchScript `module.forward(...)` call whose result \p E is, through
/// the IValue's tuple (`toTuple()`, `->elements()`, `[i]`) and a local
/// initialised with it; else null.
static const CXXMemberCallExpr *scriptForwardUnder(const Expr *E) {
  for (int Depth = 0; E && Depth < 8; ++Depth) {
    E = ast::stripCopiesAndMoves(E);
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E)) {
      if (Op->getOperator() != OO_Subscript && Op->getOperator() != OO_Arrow)
        return nullptr;
      E = Op->getArg(0);
      continue;
    }
    if (const auto *MC = dyn_cast<CXXMemberCallExpr>(E)) {
      const CXXMethodDecl *MD = MC->getMethodDecl();
      if (!MD || !MD->getIdentifier())
        return nullptr;
      StringRef N = MD->getName();
      if (N == "forward")
        return libtorch::isOrDerivesFrom(MD->getParent(), "torch::jit::Module")
                   ? MC
                   : nullptr;
      if (N != "toTuple" && N != "elements" && N != "get")
        return nullptr;
      E = MC->getImplicitObjectArgument();
      continue;
    }
    const auto *Ref = dyn_cast<DeclRefExpr>(E);
    const auto *V = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
    if (!V || !V->isLocalVarDecl() || !V->getInit())
      return nullptr;
    E = V->getInit();
  }
  return nullptr;
}

DeviceFact DeviceFlowBuilder::memberCallFact(const CXXMemberCallExpr *Call,
                                             libtorch::Carrier C) {
  const CXXMethodDecl *MD = Call->getMethodDecl();
  if (!MD)
    return DeviceFact::unknown();
  const Expr *Recv = Call->getImplicitObjectArgument();
  libtorch::Carrier RC = carrier(Recv);
  StringRef Name = MD->getIdentifier() ? MD->getName() : StringRef();
  const CXXRecordDecl *Class = MD->getParent();

  // `module.forward({x}).toTensor()` of a TorchScript module, or an element
  // of its tuple (`val.toTuple()->elements()[0].toTensor()` with `auto val =
  // module.forward(x);`): its output is where its inputs are (a module on
  // another device would throw).
  if (Name == "toTensor" && C == libtorch::Carrier::Tensor)
    if (const CXXMemberCallExpr *Forward = scriptForwardUnder(Recv)) {
      llvm::SmallVector<const Expr *, 4> Inputs;
      for (const Expr *A : Forward->arguments())
        libtorch::inputTensors(A, Inputs);
      return Inputs.empty() ? DeviceFact::unknown()
                            : common(Inputs, /*Broadcast=*/false);
    }

  if (C == libtorch::Carrier::Tensor && RC == libtorch::Carrier::None &&
      (Name == "at" || Name == "back" || Name == "front"))
    return inheritedElement(Recv);
  if (RC == libtorch::Carrier::Tensor && libtorch::isTensorRecord(Class)) {
    if (Name == "to" || Name == "cuda" || Name == "cpu" || Name == "type_as")
      return C == libtorch::Carrier::Tensor ? conversionFact(Call)
                                            : DeviceFact::unknown();
    DeviceFact R = get(Recv);
    if (C == libtorch::Carrier::Options || C == libtorch::Carrier::Device)
      return (Name == "options" || Name == "device")
                 ? DeviceFact{R.Device, {}, R.From}
                 : DeviceFact::unknown();
    if (C != libtorch::Carrier::Tensor)
      return DeviceFact::unknown();
    bool NoWrittenArgs = llvm::all_of(Call->arguments(), [](const Expr *A) {
      return isa<CXXDefaultArgExpr>(A);
    });
    // A shape given as sizes: `new_zeros({n, 4})`, `x.view({1, 1, -1})`.
    if (Name.starts_with("new_") ||
        ((Name == "view" || Name == "reshape" || Name == "expand") &&
         Call->getNumArgs() == 1)) {
      TensorRank Rank =
          Call->getNumArgs() > 0
              ? sizesRank(Call->getArg(0),
                          [&](const Expr *T) { return rankOf(T); })
              : TensorRank::unknown();
      return {R.Device, Rank, R.From};
    }
    if (NoWrittenArgs && libtorch::isFullReduction(Name))
      return {R.Device, TensorRank::exactly(0), R.From};
    if (Name == "select" && Call->getNumArgs() == 2)
      return {R.Device, R.Rank.dropOne(), R.From};
    if (Name == "unsqueeze" || Name == "flatten")
      return {R.Device, TensorRank::nonScalar(), R.From};
    // An in-place op returns its receiver (`ones({1, 1}).fill_(word)`).
    if (libtorch::isInPlaceTensorMethod(MD))
      return R;
    llvm::SmallVector<const Expr *, 4> Tensors{Recv};
    if (!libtorch::isDeviceMixAllowed(Name))
      for (const Expr *A : Call->arguments())
        if (carrier(A) == libtorch::Carrier::Tensor)
          Tensors.push_back(A);
    bool Broadcast = libtorch::isBroadcastingOp(Name);
    DeviceFact F = Tensors.size() == 1 ? R : common(Tensors, Broadcast);
    if (libtorch::keepsRank(Name) && Tensors.size() == 1)
      F.Rank = R.Rank;
    else if (!Broadcast)
      F.Rank = TensorRank::unknown();
    return F;
  }
  if (RC == libtorch::Carrier::Options && C == libtorch::Carrier::Options) {
    if (Name == "device" && Call->getNumArgs() == 1)
      return get(Call->getArg(0));
    return get(Recv);
  }
  if (RC == libtorch::Carrier::Options && C == libtorch::Carrier::Device &&
      Name == "device") {
    DeviceFact F = get(Recv);
    if (F.Device.kind() == DeviceValue::Unspecified)
      F.Device = DeviceValue::cpu();
    return F;
  }
  if (RC == libtorch::Carrier::Module ||
      libtorch::isForwardableModuleClass(Class)) {
    if ((Name == "forward" || Name == "any_forward") &&
        libtorch::isForwardableModuleClass(Class)) {
      llvm::SmallVector<const Expr *, 4> Args(Call->arguments());
      return moduleCallFact(Call, Recv, Args);
    }
    if ((Name == "ptr" || Name == "get") && C == libtorch::Carrier::Module)
      return get(Recv);
  }
  if ((Name == "get" || Name == "ptr") && C == libtorch::Carrier::Module &&
      RC == libtorch::Carrier::Module)
    return get(Recv);
  if ((C == libtorch::Carrier::Tensor || C == libtorch::Carrier::Example) &&
      isUserFunction(MD))
    return {DeviceValue::inherited(MD->getCanonicalDecl()), {}, Origin()};
  return DeviceFact::unknown();
}

DeviceFact DeviceFlowBuilder::inheritedElement(const Expr *Sequence) {
  if (const Decl *Root = sequenceRoot(Sequence))
    return {DeviceValue::inherited(Root), {}, Origin()};
  return DeviceFact::unknown();
}

DeviceFact
DeviceFlowBuilder::moduleCallFact(const Expr *Call, const Expr *Module,
                                  llvm::ArrayRef<const Expr *> Args) {
  if (carrier(Call) != libtorch::Carrier::Tensor)
    return DeviceFact::unknown();
  llvm::SmallVector<const Expr *, 4> Tensors;
  for (const Expr *A : Args)
    if (carrier(A) == libtorch::Carrier::Tensor)
      Tensors.push_back(A);
  // A loss module, or a LibTorch layer without weights (Softmax, ReLU,
  // MaxPool2d), computes on its inputs' device, wherever the module object
  // lives. Any other module's output is on the module's device; when that
  // is unknown, so is the output (its forward() may move the input).
  const CXXRecordDecl *Class = libtorch::moduleClassOf(Module->getType());
  if (libtorch::isLossModule(Class) || libtorch::isWeightlessLayer(Class))
    return Tensors.empty() ? DeviceFact::unknown()
                           : common(Tensors, /*Broadcast=*/false);
  return onModuleDevice(Call, Module);
}

DeviceFact DeviceFlowBuilder::onModuleDevice(const Expr *Output,
                                             const Expr *Module) {
  DeviceFact M = get(Module);
  // Inherited: moved to a parameter's device on one path, to the CPU on
  // another.
  if ((M.Device.isKnown() || M.Device.kind() == DeviceValue::Inherited) &&
      M.Device.kind() != DeviceValue::Unspecified)
    return {M.Device, {}, Origin(Origin::ModuleOutput, Output)};
  return DeviceFact::unknown();
}

DeviceFact DeviceFlowBuilder::factoryFact(const CallExpr *Call,
                                          libtorch::FactoryKind K) {
  const FunctionDecl *FD = Call->getDirectCallee();
  DeviceValue Dev = DeviceValue::unspecified();
  const Expr *Sizes = nullptr, *Like = nullptr;
  for (unsigned I = 0; I < Call->getNumArgs() && I < FD->getNumParams(); ++I) {
    const ParmVarDecl *P = FD->getParamDecl(I);
    const Expr *A = Call->getArg(I);
    libtorch::Carrier PC = cachedCarrier(P->getType());
    StringRef PN = P->getIdentifier() ? P->getName() : StringRef();
    if (PC == libtorch::Carrier::Options) {
      if (!isa<CXXDefaultArgExpr>(A))
        Dev = get(A).Device;
    } else if (PN == "device" && !isa<CXXDefaultArgExpr>(A)) {
      // at::randn(size, dtype, layout, device, pin_memory): an optional.
      const Expr *Inner = ast::stripImplicit(A);
      if (const auto *CE = dyn_cast<CXXConstructExpr>(Inner))
        Inner = CE->getNumArgs() ? CE->getArg(0) : nullptr;
      libtorch::Carrier IC = carrier(Inner);
      Dev = libtorch::holdsDevice(IC) ? get(Inner).Device
                                      : DeviceValue::unknown();
    } else if (PN == "size" || PN == "sizes") {
      Sizes = A;
    } else if (PC == libtorch::Carrier::Tensor && !Like) {
      Like = A;
    }
  }
  TensorRank Rank;
  auto RankOfTensor = [&](const Expr *T) { return rankOf(T); };
  switch (K) {
  case libtorch::FactoryKind::Sized:
  case libtorch::FactoryKind::FromBlob:
    Rank = Sizes ? sizesRank(Sizes, RankOfTensor) : TensorRank::unknown();
    break;
  case libtorch::FactoryKind::Data:
    Rank = Call->getNumArgs() ? tensorDataRank(Call->getArg(0))
                              : TensorRank::unknown();
    break;
  case libtorch::FactoryKind::Scalar:
    Rank = TensorRank::exactly(0);
    break;
  case libtorch::FactoryKind::Vector:
    Rank = TensorRank::exactly(1);
    break;
  case libtorch::FactoryKind::Matrix:
    Rank = TensorRank::exactly(2);
    break;
  case libtorch::FactoryKind::Like:
  case libtorch::FactoryKind::None:
    break;
  }
  if (K == libtorch::FactoryKind::Like) {
    DeviceFact Base = get(Like);
    if (Dev.kind() == DeviceValue::Unspecified)
      return Base;
    return {Dev, Base.Rank, Origin(Origin::FactoryWithDevice, Call)};
  }
  if (Dev.kind() == DeviceValue::Unspecified)
    return {DeviceValue::cpu(), Rank, Origin(Origin::Factory, Call)};
  return {Dev, Rank, Origin(Origin::FactoryWithDevice, Call)};
}

/// `std::get<1>(torch::max(out, 1))`, or of a local tuple initialised so:
/// the tensors of a LibTorch op's tuple are on its operands' device.
DeviceFact DeviceFlowBuilder::tupleElementFact(const Expr *Tuple) {
  Tuple = ast::stripImplicit(Tuple);
  if (const auto *Ref = dyn_cast_or_null<DeclRefExpr>(Tuple))
    if (const auto *VD = dyn_cast<VarDecl>(Ref->getDecl());
        VD && VD->hasLocalStorage() && !isa<ParmVarDecl>(VD))
      Tuple = ast::stripImplicit(VD->getInit());
  // A module's output pair or tuple (`auto out = discriminator(x);
  // out.first`): on the module's device, as a tensor output is.
  const Expr *Module = nullptr;
  if (const auto *OC = dyn_cast_or_null<CXXOperatorCallExpr>(Tuple);
      OC && OC->getOperator() == OO_Call && OC->getNumArgs() > 0 &&
      carrier(OC->getArg(0)) == libtorch::Carrier::Module)
    Module = OC->getArg(0);
  else if (const auto *MC = dyn_cast_or_null<CXXMemberCallExpr>(Tuple);
           MC && MC->getMethodDecl() && MC->getMethodDecl()->getIdentifier() &&
           MC->getMethodDecl()->getName() == "forward" &&
           carrier(MC->getImplicitObjectArgument()) ==
               libtorch::Carrier::Module)
    Module = MC->getImplicitObjectArgument();
  if (Module) {
    const CXXRecordDecl *Class = libtorch::moduleClassOf(Module->getType());
    if (libtorch::isLossModule(Class) || libtorch::isWeightlessLayer(Class))
      return DeviceFact::unknown();
    return onModuleDevice(Tuple, Module);
  }
  const auto *Op = dyn_cast_or_null<CallExpr>(Tuple);
  const FunctionDecl *FD = Op ? Op->getDirectCallee() : nullptr;
  if (!FD || !libtorch::isLibTorchDecl(FD))
    return DeviceFact::unknown();
  llvm::SmallVector<const Expr *, 4> Tensors;
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Op))
    if (carrier(MC->getImplicitObjectArgument()) == libtorch::Carrier::Tensor)
      Tensors.push_back(MC->getImplicitObjectArgument());
  for (const Expr *A : Op->arguments())
    if (carrier(A) == libtorch::Carrier::Tensor)
      Tensors.push_back(A);
  if (Tensors.empty())
    return DeviceFact::unknown();
  DeviceFact F = common(Tensors, /*Broadcast=*/false);
  F.Rank = TensorRank::unknown();
  return F;
}

/// Nesting of the analyses returnsCPUFor() starts (thread-local).
static thread_local unsigned CPUCallDepth = 0;

/// The tensors \p S returns, outside lambdas.
static void collectReturns(const Stmt *S,
                           llvm::SmallVectorImpl<const Expr *> &Out) {
  if (!S || isa<LambdaExpr>(S))
    return;
  if (const auto *R = dyn_cast<ReturnStmt>(S))
    if (const Expr *V = R->getRetValue())
      Out.push_back(V);
  for (const Stmt *Child : S->children())
    collectReturns(Child, Out);
}

bool DeviceFlowBuilder::returnsCPUFor(const CallExpr *Call,
                                      const FunctionDecl *FD) {
  // Only in an analysis that takes some parameters to be on the CPU: what
  // one call of a helper given CPU copies computes (HiddenSync.h).
  const FunctionDecl *Def = nullptr;
  if (!CPUParameters || CPUCallDepth >= 2 || !FD->hasBody(Def) ||
      Def->isDependentContext() || isa<CXXOperatorCallExpr>(Call))
    return false;
  // A member function's object may hold tensors of its own: free functions
  // and static members only.
  if (const auto *MD = dyn_cast<CXXMethodDecl>(Def); MD && !MD->isStatic())
    return false;
  const uint32_t OnCPU = cpuParameters(
      Call, Def, [&](const Expr *Arg) { return get(Arg).Device.isCPU(); });
  if (!OnCPU)
    return false;
  llvm::SmallVector<const Expr *, 4> Returns;
  collectReturns(Def->getBody(), Returns);
  if (Returns.empty())
    return false;
  ++CPUCallDepth;
  const DeviceFlow &Flow = DeviceFlow::getWithCPUParameters(Def, OnCPU, Ctx);
  bool AllCPU = llvm::all_of(
      Returns, [&](const Expr *R) { return Flow.factOf(R).Device.isCPU(); });
  --CPUCallDepth;
  return AllCPU;
}

DeviceFact
DeviceFlowBuilder::createdModuleFact(const Expr *Creation,
                                     llvm::ArrayRef<const Expr *> Args) {
  // A constructor given a device creates the module's state there
  // (`RewardNormalizer(gamma, device)`); otherwise on the CPU.
  for (const Expr *A : Args)
    if (libtorch::holdsDevice(carrier(A)))
      return {get(A).Device, {}, Origin(Origin::DeviceValueDecl, A)};
  return {DeviceValue::cpu(), {}, Origin(Origin::ModuleCreated, Creation)};
}

DeviceFact DeviceFlowBuilder::callFact(const CallExpr *Call,
                                       libtorch::Carrier C) {
  const FunctionDecl *FD = Call->getDirectCallee();
  if (!FD || !FD->getIdentifier())
    return DeviceFact::unknown();
  StringRef Name = FD->getName();
  StringRef NS = libtorch::outermostNamespace(FD);
  if (NS == "std") {
    if ((Name == "move" || Name == "forward") && Call->getNumArgs() == 1)
      return get(Call->getArg(0));
    if ((Name == "make_shared" || Name == "make_unique") &&
        C == libtorch::Carrier::Module)
      return createdModuleFact(
          Call, llvm::ArrayRef(Call->getArgs(), Call->getNumArgs()));
    if (Name == "get" && Call->getNumArgs() == 1 &&
        C == libtorch::Carrier::Tensor)
      return tupleElementFact(Call->getArg(0));
    return DeviceFact::unknown();
  }
  if (!libtorch::isLibTorchDecl(FD)) {
    if ((C != libtorch::Carrier::Tensor && C != libtorch::Carrier::Example) ||
        !isUserFunction(FD))
      return DeviceFact::unknown();
    if (C == libtorch::Carrier::Tensor && returnsCPUFor(Call, FD))
      return {DeviceValue::cpu(), {}, Origin()};
    return {DeviceValue::inherited(FD->getCanonicalDecl()), {}, Origin()};
  }
  if (C == libtorch::Carrier::Options) {
    if (Name == "device" && Call->getNumArgs() == 1)
      return get(Call->getArg(0));
    return {DeviceValue::unspecified(), {}, Origin()};
  }
  if (C != libtorch::Carrier::Tensor)
    return DeviceFact::unknown();
  if (libtorch::FactoryKind K = libtorch::factoryKind(FD);
      K != libtorch::FactoryKind::None)
    return factoryFact(Call, K);
  llvm::SmallVector<const Expr *, 4> Tensors;
  bool OtherArgs = false;
  for (const Expr *A : Call->arguments()) {
    if (carrier(A) == libtorch::Carrier::Tensor)
      Tensors.push_back(A);
    else if (const InitListExpr *IL = libtorch::initListOf(A);
             IL && llvm::any_of(IL->inits(), [&](const Expr *I) {
               return carrier(I) == libtorch::Carrier::Tensor;
             }))
      libtorch::addTensorOperands(A, Tensors); // torch::cat({a, b})
    else if (!isa<CXXDefaultArgExpr>(A))
      OtherArgs = true;
  }
  if (Tensors.empty())
    return DeviceFact::unknown();
  if (libtorch::isDeviceMixAllowed(Name))
    Tensors.resize(1);
  bool Broadcast = libtorch::isBroadcastingOp(Name);
  DeviceFact F = common(Tensors, Broadcast);
  if (Tensors.size() == 1 && !OtherArgs && libtorch::isFullReduction(Name))
    F.Rank = TensorRank::exactly(0);
  else if (Tensors.size() == 1 && libtorch::keepsRank(Name))
    F.Rank = get(Tensors.front()).Rank;
  return F;
}

} // namespace clang::tidy::torch::device
