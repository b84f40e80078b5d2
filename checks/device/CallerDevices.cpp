//===- CallerDevices.cpp - devices that come from the rest of the program -===//
#include "device/CallerDevices.h"
#include "ast/ASTHelpers.h"
#include "device/DeviceFlow.h"
#include "device/DeviceLiterals.h"
#include "device/ProgramFacts.h"
#include "libtorch/DeviceRules.h"
#include "libtorch/ProgramCode.h"
#include "libtorch/TorchModules.h"
#include "libtorch/TorchTypes.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdlib>
#include <functional>
#include <set>

namespace clang::tidy::torch::device {

bool isUserFunction(const FunctionDecl *FD) {
  if (!FD || libtorch::isLibTorchDecl(FD) ||
      libtorch::outermostNamespace(FD) == "std")
    return false;
  const auto *MD = dyn_cast<CXXMethodDecl>(FD);
  return !(MD && MD->getParent()->isLambda());
}

bool isFollowedField(const FieldDecl *FD) {
  const auto *RD = FD ? dyn_cast<CXXRecordDecl>(FD->getParent()) : nullptr;
  return RD && RD->getIdentifier() && !RD->isLambda() &&
         !isa<ClassTemplateSpecializationDecl>(RD) &&
         !RD->isDependentContext() && !libtorch::isLibTorchDecl(RD) &&
         libtorch::outermostNamespace(RD) != "std" &&
         libtorch::isTensorType(FD->getType()) && !libtorch::isModuleClass(RD);
}

namespace {
/// A value put into a sequence or a member: the expression and the function
/// it is in.
struct Written {
  const Expr *Value;
  const FunctionDecl *In;
};

/// What the translation unit was found to hold, built on first use.
struct UnitIndex {
  ASTContext *Ctx = nullptr;
  /// Canonical callee -> its calls (operator calls excluded).
  llvm::DenseMap<const FunctionDecl *, llvm::SmallVector<CallSite, 2>> Calls;
  /// Followed member -> the values stored in it; Escaped: members a pointer
  /// or a non-const reference reaches, whose stores are not all seen.
  llvm::DenseMap<const FieldDecl *, llvm::SmallVector<Written, 2>> Stores;
  llvm::DenseSet<const FieldDecl *> Escaped;
  llvm::DenseMap<const Decl *, bool> Answers;
  std::set<std::string> Deferred; ///< ProgramFacts lines
};
thread_local UnitIndex Index;

/// The followed member \p E names (`s.f`, `p->f`, `f` in a method).
const FieldDecl *followedField(const Expr *E) {
  const auto *ME =
      dyn_cast_or_null<MemberExpr>(E ? E->IgnoreParens() : nullptr);
  const auto *FD = ME ? dyn_cast<FieldDecl>(ME->getMemberDecl()) : nullptr;
  return isFollowedField(FD) ? FD : nullptr;
}

bool isNonConstLValueReference(QualType T) {
  return T->isLValueReferenceType() &&
         !T.getNonReferenceType().isConstQualified();
}

/// The member \p Arg names, passed as parameter \p I of \p Callee: stores
/// what \p Callee assigns to that parameter when it is the user's and takes
/// a tensor by non-const reference; an escape when some other function does
/// (`std::swap`, `torch::load`); nothing for a copy, a const reference or a
/// forwarding reference (`emplace_back`).
void noteArgument(const Expr *Arg, const FunctionDecl *Callee, unsigned I) {
  const FieldDecl *F = followedField(Arg);
  if (!F)
    return;
  if (!Callee) {
    Index.Escaped.insert(F);
    return;
  }
  if (I >= Callee->getNumParams() ||
      !isNonConstLValueReference(Callee->getParamDecl(I)->getType()))
    return;
  if (const FunctionDecl *Pattern = Callee->getTemplateInstantiationPattern();
      Pattern && I < Pattern->getNumParams() &&
      Pattern->getParamDecl(I)->getType()->isRValueReferenceType())
    return;
  const FunctionDecl *Def = nullptr;
  if (!isUserFunction(Callee) || !Callee->hasBody(Def) ||
      Def->isDependentContext()) {
    Index.Escaped.insert(F);
    return;
  }
  // `void normalize(torch::Tensor &t) { t = t / 255; }`: what it assigns.
  const ParmVarDecl *P = Def->getParamDecl(I);
  bool Followed = true;
  std::function<void(const Stmt *)> Visit = [&](const Stmt *S) {
    if (!S)
      return;
    if (auto [LHS, RHS] = ast::asAssignment(S); LHS && ast::namesDecl(LHS, P))
      Index.Stores[F].push_back({RHS, Def});
    else if (const auto *Call = dyn_cast<CallExpr>(S)) {
      const FunctionDecl *FD = Call->getDirectCallee();
      unsigned Shift =
          isa<CXXOperatorCallExpr>(Call) && isa_and_nonnull<CXXMethodDecl>(FD)
              ? 1
              : 0;
      for (unsigned J = Shift; J < Call->getNumArgs(); ++J)
        if (ast::namesDecl(Call->getArg(J), P) &&
            (!FD || (J - Shift < FD->getNumParams() &&
                     isNonConstLValueReference(
                         FD->getParamDecl(J - Shift)->getType()))))
          Followed = false;
    } else if (const auto *UO = dyn_cast<UnaryOperator>(S);
               UO && UO->getOpcode() == UO_AddrOf &&
               ast::namesDecl(UO->getSubExpr(), P))
      Followed = false;
    for (const Stmt *Child : S->children())
      Visit(Child);
  };
  Visit(Def->getBody());
  if (!Followed)
    Index.Escaped.insert(F);
}

/// The stores into followed members that \p S makes, and their escapes.
void noteMemberUses(const Stmt *S, const FunctionDecl *Fn) {
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(S)) {
    const FunctionDecl *FD = Op->getDirectCallee();
    bool Method = isa_and_nonnull<CXXMethodDecl>(FD);
    if (Op->getOperator() == OO_Equal && Op->getNumArgs() == 2 && Method)
      if (const FieldDecl *F = followedField(Op->getArg(0)))
        Index.Stores[F].push_back({Op->getArg(1), Fn});
    for (unsigned I = Method ? 1 : 0; I < Op->getNumArgs(); ++I)
      noteArgument(Op->getArg(I), FD, Method ? I - 1 : I);
  } else if (const auto *Call = dyn_cast<CallExpr>(S)) {
    for (unsigned I = 0; I < Call->getNumArgs(); ++I)
      noteArgument(Call->getArg(I), Call->getDirectCallee(), I);
  } else if (const auto *CE = dyn_cast<CXXConstructExpr>(S)) {
    for (unsigned I = 0; I < CE->getNumArgs(); ++I)
      noteArgument(CE->getArg(I), CE->getConstructor(), I);
  } else if (const auto *UO = dyn_cast<UnaryOperator>(S)) {
    if (UO->getOpcode() == UO_AddrOf)
      if (const FieldDecl *F = followedField(UO->getSubExpr()))
        Index.Escaped.insert(F);
  } else if (const auto *DS = dyn_cast<DeclStmt>(S)) {
    for (const Decl *D : DS->decls())
      if (const auto *V = dyn_cast<VarDecl>(D))
        if (isNonConstLValueReference(V->getType()))
          if (const FieldDecl *F = followedField(V->getInit()))
            Index.Escaped.insert(F);
  } else if (const auto *ILE = dyn_cast<InitListExpr>(S)) {
    // `Sample{image, label}`: the members in declaration order.
    const InitListExpr *Sem =
        ILE->isSemanticForm() ? ILE : ILE->getSemanticForm();
    const auto *RD = Sem ? Sem->getType()->getAsCXXRecordDecl() : nullptr;
    if (RD && RD->hasDefinition() && RD->getNumBases() == 0 &&
        !Sem->isTransparent() && !RD->isUnion()) {
      unsigned I = 0;
      for (const FieldDecl *F : RD->fields()) {
        if (I >= Sem->getNumInits())
          break;
        const Expr *Init = Sem->getInit(I++);
        if (isFollowedField(F) && !isa<ImplicitValueInitExpr>(Init))
          Index.Stores[F].push_back({Init, Fn});
      }
    }
  }
}

void collectCalls(const Stmt *S, const FunctionDecl *Caller) {
  if (!S)
    return;
  if (const auto *Call = dyn_cast<CallExpr>(S))
    if (!isa<CXXOperatorCallExpr>(Call))
      if (const FunctionDecl *FD = Call->getDirectCallee())
        if (isUserFunction(FD))
          Index.Calls[FD->getCanonicalDecl()].push_back({Call, Caller});
  noteMemberUses(S, Caller);
  if (const auto *Lambda = dyn_cast<LambdaExpr>(S))
    return collectCalls(Lambda->getBody(), Caller);
  for (const Stmt *Child : S->children())
    collectCalls(Child, Caller);
}

void ensureIndex(ASTContext &Ctx) {
  if (Index.Ctx == &Ctx)
    return;
  Index = UnitIndex();
  Index.Ctx = &Ctx;
  for (const FunctionDecl *Fn : libtorch::programFunctionDefinitions(Ctx)) {
    if (const auto *Ctor = dyn_cast<CXXConstructorDecl>(Fn))
      for (const CXXCtorInitializer *Init : Ctor->inits()) {
        const FieldDecl *F = Init->getMember();
        if (!isFollowedField(F) || !Init->getInit())
          continue;
        const Expr *Value = Init->getInit();
        const auto *CE = dyn_cast<CXXConstructExpr>(ast::stripImplicit(Value));
        if (!(CE && CE->getNumArgs() == 0))
          Index.Stores[F].push_back({Value, Fn});
        collectCalls(Value, Fn);
      }
    collectCalls(Fn->getBody(), Fn);
  }
}

/// `v[i]`, `v.at(i)`, `v.back()`, `v.front()`: an element of \p V.
bool isElementOf(const Expr *E, const VarDecl *V) {
  E = ast::stripImplicit(E);
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E))
    return Op->getOperator() == OO_Subscript &&
           ast::namesDecl(Op->getArg(0), V);
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(E)) {
    const CXXMethodDecl *MD = MC->getMethodDecl();
    return MD && MD->getIdentifier() &&
           (MD->getName() == "at" || MD->getName() == "back" ||
            MD->getName() == "front") &&
           ast::namesDecl(MC->getImplicitObjectArgument(), V);
  }
  return false;
}

