//===- TorchModules.cpp - modules and optimizers --------------------------===//
#include "libtorch/TorchModules.h"
#include "ast/ASTHelpers.h"
#include "libtorch/DeviceRules.h"
#include "libtorch/ProgramCode.h"
#include "libtorch/TorchTypes.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/Basic/SourceManager.h"

namespace clang::tidy::torch::libtorch {

bool isModuleClass(const CXXRecordDecl *RD) {
  return isOrDerivesFrom(RD, "torch::nn::Module");
}

bool isForwardableModuleClass(const CXXRecordDecl *RD) {
  return isOrDerivesFrom(RD, "torch::nn::Module") ||
         isOrDerivesFrom(RD, "torch::nn::ModuleHolder") ||
         isOrDerivesFrom(RD, "torch::nn::AnyModule") ||
         isOrDerivesFrom(RD, "torch::jit::Module");
}

/// Whether a use of \p P in \p S may move the module: anything but a call
/// of one of its members that leaves the module where it is.
static bool usesMayMove(const Stmt *S, const ParmVarDecl *P) {
  if (!S)
    return false;
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(S)) {
    const Expr *Object = ast::stripImplicit(MC->getImplicitObjectArgument());
    // `model->f()` on a holder: the object is `model.operator->()`.
    if (const auto *Arrow = dyn_cast<CXXOperatorCallExpr>(Object);
        Arrow && Arrow->getOperator() == OO_Arrow)
      Object = ast::stripImplicit(Arrow->getArg(0));
    const CXXMethodDecl *MD = MC->getMethodDecl();
    if (ast::namesDecl(Object, P) && MD && MD->getIdentifier() &&
        !llvm::is_contained(
            {"to", "cuda", "cpu", "apply", "load", "to_empty", "reset", "swap"},
            MD->getName()))
      return llvm::any_of(MC->arguments(),
                          [&](const Expr *A) { return usesMayMove(A, P); });
  }
  if (const auto *Ref = dyn_cast<DeclRefExpr>(S))
    return Ref->getDecl() == P;
  return llvm::any_of(S->children(),
                      [&](const Stmt *C) { return usesMayMove(C, P); });
}

bool mayMoveModuleParameter(const FunctionDecl *Callee, unsigned Param) {
  const FunctionDecl *Def = nullptr;
  if (!Callee || !Callee->hasBody(Def) || Def->isDependentContext() ||
      isLibraryDecl(Def) || Param >= Def->getNumParams())
    return true;
  if (const auto *MD = dyn_cast<CXXMethodDecl>(Def); MD && MD->isVirtual())
    return true; // an override elsewhere may
  return usesMayMove(Def->getBody(), Def->getParamDecl(Param));
}

bool placesModuleOn(const Stmt *Body, const ValueDecl *Device) {
  if (!Body || !Device)
    return false;
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Body))
    if (const CXXMethodDecl *MD = MC->getMethodDecl();
        MD && MD->getIdentifier() && MD->getName() == "to" &&
        isForwardableModuleClass(MD->getParent()) &&
        llvm::any_of(MC->arguments(), [&](const Expr *A) {
          return ast::namesDecl(ast::stripCopiesAndConversions(A), Device);
        }))
      return true;
  return llvm::any_of(Body->children(), [&](const Stmt *Child) {
    return placesModuleOn(Child, Device);
  });
}

static void inputTensorsIn(const Stmt *S, bool FollowLocals,
                           llvm::SmallVectorImpl<const Expr *> &Out);

/// The tensors pushed into the local \p Inputs within \p S.
static void pushedTensors(const Stmt *S, const VarDecl *Inputs,
                          llvm::SmallVectorImpl<const Expr *> &Out) {
  if (!S || isa<LambdaExpr>(S))
    return;
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(S)) {
    const CXXMethodDecl *MD = MC->getMethodDecl();
    if (MD && MD->getIdentifier() &&
        (MD->getName() == "push_back" || MD->getName() == "emplace_back") &&
        ast::namesDecl(MC->getImplicitObjectArgument(), Inputs))
      for (const Expr *A : MC->arguments())
        inputTensorsIn(A, /*FollowLocals=*/false, Out);
  }
  for (const Stmt *Child : S->children())
    pushedTensors(Child, Inputs, Out);
}

