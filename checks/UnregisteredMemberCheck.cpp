//===- UnregisteredMemberCheck.cpp - torch-unregistered-member ------------===//
#include "UnregisteredMemberCheck.h"
#include "ast/ASTHelpers.h"
#include "libtorch/DeviceRules.h"
#include "libtorch/ProgramCode.h"
#include "libtorch/TorchModules.h"
#include "libtorch/TorchTypes.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/SmallPtrSet.h"
#include <functional>

using namespace clang::ast_matchers;

namespace clang::tidy::torch {

using libtorch::MemberKind;

void UnregisteredMemberCheck::registerMatchers(MatchFinder *Finder) {
  auto ModuleClass = cxxRecordDecl(isSameOrDerivedFrom("::torch::nn::Module"));
  Finder->addMatcher(
      cxxRecordDecl(isDefinition(), isDerivedFrom("::torch::nn::Module"))
          .bind("class"),
      this);
  // Functions that assign a member of a module class: reassignments of
  // registered members, in the class or outside it.
  auto MemberAssign = cxxOperatorCallExpr(
      hasOverloadedOperatorName("="),
      hasArgument(0, ignoringParenImpCasts(memberExpr(
                         member(fieldDecl(hasDeclContext(ModuleClass)))))));
  Finder->addMatcher(functionDecl(isDefinition(),
                                  unless(ast::lambdaInFunction()),
                                  hasBody(hasDescendant(MemberAssign)))
                         .bind("fn"),
                     this);
}

void UnregisteredMemberCheck::check(const MatchFinder::MatchResult &Result) {
  if (const auto *RD = Result.Nodes.getNodeAs<CXXRecordDecl>("class"))
    checkClass(RD, Result);
  if (const auto *Fn = Result.Nodes.getNodeAs<FunctionDecl>("fn"))
    checkReassignments(Fn, Result);
}

/// `nullptr`, `{nullptr}`, `()` or an empty tensor: nothing to register.
static bool isNullValue(const Expr *E) {
  E = ast::stripCopiesAndConversions(E);
  if (!E || isa<CXXNullPtrLiteralExpr>(E))
    return true;
  // A holder built without arguments holds a new module
  // (`torch::nn::ModuleList()`); an empty tensor or pointer holds nothing.
  if (const auto *CE = dyn_cast<CXXConstructExpr>(E))
    return (CE->getNumArgs() == 0 &&
            libtorch::moduleMemberKind(CE->getType()) != MemberKind::Holder) ||
           (CE->getNumArgs() == 1 &&
            isa<CXXNullPtrLiteralExpr>(ast::stripImplicit(CE->getArg(0))));
  return false;
}

/// Whether the value is created to be trained: `requires_grad(true)`,
/// `torch::requires_grad()`, `.requires_grad_()`, `.set_requires_grad(true)`.
static bool requiresGrad(const Stmt *S) {
  if (!S)
    return false;
  if (const auto *Call = dyn_cast<CallExpr>(S)) {
    const auto *F = dyn_cast_or_null<FunctionDecl>(Call->getCalleeDecl());
    if (F && F->getDeclName().isIdentifier()) {
      StringRef N = F->getName();
      if (N == "requires_grad" || N == "requires_grad_" ||
          N == "set_requires_grad") {
        const Expr *Arg = Call->getNumArgs() > 0
                              ? ast::stripCopiesAndConversions(Call->getArg(0))
                              : nullptr;
        const auto *Lit = dyn_cast_or_null<CXXBoolLiteralExpr>(Arg);
        if (!Lit || Lit->getValue())
          return true;
      }
    }
  }
  for (const Stmt *Child : S->children())
    if (requiresGrad(Child))
      return true;
  return false;
}

static StringRef registerMethod(MemberKind Kind, const Stmt *Value) {
  if (Kind != MemberKind::Tensor)
    return "register_module";
  return requiresGrad(Value) ? "register_parameter" : "register_buffer";
}

namespace {
/// One place where a class's code gives a member a value.
struct Assignment {
  enum PlaceTy : unsigned char { Ctor, Reset, InClass, Method } Place;
  const Expr *Value = nullptr;              ///< the assigned value
  const CXXCtorInitializer *Init = nullptr; ///< mem-initializer form
  const FunctionDecl *Fn = nullptr;
  SourceLocation Loc;
  /// A container filled in place (`list->push_back(...)`): no value to wrap.
  bool Filled = false;
};
} // namespace

/// `F->push_back(m)`, `F->extend(...)`, `F->insert(...)`, `F->update(...)`
/// on a container field F of `this` below \p S: its first such call.
static const CXXMemberCallExpr *firstFill(const Stmt *S, const FieldDecl *F) {
  if (!S || isa<LambdaExpr>(S))
    return nullptr;
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(S)) {
    const CXXMethodDecl *MD = MC->getMethodDecl();
    const Expr *Object = ast::stripImplicit(MC->getImplicitObjectArgument());
    if (const auto *Arrow = dyn_cast<CXXOperatorCallExpr>(Object);
        Arrow && Arrow->getOperator() == OO_Arrow)
      Object = Arrow->getArg(0);
    if (MD && MD->getIdentifier() &&
        llvm::is_contained({"push_back", "extend", "insert", "update"},
                           MD->getName()) &&
        ast::thisField(Object) == F)
      return MC;
  }
  for (const Stmt *Child : S->children())
    if (const CXXMemberCallExpr *Found = firstFill(Child, F))
      return Found;
  return nullptr;
}