/// The element writes of the sequence \p V (a local, or a parameter taken by
/// reference) in \p S, a part of \p Fn; a call that takes \p V by non-const
/// reference writes what its body writes into that parameter. False when
/// \p V is changed in a way that is not followed.
bool elementWrites(const Stmt *S, const VarDecl *V, const FunctionDecl *Fn,
                   llvm::SmallVectorImpl<Written> &Out, unsigned Depth = 0) {
  if (!S)
    return true;
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(S)) {
    const CXXMethodDecl *MD = MC->getMethodDecl();
    if (MD && ast::namesDecl(MC->getImplicitObjectArgument(), V) &&
        !MD->isConst()) {
      StringRef Name = MD->getIdentifier() ? MD->getName() : "";
      if ((Name == "push_back" || Name == "emplace_back") &&
          MC->getNumArgs() == 1)
        Out.push_back({MC->getArg(0), Fn});
      else if (Name != "reserve" && Name != "clear" && Name != "pop_back" &&
               Name != "at" && Name != "back" && Name != "front" &&
               Name != "begin" && Name != "end" && Name != "size")
        return false;
    }
  } else if (auto [LHS, RHS] = ast::asAssignment(S); LHS) {
    if (isElementOf(LHS, V))
      Out.push_back({RHS, Fn});
    else if (ast::namesDecl(LHS, V))
      return false;
  } else if (const auto *Call = dyn_cast<CallExpr>(S);
             Call && !isa<CXXOperatorCallExpr>(Call)) {
    const FunctionDecl *FD = Call->getDirectCallee();
    for (unsigned I = 0; I < Call->getNumArgs(); ++I) {
      if (!ast::namesDecl(Call->getArg(I), V))
        continue;
      if (!FD || I >= FD->getNumParams())
        return false;
      QualType T = FD->getParamDecl(I)->getType();
      if (!T->isReferenceType() || T.getNonReferenceType().isConstQualified())
        continue;
      const FunctionDecl *Def = nullptr;
      if (!isUserFunction(FD) || !FD->hasBody(Def) ||
          Def->isDependentContext() || Depth >= 3 ||
          !elementWrites(Def->getBody(), Def->getParamDecl(I), Def, Out,
                         Depth + 1))
        return false;
    }
  }
  if (const auto *Lambda = dyn_cast<LambdaExpr>(S))
    return elementWrites(Lambda->getBody(), V, Fn, Out, Depth);
  for (const Stmt *Child : S->children())
    if (!elementWrites(Child, V, Fn, Out, Depth))
      return false;
  return true;
}