static void inputTensorsIn(const Stmt *S, bool FollowLocals,
                           llvm::SmallVectorImpl<const Expr *> &Out) {
  if (!S || isa<LambdaExpr>(S))
    return;
  if (const auto *E = dyn_cast<Expr>(S);
      E && carrierOf(E->getType()) == Carrier::Tensor) {
    Out.push_back(E);
    return;
  }
  if (const auto *Ref = dyn_cast<DeclRefExpr>(S)) {
    const auto *Local = dyn_cast<VarDecl>(Ref->getDecl());
    if (!Local || !Local->isLocalVarDecl())
      return;
    // `torch::jit::IValue input = x.cuda(); inputs.push_back(input);`
    if (isOrDerivesFrom(Local->getType()->getAsCXXRecordDecl(), "c10::IValue"))
      return inputTensorsIn(Local->getInit(), /*FollowLocals=*/false, Out);
    if (FollowLocals)
      if (const auto *Fn = dyn_cast<FunctionDecl>(Local->getDeclContext()))
        pushedTensors(Fn->getBody(), Local, Out);
    return;
  }
  for (const Stmt *Child : S->children())
    inputTensorsIn(Child, FollowLocals, Out);
}

void inputTensors(const Expr *Arg, llvm::SmallVectorImpl<const Expr *> &Out) {
  inputTensorsIn(Arg, /*FollowLocals=*/true, Out);
}

bool isOptimizerClass(const CXXRecordDecl *RD) {
  return isOrDerivesFrom(RD, "torch::optim::Optimizer");
}

MemberKind moduleMemberKind(QualType T) {
  if (T.isNull() || T->isReferenceType())
    return MemberKind::None;
  if (isTensorType(T))
    return MemberKind::Tensor;
  const CXXRecordDecl *RD = T->getAsCXXRecordDecl();
  if (!RD)
    return MemberKind::None;
  if (isOrDerivesFrom(RD, "torch::nn::ModuleHolder"))
    return MemberKind::Holder;
  if (const auto *Spec = dyn_cast<ClassTemplateSpecializationDecl>(RD))
    if (Spec->getQualifiedNameAsString() == "std::shared_ptr" &&
        Spec->getTemplateArgs().size() >= 1 &&
        Spec->getTemplateArgs()[0].getKind() == TemplateArgument::Type &&
        isModuleClass(
            Spec->getTemplateArgs()[0].getAsType()->getAsCXXRecordDecl()))
      return MemberKind::SharedPtr;
  return MemberKind::None;
}

const CXXMemberCallExpr *asRegisterCall(const Expr *E) {
  const auto *Call =
      dyn_cast_or_null<CXXMemberCallExpr>(ast::stripCopiesAndConversions(E));
  if (!Call || !Call->getMethodDecl())
    return nullptr;
  const CXXMethodDecl *M = Call->getMethodDecl();
  if (!M->getDeclName().isIdentifier() || !isModuleClass(M->getParent()))
    return nullptr;
  StringRef N = M->getName();
  if (N == "register_module" || N == "register_parameter" ||
      N == "register_buffer" || N == "replace_module")
    return Call;
  return nullptr;
}

static bool isSmartPointer(QualType T) {
  const CXXRecordDecl *RD = T.getNonReferenceType()->getAsCXXRecordDecl();
  if (!RD)
    return false;
  std::string N = RD->getQualifiedNameAsString();
  return N == "std::shared_ptr" || N == "std::unique_ptr" ||
         isOrDerivesFrom(RD, "torch::nn::ModuleHolder");
}

ModuleRef movedModule(const Stmt *S) {
  const auto *MC = dyn_cast_or_null<CXXMemberCallExpr>(S);
  const CXXMethodDecl *MD = MC ? MC->getMethodDecl() : nullptr;
  if (!MD || !MD->getIdentifier() || MD->getName() != "to" ||
      !isModuleClass(MD->getParent()))
    return {};
  return moduleRoot(MC->getImplicitObjectArgument());
}