/// Assignments `F = value;` to fields of `this` below \p S.
static void collectAssignments(
    const Stmt *S, const FunctionDecl *Fn, Assignment::PlaceTy Place,
    llvm::DenseMap<const FieldDecl *, SmallVector<Assignment, 2>> &Out) {
  if (!S)
    return;
  if (auto [LHS, RHS] = ast::asAssignment(S); LHS)
    if (const FieldDecl *FD = ast::thisField(LHS);
        FD && Out.count(FD) && !isNullValue(RHS))
      Out[FD].push_back({Place, RHS, nullptr, Fn, S->getBeginLoc()});
  for (const Stmt *Child : S->children())
    collectAssignments(Child, Fn, Place, Out);
}

/// Wraps the value of \p A in `register_xxx("name", ...)`; nothing if the
/// code cannot be rewritten safely (macros, braced lists).
static void addRegistrationFix(DiagnosticBuilder &D, const FieldDecl *FD,
                               MemberKind Kind, const Assignment &A,
                               const SourceManager &SM, const LangOptions &LO) {
  std::string Prefix =
      (registerMethod(Kind, A.Value) + "(\"" + FD->getName() + "\", ").str();
  if (!A.Init) {
    SourceRange R = A.Value->getSourceRange();
    if (R.getBegin().isMacroID() || R.getEnd().isMacroID() ||
        isa<InitListExpr>(ast::stripImplicit(A.Value)))
      return;
    D << FixItHint::CreateInsertion(R.getBegin(), Prefix)
      << FixItHint::CreateInsertion(
             Lexer::getLocForEndOfToken(R.getEnd(), 0, SM, LO), ")");
    return;
  }
  SourceLocation L = A.Init->getLParenLoc(), R = A.Init->getRParenLoc();
  if (L.isInvalid() || R.isInvalid() || L.isMacroID() || R.isMacroID())
    return;
  // `fc(4, 2)` constructs the member from arguments: name its type.
  const Expr *E = ast::stripImplicit(A.Value);
  const auto *CE = dyn_cast<CXXConstructExpr>(E);
  bool FromArgs = CE && !isa<CXXTemporaryObjectExpr>(CE) &&
                  (CE->getNumArgs() != 1 ||
                   libtorch::moduleMemberKind(CE->getArg(0)->getType()) ==
                       MemberKind::None ||
                   (Kind == MemberKind::Tensor) !=
                       (libtorch::moduleMemberKind(CE->getArg(0)->getType()) ==
                        MemberKind::Tensor));
  if (FromArgs) {
    std::string Type =
        ast::sourceText(FD->getTypeSourceInfo()->getTypeLoc().getSourceRange(),
                        SM, LO)
            .str();
    bool Brace = *SM.getCharacterData(L) == '{';
    if (Type.empty())
      return;
    Prefix += Type + (Brace ? "{" : "(");
    D << FixItHint::CreateInsertion(L.getLocWithOffset(1), Prefix)
      << FixItHint::CreateInsertion(R, Brace ? "})" : "))");
    return;
  }
  D << FixItHint::CreateInsertion(L.getLocWithOffset(1), Prefix)
    << FixItHint::CreateInsertion(R, ")");
}