/// A call of the user's function: its canonical declaration, or null.
const FunctionDecl *userCall(const Expr *E) {
  const auto *Call = dyn_cast_or_null<CallExpr>(ast::stripCopiesAndMoves(E));
  const FunctionDecl *FD = Call ? Call->getDirectCallee() : nullptr;
  return isUserFunction(FD) && !isa<CXXOperatorCallExpr>(Call)
             ? FD->getCanonicalDecl()
             : nullptr;
}

/// A tensor-sequence variable named by \p Seq: a parameter, or a local of
/// a function (not of a lambda).
const VarDecl *sequenceVariable(const Expr *Seq) {
  const auto *DRE =
      dyn_cast_or_null<DeclRefExpr>(ast::stripCopiesAndMoves(Seq));
  const auto *V = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
  if (!V || !libtorch::isTensorSequenceType(V->getType()) ||
      !(isa<ParmVarDecl>(V) || V->isLocalVarDecl()))
    return nullptr;
  const auto *Fn = dyn_cast<FunctionDecl>(V->getDeclContext());
  const auto *MD = dyn_cast_or_null<CXXMethodDecl>(Fn);
  return Fn && !(MD && MD->getParent()->isLambda()) ? V : nullptr;
}

/// True for a torch::Device or DeviceType.
bool isDeviceType(QualType T) {
  libtorch::Carrier C = libtorch::carrierOf(T.getNonReferenceType());
  return libtorch::holdsDevice(C);
}