ModuleRef moduleRoot(const Expr *E) {
  ModuleRef R;
  while (E) {
    E = ast::stripImplicit(E);
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E)) {
      if ((Op->getOperator() == OO_Arrow || Op->getOperator() == OO_Star) &&
          Op->getNumArgs() == 1) {
        E = Op->getArg(0);
        continue;
      }
      return ModuleRef();
    }
    if (const auto *MC = dyn_cast<CXXMemberCallExpr>(E)) {
      const CXXMethodDecl *M = MC->getMethodDecl();
      if (M && M->getDeclName().isIdentifier() && MC->getNumArgs() == 0 &&
          (((M->getName() == "ptr" || M->getName() == "get") &&
            isSmartPointer(MC->getImplicitObjectArgument()->getType())) ||
           (M->getName() == "as" && isModuleClass(M->getParent())))) {
        E = MC->getImplicitObjectArgument();
        continue;
      }
      return ModuleRef();
    }
    if (const auto *UO = dyn_cast<UnaryOperator>(E)) {
      if (UO->getOpcode() != UO_Deref)
        return ModuleRef();
      E = UO->getSubExpr();
      continue;
    }
    if (const auto *ME = dyn_cast<MemberExpr>(E)) {
      const auto *FD = dyn_cast<FieldDecl>(ME->getMemberDecl());
      if (!FD)
        return ModuleRef();
      if (isa<CXXThisExpr>(ast::stripImplicit(ME->getBase()))) {
        R.Root = FD;
        return R;
      }
      R.Member = FD;
      E = ME->getBase();
      continue;
    }
    if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
      if (!isa<VarDecl>(DRE->getDecl()))
        return ModuleRef();
      R.Root = DRE->getDecl();
      return R;
    }
    return ModuleRef();
  }
  return ModuleRef();
}

ModuleRef parametersReceiver(const CXXMemberCallExpr *Call) {
  const CXXMethodDecl *M = Call ? Call->getMethodDecl() : nullptr;
  if (!M || !M->getDeclName().isIdentifier() ||
      (M->getName() != "parameters" && M->getName() != "named_parameters") ||
      !isModuleClass(M->getParent()))
    return ModuleRef();
  return moduleRoot(Call->getImplicitObjectArgument());
}

const Expr *optimizerConstruction(const Expr *E) {
  E = ast::stripImplicit(E);
  if (const auto *New = dyn_cast_or_null<CXXNewExpr>(E))
    E = New->getConstructExpr();
  if (!E)
    return nullptr;
  if (const auto *CE = dyn_cast<CXXConstructExpr>(E)) {
    if (isOptimizerClass(CE->getConstructor()->getParent()) &&
        !CE->getConstructor()->isCopyOrMoveConstructor())
      return CE;
    // A pointer constructed from `new Optimizer(...)` or make_unique.
    if (CE->getNumArgs() == 1)
      return optimizerConstruction(CE->getArg(0));
    return nullptr;
  }
  if (const auto *Call = dyn_cast<CallExpr>(E)) {
    const FunctionDecl *F = Call->getDirectCallee();
    if (!F || !F->getDeclName().isIdentifier())
      return nullptr;
    StringRef N = F->getName();
    if (N != "make_shared" && N != "make_unique")
      return nullptr;
    const TemplateArgumentList *Args = F->getTemplateSpecializationArgs();
    if (Args && Args->size() >= 1 &&
        Args->get(0).getKind() == TemplateArgument::Type &&
        isOptimizerClass(Args->get(0).getAsType()->getAsCXXRecordDecl()))
      return Call;
  }
  return nullptr;
}

namespace {
/// Collects the registrations made in one class's code.
class RegistrationCollector {
public:
  RegistrationCollector(const CXXRecordDecl *RD, ModuleRegistrations &Out)
      : RD(RD), Out(Out) {}