/// Members whose modules a container call in \p Body takes:
/// `seq->extend(*member)`, `list->push_back(member)`.
static llvm::SmallVector<const FieldDecl *, 2>
containedMembers(const Stmt *Body) {
  llvm::SmallVector<const FieldDecl *, 2> Out;
  std::function<void(const Stmt *)> Walk = [&](const Stmt *S) {
    if (!S)
      return;
    if (const auto *Call = dyn_cast<CXXMemberCallExpr>(S)) {
      const CXXMethodDecl *MD = Call->getMethodDecl();
      if (MD && MD->getIdentifier() && libtorch::isLibTorchDecl(MD) &&
          (MD->getName() == "extend" || MD->getName() == "push_back"))
        for (const Expr *A : Call->arguments()) {
          const Expr *Arg = ast::stripCopiesAndConversions(A);
          if (const auto *Deref = dyn_cast_or_null<CXXOperatorCallExpr>(Arg);
              Deref && Deref->getOperator() == OO_Star &&
              Deref->getNumArgs() == 1)
            Arg = ast::stripCopiesAndConversions(Deref->getArg(0));
          if (const auto *ME = dyn_cast_or_null<MemberExpr>(Arg))
            if (const auto *FD = dyn_cast<FieldDecl>(ME->getMemberDecl()))
              Out.push_back(FD);
        }
    }
    for (const Stmt *Child : S->children())
      Walk(Child);
  };
  Walk(Body);
  return Out;
}

/// What an unregistered submodule of class \p RD loses.
enum class SubmoduleLoss : unsigned char {
  Nothing,    ///< a built-in without parameters or train/eval behaviour
  Parameters, ///< its parameters (and it is not moved)
  TrainMode,  ///< train()/eval() never reach it (Dropout)
  TrainModeAndParameters, ///< both (BatchNorm, InstanceNorm)
};

static SubmoduleLoss submoduleLoss(const CXXRecordDecl *RD) {
  if (!RD || !RD->getIdentifier() || !libtorch::isLibTorchDecl(RD))
    return SubmoduleLoss::Parameters; // a user module, or not known
  StringRef N = RD->getName();
  N.consume_back("Impl");
  bool Mode = N.contains("Dropout") || N.starts_with("BatchNorm") ||
              N.starts_with("InstanceNorm");
  // A container (`ModuleList`, `ModuleDict`) has none of its own, but holds
  // the modules pushed into it.
  bool Params = libtorch::moduleHasParameters(RD) ||
                N.starts_with("InstanceNorm") || N == "ModuleList" ||
                N == "ModuleDict";
  if (Mode)
    return Params ? SubmoduleLoss::TrainModeAndParameters
                  : SubmoduleLoss::TrainMode;
  return Params ? SubmoduleLoss::Parameters : SubmoduleLoss::Nothing;
}

