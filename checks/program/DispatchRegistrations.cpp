//===- DispatchRegistrations.cpp - functions reached by a device dispatch -===//
#include "program/DispatchRegistrations.h"
#include "device/CallerDevices.h"
#include "device/ProgramFacts.h"
#include "libtorch/CudaApi.h"
#include "libtorch/ProgramCode.h"
#include "libtorch/TorchTypes.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"

namespace clang::tidy::torch::program {

namespace {

struct UnitRegistrations {
  ASTContext *Ctx = nullptr;
  std::vector<CudaRegistration> Registrations;
  llvm::DenseMap<const FunctionDecl *, size_t> ByFunction; ///< canonical
  std::vector<RegistryDispatch> Dispatches;
};
thread_local UnitRegistrations Unit;

bool takesTensor(const FunctionDecl *FD) {
  return llvm::any_of(FD->parameters(), [](const ParmVarDecl *P) {
    return libtorch::isTensorType(P->getType().getNonReferenceType());
  });
}

/// The function-pointer parameter of a registry's registering member, for
/// a class of the program with a member taking a device type and a
/// function pointer; null for any other class.
const FunctionProtoType *registeredType(const CXXRecordDecl *RD) {
  if (!RD || libtorch::isLibraryDecl(RD) || !RD->hasDefinition())
    return nullptr;
  for (const CXXMethodDecl *MD : RD->methods()) {
    const FunctionProtoType *Registered = nullptr;
    bool TakesDeviceType = false;
    for (const ParmVarDecl *P : MD->parameters()) {
      QualType T = P->getType().getNonReferenceType().getCanonicalType();
      if (T->isFunctionPointerType())
        Registered = T->getPointeeType()->getAs<FunctionProtoType>();
      else if (const auto *ET = T->getAs<EnumType>())
        TakesDeviceType |= ET->getDecl()->getName() == "DeviceType";
    }
    if (Registered && TakesDeviceType)
      return Registered;
  }
  return nullptr;
}

std::string registryKey(const CXXRecordDecl *RD) {
  ASTContext &Ctx = RD->getASTContext();
  PrintingPolicy Policy(Ctx.getLangOpts());
  return QualType(Ctx.getCanonicalTagType(RD)).getAsString(Policy);
}

const CXXRecordDecl *classOf(const Expr *E) {
  return E ? E->getType().getNonReferenceType()->getAsCXXRecordDecl() : nullptr;
}

/// The functions of the program an argument refers to: `fn`, `&fn`, and
/// `TORCH_FN(fn)` (a class template specialization with the function as
/// its template argument). Callees and lambdas are not looked into.
void functionsReferredTo(const Expr *E,
                         llvm::SmallVectorImpl<const FunctionDecl *> &Out,
                         bool TopLevel = true) {
  if (!E || isa<LambdaExpr>(E))
    return;
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E))
    if (const auto *FD = dyn_cast<FunctionDecl>(DRE->getDecl()))
      if (device::isUserFunction(FD))
        Out.push_back(FD);
  if (TopLevel)
    if (const auto *Spec = dyn_cast_or_null<ClassTemplateSpecializationDecl>(
            classOf(E->IgnoreImplicit())))
      for (const TemplateArgument &A : Spec->getTemplateArgs().asArray())
        if (A.getKind() == TemplateArgument::Declaration)
          if (const auto *FD = dyn_cast<FunctionDecl>(A.getAsDecl()))
            if (device::isUserFunction(FD))
              Out.push_back(FD);
  const Expr *Callee = nullptr;
  if (const auto *Call = dyn_cast<CallExpr>(E))
    Callee = Call->getCallee();
  for (const Stmt *Child : E->children())
    if (const auto *CE = dyn_cast_or_null<Expr>(Child); CE && CE != Callee)
      functionsReferredTo(CE, Out, /*TopLevel=*/false);
}

llvm::ArrayRef<const Expr *> argumentsOf(const Expr *E) {
  if (const auto *Call = dyn_cast<CallExpr>(E))
    return llvm::ArrayRef(Call->getArgs(), Call->getNumArgs());
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(E))
    return llvm::ArrayRef(Construct->getArgs(), Construct->getNumArgs());
  return {};
}