  void add(const FieldDecl *FD, const CXXMemberCallExpr *Call) {
    if (!FD || FD->getParent() != RD || !Call)
      return;
    Registration Reg;
    Reg.Method = Call->getMethodDecl()->getName();
    if (Call->getNumArgs() > 0)
      if (const auto *Lit = dyn_cast<StringLiteral>(
              ast::stripCopiesAndConversions(Call->getArg(0))))
        Reg.Name = Lit->getString().str();
    Out.Fields.try_emplace(FD, Reg);
  }

  void walk(const Stmt *S) {
    if (!S)
      return;
    if (const auto *E = dyn_cast<Expr>(S)) {
      auto [LHS, RHS] = ast::asAssignment(E);
      if (LHS) {
        add(ast::thisField(LHS), asRegisterCall(RHS));
        // `this->shortcut = shortcut;`: the member shares the local's module.
        if (const FieldDecl *F = ast::thisField(LHS))
          if (const VarDecl *V = localNamed(RHS))
            Aliases.push_back({V, F});
      }
      if (const CXXMemberCallExpr *Call = asRegisterCall(E);
          Call && Call->getNumArgs() >= 2) {
        // register_module("fc", fc), or register_module("fc", fc = ...).
        const Expr *Arg = ast::stripCopiesAndConversions(Call->getArg(1));
        if (const Expr *L = ast::asAssignment(Arg).first)
          Arg = L;
        add(ast::thisField(Arg), Call);
        if (const VarDecl *V = localNamed(Arg))
          RegisteredLocals.try_emplace(V, Call);
      }
    }
    if (const auto *Lambda = dyn_cast<LambdaExpr>(S)) {
      walk(Lambda->getBody());
      return;
    }
    for (const Stmt *Child : S->children())
      walk(Child);
  }

  /// Members assigned a local that is registered itself
  /// (`this->shortcut = shortcut; register_module("shortcut", shortcut);`).
  void finish() {
    for (const auto &[V, F] : Aliases)
      if (auto It = RegisteredLocals.find(V); It != RegisteredLocals.end())
        add(F, It->second);
  }

private:
  static const VarDecl *localNamed(const Expr *E) {
    const auto *Ref = dyn_cast_or_null<DeclRefExpr>(
        E ? ast::stripCopiesAndMoves(E) : nullptr);
    const auto *V = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
    return V && V->hasLocalStorage() ? V : nullptr;
  }

  const CXXRecordDecl *RD;
  ModuleRegistrations &Out;
  llvm::SmallVector<std::pair<const VarDecl *, const FieldDecl *>, 2> Aliases;
  llvm::DenseMap<const VarDecl *, const CXXMemberCallExpr *> RegisteredLocals;
};
} // namespace

ModuleRegistrations analyzeRegistrations(const CXXRecordDecl *RD,
                                         const SourceManager &SM) {
  ModuleRegistrations Out;
  if (!RD || !RD->hasDefinition())
    return Out.Complete = false, Out;
  RD = RD->getDefinition();
  if (isLibraryLocation(SM, RD->getLocation()))
    Out.Complete = false;
  RegistrationCollector C(RD, Out);
  for (const CXXMethodDecl *M : RD->methods()) {
    const FunctionDecl *Def = nullptr;
    if (!M->hasBody(Def)) {
      bool Ctor = isa<CXXConstructorDecl>(M);
      bool Reset = M->getDeclName().isIdentifier() && M->getName() == "reset";
      if ((Ctor || Reset) && !M->isImplicit() && !M->isDefaulted() &&
          !M->isDeleted() && !M->isPureVirtual())
        Out.Complete = false;
      continue;
    }
    if (const auto *Ctor = dyn_cast<CXXConstructorDecl>(Def))
      for (const CXXCtorInitializer *Init : Ctor->inits()) {
        if (!Init->isWritten())
          continue;
        if (Init->isMemberInitializer())
          C.add(Init->getMember(), asRegisterCall(Init->getInit()));
        C.walk(Init->getInit());
      }
    C.walk(Def->getBody());
  }
  for (const FieldDecl *FD : RD->fields())
    if (const Expr *Init = FD->getInClassInitializer()) {
      C.add(FD, asRegisterCall(Init));
      C.walk(Init);
    }
  C.finish();
  return Out;
}

} // namespace clang::tidy::torch::libtorch