/// True for a torch::nn::Module subclass used as a plain container of
/// tensors (a replay buffer created on its device): it registers nothing,
/// holds no submodule, and neither it nor a base of the program's has
/// forward() or operator(), so nothing treats it as a model.
static bool isStorageOnly(const CXXRecordDecl *RD,
                          const libtorch::ModuleRegistrations &Regs) {
  if (!Regs.Fields.empty() || !RD->hasDefinition() ||
      llvm::any_of(RD->fields(), [](const FieldDecl *FD) {
        MemberKind K = libtorch::moduleMemberKind(FD->getType());
        return K != MemberKind::None && K != MemberKind::Tensor;
      }))
    return false;
  // LibTorch's own bases (torch::nn::Module) do not count.
  auto Computes = [](const CXXRecordDecl *C) {
    return !libtorch::isLibraryDecl(C) &&
           llvm::any_of(C->methods(), [](const CXXMethodDecl *M) {
             return M->getOverloadedOperator() == OO_Call ||
                    (M->getIdentifier() && M->getName() == "forward");
           });
  };
  const CXXRecordDecl *Def = RD->getDefinition();
  return !Computes(Def) && Def->forallBases([&](const CXXRecordDecl *Base) {
    return !Computes(Base);
  });
}

void UnregisteredMemberCheck::checkClass(
    const CXXRecordDecl *RD, const MatchFinder::MatchResult &Result) {
  const SourceManager &SM = *Result.SourceManager;
  const LangOptions &LO = Result.Context->getLangOpts();
  if (ast::isTemplateCode(RD) ||
      libtorch::isLibraryLocation(SM, RD->getLocation()))
    return;
  const libtorch::ModuleRegistrations &Regs = Modules->registrations(RD, SM);
  if (!Regs.Complete || isStorageOnly(RD, Regs))
    return;

  llvm::DenseMap<const FieldDecl *, SmallVector<Assignment, 2>> Assigned;
  for (const FieldDecl *FD : RD->fields())
    if (libtorch::moduleMemberKind(FD->getType()) != MemberKind::None &&
        !Regs.find(FD))
      Assigned[FD];
  if (Assigned.empty())
    return;
  // `network->extend(*fc_)`, `layers->push_back(block_)`: the member's
  // modules are registered through the container that takes them.
  for (const CXXMethodDecl *M : RD->methods()) {
    const FunctionDecl *Def = nullptr;
    if (M->hasBody(Def))
      for (const FieldDecl *FD : containedMembers(Def->getBody()))
        Assigned.erase(FD);
  }
  if (Assigned.empty())
    return;

  for (const CXXMethodDecl *M : RD->methods()) {
    const FunctionDecl *Def = nullptr;
    if (!M->hasBody(Def) || M->isImplicit())
      continue;
    bool Named = M->getDeclName().isIdentifier();
    // A value recomputed in each forward() is deliberately plain.
    if (Named && M->getName() == "forward")
      continue;
    Assignment::PlaceTy Place = Assignment::Method;
    if (const auto *Ctor = dyn_cast<CXXConstructorDecl>(Def)) {
      Place = Assignment::Ctor;
      for (const CXXCtorInitializer *Init : Ctor->inits())
        if (Init->isWritten() && Init->isMemberInitializer() &&
            Assigned.count(Init->getMember()) && !isNullValue(Init->getInit()))
          Assigned[Init->getMember()].push_back(
              {Place, Init->getInit(), Init, Def, Init->getSourceLocation()});
    } else if (Named && M->getName() == "reset") {
      Place = Assignment::Reset;
    }
    collectAssignments(Def->getBody(), Def, Place, Assigned);
  }
  for (auto &[FD, List] : Assigned)
    if (const Expr *Init = FD->getInClassInitializer();
        Init && !isNullValue(Init))
      List.push_back(
          {Assignment::InClass, Init, nullptr, nullptr, FD->getLocation()});
  // A container member left to its default constructor and filled by a
  // constructor (`torch::nn::ModuleList blocks;` ... `blocks->push_back(b)`).
  for (auto &[FD, List] : Assigned) {
    const CXXRecordDecl *Class = libtorch::moduleClassOf(FD->getType());
    StringRef Name = Class && Class->getIdentifier() ? Class->getName() : "";
    if (!List.empty() || FD->hasInClassInitializer() ||
        libtorch::moduleMemberKind(FD->getType()) != MemberKind::Holder ||
        !(Name == "ModuleListImpl" || Name == "ModuleDictImpl" ||
          Name == "SequentialImpl"))
      continue;
    for (const CXXConstructorDecl *Ctor : RD->ctors()) {
      const FunctionDecl *Def = nullptr;
      if (!Ctor->hasBody(Def))
        continue;
      if (const CXXMemberCallExpr *Fill = firstFill(Def->getBody(), FD)) {
        List.push_back({Assignment::Ctor, Fill, nullptr, Def,
                        Fill->getBeginLoc(), /*Filled=*/true});
        break;
      }
    }
  }

  // Report fields in declaration order.
  for (const FieldDecl *FD : RD->fields()) {
    auto It = Assigned.find(FD);
    if (It == Assigned.end() || It->second.empty())
      continue;
    auto &List = It->second;
    // By place, then source order (std::stable_sort would trip a libstdc++
    // deprecation warning under clang).
    std::sort(List.begin(), List.end(),
              [](const Assignment &A, const Assignment &B) {
                if (A.Place != B.Place)
                  return A.Place < B.Place;
                return A.Loc < B.Loc;
              });
    MemberKind Kind = libtorch::moduleMemberKind(FD->getType());
    const Assignment &First = List.front();
    bool Tensor = Kind == MemberKind::Tensor;
    SubmoduleLoss Loss =
        Tensor ? SubmoduleLoss::Parameters
               : submoduleLoss(libtorch::moduleClassOf(FD->getType()));
    if (Loss == SubmoduleLoss::Nothing)
      continue; // pooling, activations, Flatten: nothing to register
    StringRef Message;
    if (Tensor)
      Message = "tensor member '%0' is never registered; it is missing from "
                "parameters() and buffers(), so an optimizer never sees it "
                "and module->to(device) does not move it; register it with %1";
    else if (Loss == SubmoduleLoss::TrainMode)
      Message = "submodule '%0' is never registered, so train() and eval() "
                "never reach it: it stays in training mode and keeps "
                "dropping activations at evaluation; register it with %1";
    else if (Loss == SubmoduleLoss::TrainModeAndParameters)
      Message = "submodule '%0' is never registered, so train() and eval() "
                "never reach it: it keeps normalising with batch statistics "
                "at evaluation, its parameters are missing from "
                "parameters() and module->to(device) does not move it; "
                "register it with %1";
    else
      Message = "submodule '%0' is never registered; its parameters are "
                "missing from parameters(), so an optimizer never updates "
                "them, and module->to(device) does not move it; register it "
                "with %1";
    {
      auto D = diag(First.Loc, Message)
               << FD->getName() << registerMethod(Kind, First.Value);
      // Fix where the member is initialised: each constructor, or reset() of
      // a Cloneable (which its constructor calls).
      bool InReset = llvm::any_of(List, [](const Assignment &A) {
        return A.Place == Assignment::Reset;
      });
      llvm::SmallPtrSet<const FunctionDecl *, 4> Fixed;
      for (const Assignment &A : List)
        if (A.Place == (InReset ? Assignment::Reset : Assignment::Ctor) &&
            !A.Filled && Fixed.insert(A.Fn).second)
          addRegistrationFix(D, FD, Kind, A, SM, LO);
    }
    diag(FD->getLocation(), "'%0' is declared here", DiagnosticIDs::Note)
        << FD->getName();
  }
}