void addRegistration(const FunctionDecl *FD, const Expr *Site,
                     const std::string &Registry) {
  const FunctionDecl *Key = FD->getCanonicalDecl();
  if (Unit.ByFunction.count(Key))
    return;
  Unit.ByFunction[Key] = Unit.Registrations.size();
  Unit.Registrations.push_back({FD, Site, Registry});
}

void findRegistrations(const Stmt *S, unsigned Depth);

/// \p E registers what its arguments refer to when they name CUDA.
void registrationAt(const Expr *E, unsigned Depth) {
  llvm::ArrayRef<const Expr *> Args = argumentsOf(E);
  if (Args.empty() ||
      !llvm::any_of(Args, [](const Expr *A) { return libtorch::namesCuda(A); }))
    return;
  std::string Registry;
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(E)) {
    const CXXRecordDecl *RD = classOf(MC->getImplicitObjectArgument());
    if (registeredType(RD))
      Registry = registryKey(RD);
  }
  llvm::SmallVector<const FunctionDecl *, 2> Fns;
  for (const Expr *A : Args)
    functionsReferredTo(A, Fns);
  for (const FunctionDecl *FD : Fns) {
    const FunctionDecl *Def = FD->getDefinition();
    // An init function (TORCH_LIBRARY_IMPL's): what it registers.
    if (Def && Def->getBody() && !takesTensor(Def) && Depth > 0 &&
        Def->getReturnType()->isVoidType() && Def->getNumParams() == 1 &&
        Def->getParamDecl(0)->getType()->isReferenceType()) {
      findRegistrations(Def->getBody(), 0);
      continue;
    }
    addRegistration(FD, E, Registry);
  }
}

/// Inside an init function (Depth 0): every function given to a call is
/// registered by it.
void registrationInInit(const Expr *E) {
  llvm::SmallVector<const FunctionDecl *, 2> Fns;
  for (const Expr *A : argumentsOf(E))
    functionsReferredTo(A, Fns);
  for (const FunctionDecl *FD : Fns)
    if (takesTensor(FD))
      addRegistration(FD, E, "");
}

void findRegistrations(const Stmt *S, unsigned Depth) {
  if (!S || isa<LambdaExpr>(S))
    return;
  if (isa<CallExpr, CXXConstructExpr>(S)) {
    registrationAt(cast<Expr>(S), Depth);
    if (Depth == 0)
      registrationInInit(cast<Expr>(S));
  }
  for (const Stmt *Child : S->children())
    findRegistrations(Child, Depth);
}

/// The namespace-scope variables of the program with an initializer
/// (TORCH_LIBRARY_IMPL's static TorchLibraryInit).
void variablesIn(const DeclContext *DC, std::vector<const VarDecl *> &Out) {
  for (const Decl *D : DC->decls()) {
    if (libtorch::isLibraryDecl(D))
      continue;
    if (const auto *NS = dyn_cast<NamespaceDecl>(D))
      variablesIn(NS, Out);
    else if (const auto *V = dyn_cast<VarDecl>(D); V && V->getInit())
      Out.push_back(V);
  }
}

bool isDeviceValue(const Expr *E) {
  QualType T = E->IgnoreParenImpCasts()
                   ->getType()
                   .getNonReferenceType()
                   .getCanonicalType()
                   .getUnqualifiedType();
  if (const auto *ET = T->getAs<EnumType>())
    return ET->getDecl()->getName() == "DeviceType";
  const CXXRecordDecl *RD = T->getAsCXXRecordDecl();
  return RD && RD->getIdentifier() && RD->getName() == "Device" &&
         libtorch::isLibTorchDecl(RD);
}