/// True for a module, a module holder or a pointer to a module.
bool isModuleType(QualType T) {
  return libtorch::carrierOf(T.getNonReferenceType()) ==
         libtorch::Carrier::Module;
}

/// The devices \p E (a tensor, a tensor sequence, a module or a
/// torch::Device,
/// evaluated in \p Fn) can have; false when one of them cannot be followed.
bool sourcesOf(const Expr *E, const FunctionDecl *Fn,
               llvm::SmallVectorImpl<DeviceValue> &Out) {
  if (!E || !Fn)
    return false;
  // A default argument left to the callee's declaration: followed when it
  // is a device constant (`torch::Device device = torch::kCPU`).
  if (const auto *Default = dyn_cast<CXXDefaultArgExpr>(E)) {
    std::optional<DeviceValue> V =
        constantDeviceType(ast::stripCopiesAndConversions(Default->getExpr()),
                           Fn->getASTContext());
    if (!V || !isDeviceType(E->getType()))
      return false;
    Out.push_back(*V);
    return true;
  }
  // A device, or a module: where the caller moved it (`model->to(device)`).
  if (isDeviceType(E->getType()) || isModuleType(E->getType())) {
    Out.push_back(asInheritedParameter(
        DeviceFlow::getForCallers(Fn, Fn->getASTContext()).deviceOf(E)));
    return true;
  }
  // A tensor, or a dataset's example (`return {image, label};`).
  if (libtorch::isTensorType(E->getType()) ||
      libtorch::carrierOf(E->getType()) == libtorch::Carrier::Example) {
    Out.push_back(
        DeviceFlow::getForCallers(Fn, Fn->getASTContext()).deviceOf(E));
    return true;
  }
  if (const Decl *Root = libtorch::isTensorSequenceType(E->getType())
                             ? sequenceRoot(E)
                             : nullptr) {
    Out.push_back(DeviceValue::inherited(Root));
    return true;
  }
  return false;
}