/// True if \p Value hands back the very tensor \p Target names: an in-place
/// method of it (`w = w.copy_(v)`), or a function of the user's whose every
/// return gives back, unchanged, the parameter \p Target was passed to
/// (`w = assign(w, v)` with `{ left.copy_(right); return left; }`), also
/// through a lambda.
static bool returnsSameTensor(const Expr *Value, const MemberExpr *Target,
                              const SourceManager &SM, const LangOptions &LO) {
  Value = ast::stripCopiesAndConversions(Value);
  StringRef Name = ast::sourceText(Target, SM, LO);
  auto Names = [&](const Expr *E) {
    return !Name.empty() &&
           ast::sourceText(ast::stripCopiesAndConversions(E), SM, LO) == Name;
  };
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Value))
    return libtorch::isInPlaceTensorMethod(MC->getMethodDecl()) &&
           Names(MC->getImplicitObjectArgument());
  const auto *Call = dyn_cast<CallExpr>(Value);
  if (!Call)
    return false;
  // A lambda (`auto assign = [](torch::Tensor left, ...) {...}`) is called
  // through its operator(), with the lambda itself as argument 0.
  unsigned Offset = 0;
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call)) {
    const auto *MD = dyn_cast_or_null<CXXMethodDecl>(Op->getDirectCallee());
    if (Op->getOperator() != OO_Call || !MD || !MD->getParent()->isLambda())
      return false;
    Offset = 1;
  }
  const FunctionDecl *Def = nullptr;
  if (!Call->getDirectCallee() || !Call->getDirectCallee()->hasBody(Def) ||
      libtorch::isLibTorchDecl(Def))
    return false;
  const ParmVarDecl *Returned = nullptr;
  bool Same = true;
  std::function<void(const Stmt *)> Walk = [&](const Stmt *S) {
    if (!S || !Same || isa<LambdaExpr>(S))
      return;
    if (const auto *R = dyn_cast<ReturnStmt>(S)) {
      const auto *Ref = dyn_cast_or_null<DeclRefExpr>(
          R->getRetValue() ? ast::stripCopiesAndConversions(R->getRetValue())
                           : nullptr);
      const auto *P = Ref ? dyn_cast<ParmVarDecl>(Ref->getDecl()) : nullptr;
      Same = P && (!Returned || P == Returned);
      Returned = P;
    } else if (const auto *E = dyn_cast<Expr>(S)) {
      // A parameter rebound in the body may no longer be the argument.
      if (const Expr *LHS = ast::asAssignment(E).first)
        if (const auto *Ref = dyn_cast<DeclRefExpr>(ast::stripImplicit(LHS)))
          Same &= !isa<ParmVarDecl>(Ref->getDecl());
    }
    for (const Stmt *Child : S->children())
      Walk(Child);
  };
  Walk(Def->getBody());
  if (!Same || !Returned)
    return false;
  unsigned I = Returned->getFunctionScopeIndex() + Offset;
  return I < Call->getNumArgs() && Names(Call->getArg(I));
}