/// What \p FD and the functions it calls (\p Depth deep) do: compare
/// devices, fail a check.
void scanDispatch(const Stmt *S, unsigned Depth, bool &Compares, bool &Fails,
                  llvm::SmallPtrSetImpl<const FunctionDecl *> &Seen) {
  if (!S || isa<LambdaExpr>(S) || (Compares && Fails))
    return;
  Fails |= libtorch::isCheckFailure(S);
  if (const auto *BO = dyn_cast<BinaryOperator>(S))
    Compares |= BO->isEqualityOp() && isDeviceValue(BO->getLHS()) &&
                isDeviceValue(BO->getRHS());
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(S))
    Compares |= (Op->getOperator() == OO_EqualEqual ||
                 Op->getOperator() == OO_ExclaimEqual) &&
                Op->getNumArgs() == 2 && isDeviceValue(Op->getArg(0)) &&
                isDeviceValue(Op->getArg(1));
  if (const auto *Call = dyn_cast<CallExpr>(S); Call && Depth > 0)
    if (const FunctionDecl *Callee = Call->getDirectCallee())
      if (const FunctionDecl *Def = Callee->getDefinition();
          Def && Def->getBody() && device::isUserFunction(Def) &&
          Seen.insert(Def).second && Seen.size() < 64)
        scanDispatch(Def->getBody(), Depth - 1, Compares, Fails, Seen);
  for (const Stmt *Child : S->children())
    scanDispatch(Child, Depth, Compares, Fails, Seen);
}

bool checksOneDevice(const FunctionDecl *Dispatcher) {
  const FunctionDecl *Def = Dispatcher ? Dispatcher->getDefinition() : nullptr;
  if (!Def || !Def->getBody())
    return false;
  bool Compares = false, Fails = false;
  // Deep enough for a variadic check that peels one argument per call
  // (mmcv's CheckDeviceConsistency skips each scalar before the tensors).
  llvm::SmallPtrSet<const FunctionDecl *, 8> Seen{Def};
  scanDispatch(Def->getBody(), 16, Compares, Fails, Seen);
  return Compares && Fails;
}

void findDispatches(const Stmt *S, const FunctionDecl *Caller) {
  if (!S)
    return;
  if (const auto *L = dyn_cast<LambdaExpr>(S))
    return findDispatches(L->getBody(), Caller);
  if (const auto *Call = dyn_cast<CallExpr>(S);
      Call && !isa<CXXMemberCallExpr, CXXOperatorCallExpr>(Call))
    for (const Expr *Arg : Call->arguments())
      if (const FunctionProtoType *Registered =
              registeredType(classOf(Arg->IgnoreImplicit()))) {
        unsigned N = Registered->getNumParams();
        if (Call->getNumArgs() > N)
          Unit.Dispatches.push_back(
              {Call, Caller, registryKey(classOf(Arg->IgnoreImplicit())),
               Call->getNumArgs() - N, N,
               checksOneDevice(Call->getDirectCallee())});
        break;
      }
  for (const Stmt *Child : S->children())
    findDispatches(Child, Caller);
}

void ensureUnit(ASTContext &Ctx) {
  if (Unit.Ctx == &Ctx)
    return;
  Unit = UnitRegistrations();
  Unit.Ctx = &Ctx;
  for (const FunctionDecl *Fn : libtorch::programFunctionDefinitions(Ctx)) {
    findRegistrations(Fn->getBody(), 1);
    findDispatches(Fn->getBody(), Fn);
  }
  std::vector<const VarDecl *> Vars;
  variablesIn(Ctx.getTranslationUnitDecl(), Vars);
  for (const VarDecl *V : Vars)
    findRegistrations(V->getInit(), 1);
}

} // namespace

const CudaRegistration *cudaRegistrationOf(const FunctionDecl *Fn,
                                           ASTContext &Ctx) {
  ensureUnit(Ctx);
  auto It = Unit.ByFunction.find(Fn->getCanonicalDecl());
  return It == Unit.ByFunction.end() ? nullptr
                                     : &Unit.Registrations[It->second];
}

const std::vector<CudaRegistration> &cudaRegistrationsInUnit(ASTContext &Ctx) {
  ensureUnit(Ctx);
  return Unit.Registrations;
}

const std::vector<RegistryDispatch> &registryDispatchesInUnit(ASTContext &Ctx) {
  ensureUnit(Ctx);
  return Unit.Dispatches;
}

std::string registryFunctionKey(llvm::StringRef Registry) {
  return ("registry " + Registry).str();
}

std::string registrationFacts(ASTContext &Ctx) {
  ensureUnit(Ctx);
  std::string Lines;
  for (const CudaRegistration &R : Unit.Registrations)
    if (!R.Registry.empty())
      Lines += device::ProgramFacts::registryFact(
          registryFunctionKey(R.Registry), device::functionKey(R.Fn),
          R.Fn->getNumParams());
  return Lines;
}

void clearRegistrationCache() { Unit = UnitRegistrations(); }

} // namespace clang::tidy::torch::program