/// The devices that flow into \p Root: the arguments of every call of a
/// parameter's function, the returned values of a function, or the values
/// stored in a member; false when they cannot all be followed.
bool inflowOf(const Decl *Root, llvm::SmallVectorImpl<DeviceValue> &Out) {
  if (const auto *P = dyn_cast<ParmVarDecl>(Root)) {
    const auto *Fn = dyn_cast<FunctionDecl>(P->getDeclContext());
    if (!Fn)
      return false;
    // A function other files can call needs a call here; one they cannot
    // call, and this file never calls, passes nothing.
    auto It = Index.Calls.find(Fn->getCanonicalDecl());
    if (It == Index.Calls.end() || It->second.empty())
      return !Fn->isExternallyVisible();
    unsigned I = P->getFunctionScopeIndex();
    for (const CallSite &Site : It->second)
      if (I >= Site.Call->getNumArgs() ||
          !sourcesOf(Site.Call->getArg(I), Site.Caller, Out))
        return false;
    return true;
  }
  if (const auto *F = dyn_cast<FieldDecl>(Root)) {
    auto It = Index.Stores.find(F);
    if (It == Index.Stores.end() || Index.Escaped.contains(F) ||
        F->hasInClassInitializer())
      return false;
    for (const Written &W : It->second)
      if (!sourcesOf(W.Value, W.In, Out))
        return false;
    return true;
  }
  if (const auto *V = dyn_cast<VarDecl>(Root)) {
    const auto *Fn = dyn_cast<FunctionDecl>(V->getDeclContext());
    if (!Fn || !Fn->getBody())
      return false;
    if (const Expr *Init = V->getInit()) {
      const auto *CE = dyn_cast<CXXConstructExpr>(ast::stripImplicit(Init));
      if (!(CE && CE->getNumArgs() == 0) && !sourcesOf(Init, Fn, Out))
        return false;
    }
    llvm::SmallVector<Written, 4> Values;
    if (!elementWrites(Fn->getBody(), V, Fn, Values))
      return false;
    for (const Written &W : Values)
      if (!sourcesOf(W.Value, W.In, Out))
        return false;
    return true;
  }
  const auto *FD = dyn_cast<FunctionDecl>(Root);
  const FunctionDecl *Def = nullptr;
  if (!FD || !FD->hasBody(Def) || Def->isDependentContext() ||
      !isUserFunction(Def))
    return false;
  llvm::SmallVector<const Expr *, 4> Returns;
  ast::returnValues(Def->getBody(), Returns);
  if (Returns.empty())
    return false;
  for (const Expr *R : Returns)
    if (!sourcesOf(R, Def, Out))
      return false;
  return true;
}
} // namespace

DeviceValue asInheritedParameter(const DeviceValue &V) {
  if (V.kind() != DeviceValue::OnDevice)
    return V;
  const auto *P = dyn_cast_or_null<ParmVarDecl>(V.decl());
  const auto *Fn = P ? dyn_cast<FunctionDecl>(P->getDeclContext()) : nullptr;
  return Fn && isUserFunction(Fn) ? DeviceValue::inherited(P) : V;
}

const Decl *sequenceRoot(const Expr *Seq) {
  if (const FunctionDecl *Callee = userCall(Seq))
    return Callee;
  return sequenceVariable(Seq);
}