/// The variable \p E names (`c` in `replace_module("fc", c)`), if any.
static const VarDecl *registeredVariable(const Expr *E) {
  const auto *Ref =
      dyn_cast_or_null<DeclRefExpr>(ast::stripCopiesAndConversions(E));
  return Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
}

void UnregisteredMemberCheck::checkReassignments(
    const FunctionDecl *Fn, const MatchFinder::MatchResult &Result) {
  const SourceManager &SM = *Result.SourceManager;
  const LangOptions &LO = Result.Context->getLangOpts();
  if (ast::isTemplateCode(Fn))
    return;
  const auto *Method = dyn_cast<CXXMethodDecl>(Fn);

  // Assignments to module members, and by-argument registrations.
  SmallVector<std::pair<const Expr *, const MemberExpr *>, 4> Assigns;
  llvm::SmallPtrSet<const FieldDecl *, 4> RegisteredHere;
  // Variables registered here: `classifier = c; replace_module(name, c);`.
  llvm::SmallPtrSet<const VarDecl *, 4> RegisteredValues;
  std::function<void(const Stmt *)> Walk = [&](const Stmt *S) {
    if (!S)
      return;
    if (const auto *E = dyn_cast<Expr>(S)) {
      if (auto [LHS, RHS] = ast::asAssignment(E); LHS)
        if (const auto *ME = dyn_cast<MemberExpr>(ast::stripImplicit(LHS)))
          Assigns.push_back({E, ME});
      if (const CXXMemberCallExpr *Call = libtorch::asRegisterCall(E);
          Call && Call->getNumArgs() >= 2)
        if (const auto *ME = dyn_cast<MemberExpr>(
                ast::stripCopiesAndConversions(Call->getArg(1))))
          if (const auto *FD = dyn_cast<FieldDecl>(ME->getMemberDecl()))
            RegisteredHere.insert(FD);
      if (const CXXMemberCallExpr *Call = libtorch::asRegisterCall(E);
          Call && Call->getNumArgs() >= 2)
        if (const VarDecl *VD = registeredVariable(Call->getArg(1)))
          RegisteredValues.insert(VD);
    }
    for (const Stmt *Child : S->children())
      Walk(Child);
  };
  Walk(Fn->getBody());

  for (const auto &[E, ME] : Assigns) {
    const auto *FD = dyn_cast<FieldDecl>(ME->getMemberDecl());
    MemberKind Kind =
        FD ? libtorch::moduleMemberKind(FD->getType()) : MemberKind::None;
    const auto *RD = FD ? dyn_cast<CXXRecordDecl>(FD->getParent()) : nullptr;
    if (Kind == MemberKind::None || !libtorch::isModuleClass(RD) ||
        RegisteredHere.count(FD))
      continue;
    const Expr *RHS = ast::asAssignment(E).second;
    if (libtorch::asRegisterCall(RHS) || isNullValue(RHS) ||
        RegisteredValues.count(registeredVariable(RHS)) ||
        returnsSameTensor(RHS, ME, SM, LO))
      continue;
    // The class's constructors and reset() initialise; forward() computes.
    if (Method && Method->getParent() == RD &&
        (isa<CXXConstructorDecl>(Method) ||
         (Method->getDeclName().isIdentifier() &&
          Method->getName() == "reset")))
      continue;
    if (Method && Method->getDeclName().isIdentifier() &&
        Method->getName() == "forward" &&
        (Method->getParent() == RD || Method->getParent()->isDerivedFrom(RD)))
      continue;
    const libtorch::Registration *Reg = Modules->registrations(RD, SM).find(FD);
    if (!Reg)
      continue;
    // A check that reports stale optimizers (torch-stale-optimizer) reports
    // this statement when it applies.
    if (Modules->isReportedStaleReplacement(Fn, E, SM))
      continue;
    StringRef Target = ast::sourceText(ME, SM, LO);
    if (Kind == MemberKind::Tensor) {
      diag(E->getBeginLoc(),
           Reg->Method == "register_buffer"
               ? "'%0' is assigned a new tensor that is not registered; "
                 "buffers() still returns the old one, so module->to(device) "
                 "does not move the new one"
               : "'%0' is assigned a new tensor that is not registered; "
                 "parameters() still returns the old one, so an optimizer "
                 "never sees the new one and module->to(device) does not "
                 "move it")
          << Target;
      diag(E->getBeginLoc(),
           "to keep the registered tensor, update it in place: "
           "'%0.set_data(...)'",
           DiagnosticIDs::Note)
          << Target;
      continue;
    }
    auto D = diag(E->getBeginLoc(),
                  "'%0' is assigned a new module that is not registered; "
                  "parameters() still returns the old module's tensors, so an "
                  "optimizer never sees the new one and module->to(device) "
                  "does not move it")
             << Target;
    // `net->fc = net->replace_module("fc", ...)` registers the new module.
    MemberKind ValueKind = libtorch::moduleMemberKind(RHS->getType());
    const Expr *Base = ast::stripImplicit(ME->getBase());
    if (Reg->Name.empty() || Reg->Method != "register_module" ||
        (ValueKind != MemberKind::Holder &&
         ValueKind != MemberKind::SharedPtr) ||
        (!isa<CXXThisExpr>(Base) && !libtorch::moduleRoot(Base)) ||
        E->getBeginLoc().isMacroID() || RHS->getEndLoc().isMacroID())
      continue;
    std::string Prefix =
        Lexer::getSourceText(CharSourceRange::getCharRange(ME->getBeginLoc(),
                                                           ME->getMemberLoc()),
                             SM, LO)
            .str();
    D << FixItHint::CreateInsertion(RHS->getBeginLoc(),
                                    Prefix + "replace_module(\"" + Reg->Name +
                                        "\", ")
      << FixItHint::CreateInsertion(
             Lexer::getLocForEndOfToken(RHS->getEndLoc(), 0, SM, LO), ")");
  }
}

} // namespace clang::tidy::torch