bool inheritsCPU(const DeviceValue &Value, ASTContext &Ctx, bool InThisUnit) {
  const DeviceValue V = asInheritedParameter(Value);
  if (V.kind() != DeviceValue::Inherited || !V.root() ||
      (exportsUnitFacts() && !InThisUnit))
    return false;
  ensureIndex(Ctx);
  auto Known = Index.Answers.find(V.root());
  if (Known != Index.Answers.end())
    return Known->second;
  // Depth first over the roots that flow in; any value that is not the
  // CPU, or cannot be followed, answers no. A root seen before adds nothing.
  // At least one CPU tensor must arrive.
  constexpr unsigned MaxRoots = 64;
  llvm::SmallVector<const Decl *, 8> Work{V.root()};
  llvm::DenseSet<const Decl *> Seen{V.root()};
  bool OnCPU = true, SawCPU = false;
  while (OnCPU && !Work.empty()) {
    const Decl *Root = Work.pop_back_val();
    llvm::SmallVector<DeviceValue, 8> In;
    if (!inflowOf(Root, In)) {
      OnCPU = false;
      break;
    }
    for (const DeviceValue &D : In) {
      SawCPU |= D.isCPU();
      if (D.isCPU())
        continue;
      if (D.kind() != DeviceValue::Inherited || !D.root() ||
          Seen.size() >= MaxRoots) {
        OnCPU = false;
        break;
      }
      if (Seen.insert(D.root()).second)
        Work.push_back(D.root());
    }
  }
  OnCPU &= SawCPU;
  Index.Answers[V.root()] = OnCPU;
  return OnCPU;
}

bool exportsUnitFacts() {
  static const bool Exports = [] {
    const char *Path = std::getenv("TORCH_TIDY_UNIT_FACTS");
    return Path && *Path;
  }();
  return Exports;
}

std::string functionKey(const FunctionDecl *FD) {
  FD = FD->getCanonicalDecl();
  std::string Key;
  llvm::raw_string_ostream OS(Key);
  if (!FD->isExternallyVisible())
    OS << FD->getASTContext().getSourceManager().getFilename(FD->getLocation())
       << "#";
  OS << FD->getQualifiedNameAsString() << "(";
  PrintingPolicy Policy(FD->getASTContext().getLangOpts());
  for (const ParmVarDecl *P : FD->parameters())
    OS << (P == FD->getParamDecl(0) ? "" : ",")
       << P->getType().getCanonicalType().getAsString(Policy);
  OS << ")";
  if (const auto *MD = dyn_cast<CXXMethodDecl>(FD); MD && MD->isConst())
    OS << " const";
  return Key;
}

std::vector<std::string> functionKeysOfCalls(const FunctionDecl *FD) {
  std::vector<std::string> Keys{functionKey(FD)};
  llvm::SmallVector<const CXXMethodDecl *, 4> Work;
  if (const auto *MD = dyn_cast<CXXMethodDecl>(FD))
    Work.push_back(MD);
  while (!Work.empty())
    for (const CXXMethodDecl *Base : Work.pop_back_val()->overridden_methods())
      if (!libtorch::isLibraryDecl(Base)) {
        Keys.push_back(functionKey(Base));
        Work.push_back(Base);
      }
  llvm::sort(Keys);
  Keys.erase(std::unique(Keys.begin(), Keys.end()), Keys.end());
  return Keys;
}

namespace {

/// The name every translation unit gives the member \p F: its class's
/// qualified name and its own, with the file for a class of internal
/// linkage.
std::string memberKey(const FieldDecl *F) {
  const auto *RD = cast<CXXRecordDecl>(F->getParent());
  std::string Key;
  llvm::raw_string_ostream OS(Key);
  if (!RD->isExternallyVisible())
    OS << RD->getASTContext().getSourceManager().getFilename(RD->getLocation())
       << "#";
  OS << RD->getQualifiedNameAsString() << "::" << F->getName();
  return Key;
}

std::string valueKey(const DeviceValue &V) {
  if (V.isCPU())
    return ProgramFacts::cpu();
  if (V.kind() != DeviceValue::Inherited || !V.root())
    return ProgramFacts::other();
  if (const auto *P = dyn_cast<ParmVarDecl>(V.root())) {
    const auto *Fn = dyn_cast<FunctionDecl>(P->getDeclContext());
    if (!Fn || !isUserFunction(Fn))
      return ProgramFacts::other();
    return ProgramFacts::parameter(P->getFunctionScopeIndex(), functionKey(Fn));
  }
  if (const auto *Fn = dyn_cast<FunctionDecl>(V.root()))
    return ProgramFacts::returnOf(functionKey(Fn));
  if (const auto *F = dyn_cast<FieldDecl>(V.root()))
    return ProgramFacts::member(memberKey(F));
  return ProgramFacts::other();
}

bool carriesTensors(QualType T) {
  return libtorch::isTensorType(T) || libtorch::isTensorSequenceType(T) ||
         libtorch::carrierOf(T) == libtorch::Carrier::Example;
}

bool carriesDevices(QualType T) {
  return carriesTensors(T) || isDeviceType(T) || isModuleType(T);
}

/// The ProgramFacts values of \p V: a local sequence stands for what is
/// put into it, which other units cannot name.
void keysOf(const DeviceValue &V, std::set<std::string> &Keys,
            llvm::DenseSet<const Decl *> &Seen) {
  const Decl *Root = V.kind() == DeviceValue::Inherited ? V.root() : nullptr;
  if (!Root || !isa<VarDecl>(Root) || isa<ParmVarDecl>(Root)) {
    Keys.insert(valueKey(V));
    return;
  }
  if (!Seen.insert(Root).second)
    return;
  llvm::SmallVector<DeviceValue, 4> In;
  if (!inflowOf(Root, In)) {
    Keys.insert(ProgramFacts::other());
    return;
  }
  for (const DeviceValue &D : In)
    keysOf(D, Keys, Seen);
}

/// Appends to \p Out the fact lines of \p Values flowing into one root.
void addFacts(bool Followed, llvm::ArrayRef<DeviceValue> Values,
              llvm::function_ref<std::string(llvm::StringRef)> Line,
              std::set<std::string> &Out) {
  std::set<std::string> Keys;
  llvm::DenseSet<const Decl *> Seen;
  if (!Followed)
    Keys.insert(ProgramFacts::other());
  else
    for (const DeviceValue &V : Values)
      keysOf(V, Keys, Seen);
  for (const std::string &K : Keys)
    Out.insert(Line(K));
}
} // namespace

std::optional<std::pair<std::string, unsigned>>
findingPosition(SourceLocation Loc, const SourceManager &SM) {
  Loc = SM.getFileLoc(Loc);
  OptionalFileEntryRef File = SM.getFileEntryRefForID(SM.getFileID(Loc));
  if (!File)
    return std::nullopt;
  llvm::SmallString<256> Path(File->getName());
  SM.getFileManager().makeAbsolutePath(Path);
  llvm::sys::path::remove_dots(Path, /*remove_dot_dot=*/true);
  return std::make_pair(Path.str().str(), SM.getFileOffset(Loc));
}

void deferToProgram(SourceLocation Loc, const DeviceValue &Value,
                    ASTContext &Ctx, bool SizeLoop) {
  const DeviceValue V = asInheritedParameter(Value);
  if (!exportsUnitFacts() || V.kind() != DeviceValue::Inherited)
    return;
  ensureIndex(Ctx);
  auto Pos = findingPosition(Loc, Ctx.getSourceManager());
  if (!Pos)
    return;
  addFacts(
      true, V,
      [&](llvm::StringRef Value) {
        return SizeLoop
                   ? ProgramFacts::sizeLoopDeferredFact(Pos->first, Pos->second,
                                                        Value)
                   : ProgramFacts::deferredFact(Pos->first, Pos->second, Value);
      },
      Index.Deferred);
}

std::vector<std::pair<const FunctionDecl *, CallSite>>
callSitesInUnit(ASTContext &Ctx) {
  ensureIndex(Ctx);
  std::vector<std::pair<const FunctionDecl *, CallSite>> Out;
  for (const auto &[Callee, Sites] : Index.Calls)
    for (const CallSite &S : Sites)
      Out.push_back({Callee, S});
  // The index is a hash map: give the calls in source order.
  const SourceManager &SM = Ctx.getSourceManager();
  llvm::sort(Out, [&](const auto &A, const auto &B) {
    return SM.isBeforeInTranslationUnit(A.second.Call->getBeginLoc(),
                                        B.second.Call->getBeginLoc());
  });
  return Out;
}

void writeUnitFacts(ASTContext &Ctx) {
  const char *Path = std::getenv("TORCH_TIDY_UNIT_FACTS");
  if (!exportsUnitFacts() || !Path)
    return;
  ensureIndex(Ctx);
  std::set<std::string> Lines = Index.Deferred;
  for (const auto &[Callee, Sites] : Index.Calls) {
    std::string Key = functionKey(Callee);
    for (const ParmVarDecl *P : Callee->parameters()) {
      if (!carriesDevices(P->getType()))
        continue;
      unsigned I = P->getFunctionScopeIndex();
      for (const CallSite &Site : Sites) {
        llvm::SmallVector<DeviceValue, 4> Values;
        bool Followed = I < Site.Call->getNumArgs() &&
                        sourcesOf(Site.Call->getArg(I), Site.Caller, Values);
        addFacts(
            Followed, Values,
            [&](llvm::StringRef V) {
              return ProgramFacts::argumentFact(Key, I, V);
            },
            Lines);
      }
    }
  }
  for (const FunctionDecl *Fn : libtorch::programFunctionDefinitions(Ctx)) {
    if (!isUserFunction(Fn) || !carriesTensors(Fn->getReturnType()))
      continue;
    llvm::SmallVector<DeviceValue, 4> Values;
    bool Followed = inflowOf(Fn, Values);
    std::string Key = functionKey(Fn);
    addFacts(
        Followed, Values,
        [&](llvm::StringRef V) { return ProgramFacts::returnFact(Key, V); },
        Lines);
  }
  // What the unit stores in the followed members; "other" for one it
  // cannot follow.
  auto MemberLine = [](const FieldDecl *F) {
    return [Key = memberKey(F)](llvm::StringRef V) {
      return ProgramFacts::memberFact(Key, V);
    };
  };
  for (const auto &[F, Stores] : Index.Stores) {
    llvm::SmallVector<DeviceValue, 4> Values;
    bool Followed = !Index.Escaped.contains(F) && !F->hasInClassInitializer();
    for (const Written &W : Stores)
      Followed = Followed && sourcesOf(W.Value, W.In, Values);
    addFacts(Followed, Values, MemberLine(F), Lines);
  }
  for (const FieldDecl *F : Index.Escaped)
    addFacts(false, {}, MemberLine(F), Lines);
  std::error_code EC;
  llvm::raw_fd_ostream OS(Path, EC, llvm::sys::fs::OF_Append);
  if (EC)
    return;
  for (const std::string &L : Lines)
    OS << L;
}

llvm::ArrayRef<CallSite> callSitesOf(const FunctionDecl *Fn, ASTContext &Ctx) {
  ensureIndex(Ctx);
  auto It = Index.Calls.find(Fn->getCanonicalDecl());
  if (It == Index.Calls.end())
    return {};
  return It->second;
}

void appendUnitFacts(llvm::StringRef Lines) {
  const char *Path = std::getenv("TORCH_TIDY_UNIT_FACTS");
  if (!exportsUnitFacts() || !Path || Lines.empty())
    return;
  std::error_code EC;
  llvm::raw_fd_ostream OS(Path, EC, llvm::sys::fs::OF_Append);
  if (!EC)
    OS << Lines;
}

void clearCallerDevicesCache() { Index = UnitIndex(); }

} // namespace clang::tidy::torch::device
