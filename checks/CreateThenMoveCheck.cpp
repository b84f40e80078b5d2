//===- CreateThenMoveCheck.cpp - torch-create-then-move -------------------===//
#include "CreateThenMoveCheck.h"
#include "ast/ASTHelpers.h"
#include "ast/CheckOptions.h"
#include "ast/ConstantStrings.h"
#include "device/DeviceDiagnostics.h"
#include "device/DeviceFlow.h"
#include "libtorch/DeviceRules.h"
#include "libtorch/ProgramCode.h"
#include "libtorch/TorchTypes.h"
#include "clang/AST/ASTContext.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Lex/Lexer.h"
#include <functional>

using namespace clang::ast_matchers;

namespace clang::tidy::torch {

using device::DeviceFlow;
using device::DeviceValue;
using libtorch::FactoryKind;

CreateThenMoveCheck::CreateThenMoveCheck(StringRef Name,
                                         ClangTidyContext *Context)
    : DeviceFlowCheck(Name, Context),
      ReportRandomFactories(
          ast::getBoolOption(*this, Options, "ReportRandomFactories", true)) {}

void CreateThenMoveCheck::storeOptions(ClangTidyOptions::OptionMap &Opts) {
  DeviceFlowCheck::storeOptions(Opts);
  Options.store(Opts, "ReportRandomFactories", ReportRandomFactories);
}

void CreateThenMoveCheck::registerMatchers(MatchFinder *Finder) {
  // A conversion; check() asks whether its receiver is a factory that
  // allocates on the CPU, through views and dtype conversions, or a
  // variable such a factory set in the statement before.
  auto Move = cxxMemberCallExpr(callee(
      cxxMethodDecl(hasAnyName("to", "cuda"), libtorch::tensorMethod())));
  Finder->addMatcher(functionDecl(isDefinition(),
                                  unless(libtorch::isLibraryCode()),
                                  unless(ast::lambdaInFunction()),
                                  hasBody(forEachDescendant(Move.bind("move"))))
                         .bind("fn"),
                     this);
  // A member created in a constructor's initializer list.
  Finder->addMatcher(
      cxxConstructorDecl(
          isDefinition(), unless(libtorch::isLibraryCode()),
          forEachConstructorInitializer(cxxCtorInitializer(
              withInitializer(forEachDescendant(Move.bind("move"))))))
          .bind("fn"),
      this);
}

/// Factories that allocate and fill new memory: not torch::tensor(data) or
/// from_blob (host data that has to cross anyway), not *_like (their
/// device comes from the other tensor).
static bool allocatesOnItsOwn(FactoryKind K) {
  return K == FactoryKind::Sized || K == FactoryKind::Scalar ||
         K == FactoryKind::Vector || K == FactoryKind::Matrix;
}

/// Random factories draw from the generator of the device they run on.
static bool isRandom(StringRef Name) {
  return Name.starts_with("rand") || Name == "normal" || Name == "bernoulli" ||
         Name == "multinomial";
}

/// The device argument of a conversion that moves only the device
/// (`.to(device)`, `.to(torch::kCUDA)`, `.to("cuda:0")`), or null.
static const Expr *soleDeviceArgument(const CXXMemberCallExpr *Move) {
  const Expr *Device = nullptr;
  for (const Expr *A : Move->arguments()) {
    if (isa<CXXDefaultArgExpr>(A))
      continue;
    if (Device)
      return nullptr;
    Device = A;
  }
  if (!Device)
    return nullptr;
  const Expr *Written = ast::stripCopiesAndConversions(Device);
  libtorch::Carrier C = libtorch::carrierOf(Written->getType());
  // `.to({cfg.device})`: TensorOptions built from a device name alone.
  if (const auto *CE = dyn_cast<CXXConstructExpr>(Written);
      CE && C == libtorch::Carrier::Options && CE->getNumArgs() == 1 &&
      CE->getConstructor()->isTemplateInstantiation() &&
      ast::isStdStringType(ast::stripImplicit(CE->getArg(0))->getType()))
    return CE->getArg(0);
  // A device name: "cuda:0", or a std::string (`cfg.device`).
  bool String = Written->getType()->isPointerType() ||
                Written->getType()->isArrayType() ||
                ast::isStdStringType(Written->getType());
  return libtorch::holdsDevice(C) || String ? Device : nullptr;
}

/// The device \p Move moves to, as the fix-it writes it: `torch::kCUDA` for
/// `.cuda()`, the sole device argument of `.to(...)` as written; "" when the
/// conversion does more than move (a dtype, another tensor, non_blocking).
static std::string deviceText(const CXXMemberCallExpr *Move,
                              const SourceManager &SM, const LangOptions &LO) {
  if (Move->getMethodDecl()->getName() == "cuda")
    return Move->getNumArgs() == 0 ? "torch::kCUDA" : "";
  const Expr *DeviceArg = soleDeviceArgument(Move);
  return DeviceArg ? ast::sourceText(ast::stripCopiesAndConversions(DeviceArg),
                                     SM, LO)
                         .str()
                   : "";
}

/// True for a random fill in place with scalar parameters
/// (`.normal_()`, `.uniform_(-1, 1)`): it draws from the generator of the
/// tensor's device.
static bool isRandomFill(const CXXMemberCallExpr *MC) {
  const CXXMethodDecl *MD = MC->getMethodDecl();
  if (!MD || !MD->getIdentifier() || !libtorch::isTensorRecord(MD->getParent()))
    return false;
  return llvm::is_contained({"normal_", "uniform_", "bernoulli_", "random_",
                             "exponential_", "geometric_", "log_normal_",
                             "cauchy_"},
                            MD->getName()) &&
         llvm::none_of(MC->arguments(), [](const Expr *A) {
           return libtorch::isTensorType(A->getType());
         });
}

/// True for a tensor method that keeps the data where it is: a view, a
/// conversion of the dtype only (`.to(torch::kLong)`, `.float()`), a fill
/// in place (`.fill_(c)`, `.zero_()`), a copy or a triangle (`.clone()`,
/// `.tril()`), a gradient flag (`.set_requires_grad(false)`).
static bool keepsDevice(const CXXMemberCallExpr *MC) {
  const CXXMethodDecl *MD = MC->getMethodDecl();
  if (!MD || !MD->getIdentifier() || !libtorch::isTensorRecord(MD->getParent()))
    return false;
  StringRef Name = MD->getName();
  if (Name == "to" || Name == "toType")
    return MC->getNumArgs() > 0 && MC->getArg(0)->getType()->getAsEnumDecl() &&
           libtorch::carrierOf(MC->getArg(0)->getType()) ==
               libtorch::Carrier::None;
  if (isRandomFill(MC))
    return true;
  return llvm::is_contained({"unsqueeze",      "squeeze",   "view",
                             "reshape",        "expand",    "t",
                             "transpose",      "permute",   "contiguous",
                             "flatten",        "unflatten", "narrow",
                             "select",         "slice",     "repeat",
                             "float",          "double",    "half",
                             "long",           "int",       "bool",
                             "fill_",          "zero_",     "triu",
                             "tril",           "clone",     "set_requires_grad",
                             "requires_grad_", "detach"},
                            Name);
}

/// True for a free function that returns a tensor on its first argument's
/// device (`torch::triu(x, 1)`, a draw `torch::multinomial(probs, 1)`).
static bool keepsDevice(const CallExpr *Call) {
  const FunctionDecl *FD = Call->getDirectCallee();
  return FD && FD->getIdentifier() && Call->getNumArgs() > 0 &&
         libtorch::isLibTorchDecl(FD) &&
         llvm::is_contained({"triu", "tril", "flip", "roll", "clone",
                             "contiguous", "transpose", "unsqueeze", "squeeze",
                             "reshape", "multinomial", "bernoulli"},
                            FD->getName());
}

/// \p E without the views, dtype conversions and device-keeping functions
/// around it (`torch::triu(x, 1).unsqueeze(0)` -> `x`).
static const Expr *underDeviceKeepingCalls(const Expr *E) {
  E = ast::stripImplicit(E);
  while (true) {
    if (const auto *MC = dyn_cast<CXXMemberCallExpr>(E)) {
      if (!keepsDevice(MC))
        return E;
      E = ast::stripImplicit(MC->getImplicitObjectArgument());
    } else if (const auto *Call = dyn_cast<CallExpr>(E);
               Call && !isa<CXXOperatorCallExpr>(Call) && keepsDevice(Call)) {
      E = ast::stripImplicit(Call->getArg(0));
    } else {
      return E;
    }
  }
}

/// True if \p E fills its tensor at random in place on the way down to its
/// factory (`torch::empty(n).normal_()`).
static bool drawsOnTheWay(const Expr *E) {
  for (E = ast::stripImplicit(E);
       const auto *MC = dyn_cast<CXXMemberCallExpr>(E);
       E = ast::stripImplicit(MC->getImplicitObjectArgument())) {
    if (isRandomFill(MC))
      return true;
    if (!keepsDevice(MC))
      return false;
  }
  return false;
}

/// The factory call \p E is, through views, dtype conversions and
/// device-keeping functions (`torch::eye(4).unsqueeze(0)`,
/// `torch::triu(torch::ones({n, n}), 1)`).
static const CallExpr *factoryUnder(const Expr *E) {
  const auto *Call = dyn_cast<CallExpr>(underDeviceKeepingCalls(E));
  return Call && !isa<CXXMemberCallExpr, CXXOperatorCallExpr>(Call) ? Call
                                                                    : nullptr;
}

/// True for a call of a factory that allocates on its own (allocatesOnItsOwn).
static bool isAllocatingFactory(const CallExpr *Call) {
  const FunctionDecl *FD = Call ? Call->getDirectCallee() : nullptr;
  return FD && FD->getIdentifier() &&
         allocatesOnItsOwn(libtorch::factoryKind(FD));
}

/// When \p Receiver calls a function of the program (\p Helper) whose every
/// return statement returns a factory's tensor, through device-keeping calls
/// (`return torch::triu(torch::full({n, n}, -inf), 1);`): the first such
/// factory. Else null.
static const CallExpr *factoryReturnedBy(const Expr *Receiver,
                                         const FunctionDecl *&Helper) {
  const auto *Call = dyn_cast<CallExpr>(underDeviceKeepingCalls(Receiver));
  const FunctionDecl *FD = Call ? Call->getDirectCallee() : nullptr;
  const FunctionDecl *Def = nullptr;
  if (!FD || !FD->hasBody(Def) || Def->isDependentContext() ||
      libtorch::isLibraryDecl(Def))
    return nullptr;
  llvm::SmallVector<const Expr *, 2> Returns;
  ast::returnValues(Def->getBody(), Returns);
  const CallExpr *First = nullptr;
  for (const Expr *R : Returns) {
    const CallExpr *Factory = R ? factoryUnder(R) : nullptr;
    if (!isAllocatingFactory(Factory))
      return nullptr;
    if (!First)
      First = Factory;
  }
  if (First)
    Helper = Def;
  return First;
}

/// The local variable or member of `*this` that \p E names, or null.
static const ValueDecl *storageOf(const Expr *E) {
  E = ast::stripImplicit(E);
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    const auto *V = dyn_cast<VarDecl>(Ref->getDecl());
    return V && V->hasLocalStorage() ? V : nullptr;
  }
  return ast::thisField(E);
}

/// True if \p Move is reached from \p S through expressions only: it runs
/// exactly once when \p S does (no loop or branch of \p S around it).
static bool runsOnceIn(const Stmt *S, const Expr *Move) {
  if (S == Move)
    return true;
  if (!isa<Expr, ReturnStmt, DeclStmt>(S) ||
      isa<LambdaExpr, AbstractConditionalOperator>(S))
    return false;
  if (const auto *BO = dyn_cast<BinaryOperator>(S); BO && BO->isLogicalOp())
    return false;
  return llvm::any_of(S->children(),
                      [&](const Stmt *C) { return C && runsOnceIn(C, Move); });
}

/// The factory that set the variable \p Move converts, in the statements
/// before the conversion's:
///   - `x = torch::zeros(..);` (or its declaration) then `x = x.cuda();`,
///     alone or under an `if`, in the next statement; `x` is a local or a
///     member of `*this`;
///   - for a local that the conversion's statement reads last
///     (`return x.to(device);`, `auto y = x.to(device);`, also when a later
///     statement overwrites x before reading it), its declaration
///     may sit further up: statements between may reshape it (`x =
///     x.unsqueeze(0);`) or not name it.
/// True if \p S calls a function of the program's (which may change any
/// member or alias).
static bool callsProgramCode(const Stmt *S) {
  if (!S || isa<LambdaExpr>(S))
    return false;
  const FunctionDecl *FD = nullptr;
  if (const auto *Call = dyn_cast<CallExpr>(S))
    FD = Call->getDirectCallee();
  else if (const auto *CE = dyn_cast<CXXConstructExpr>(S))
    FD = CE->getConstructor();
  if ((isa<CallExpr>(S) && !FD) || (FD && !libtorch::isLibraryDecl(FD)))
    return true;
  return llvm::any_of(S->children(), callsProgramCode);
}

static const CallExpr *factoryBefore(const CXXMemberCallExpr *Move,
                                     const Stmt *Body) {
  const ValueDecl *V =
      storageOf(underDeviceKeepingCalls(Move->getImplicitObjectArgument()));
  if (!V)
    return nullptr;
  const bool Local = isa<VarDecl>(V);
  auto Names = [&](const Stmt *S) {
    return ast::mentions(S, [&](const ValueDecl *D) { return D == V; });
  };
  // `W = <E>`: W's storage and E, in \p S.
  auto Assignment =
      [](const Stmt *S) -> std::pair<const ValueDecl *, const Expr *> {
    const auto *OC = dyn_cast_or_null<CXXOperatorCallExpr>(
        S ? ast::stripImplicit(dyn_cast<Expr>(S)) : nullptr);
    if (!OC || OC->getOperator() != OO_Equal || OC->getNumArgs() != 2)
      return {nullptr, nullptr};
    return {storageOf(OC->getArg(0)), ast::stripImplicit(OC->getArg(1))};
  };
  // `V = <E>`: E, in \p S.
  auto AssignedTo = [&](const Stmt *S) -> const Expr * {
    auto [W, Value] = Assignment(S);
    return W == V ? Value : nullptr;
  };
  // `W = W.to(device)`, `W = W.cpu()`: the tensor W moved to a device.
  auto MovedBy = [&](const Stmt *S) -> const ValueDecl * {
    auto [W, Value] = Assignment(S);
    const auto *MC = dyn_cast_or_null<CXXMemberCallExpr>(Value);
    const CXXMethodDecl *MD = MC ? MC->getMethodDecl() : nullptr;
    if (!W || !MD || !MD->getIdentifier() ||
        storageOf(underDeviceKeepingCalls(MC->getImplicitObjectArgument())) !=
            W)
      return nullptr;
    StringRef Name = MD->getName();
    return Name == "cuda" || Name == "cpu" ||
                   (Name == "to" && soleDeviceArgument(MC))
               ? W
               : nullptr;
  };
  // A branch that moves V, by \p Move or elsewhere, alone or among moves
  // of other tensors (`if (gpu) { pred = pred.cuda(); crop = crop.cuda(); }`).
  auto BranchMoves = [&](const Stmt *S, bool ByMove) {
    if (!S)
      return false;
    llvm::ArrayRef<const Stmt *> Stmts(S);
    if (const auto *CS = dyn_cast<CompoundStmt>(S))
      Stmts = llvm::ArrayRef(CS->body_begin(), CS->body_end());
    bool MovesV = false;
    for (const Stmt *St : Stmts) {
      const ValueDecl *W = MovedBy(St);
      if (!W || (W == V && ByMove && AssignedTo(St) != Move))
        return false;
      MovesV |= W == V;
    }
    return MovesV;
  };
  // The move alone, or under an `if` whose other branch, if any, moves V
  // elsewhere (`if (cpuOnly) V = V.to(cpu); else V = V.to(gpu);`).
  auto IsTheMove = [&](const Stmt *S) {
    if (const auto *If = dyn_cast_or_null<IfStmt>(S)) {
      const Stmt *Then = If->getThen(), *Else = If->getElse();
      return (BranchMoves(Then, true) && (!Else || BranchMoves(Else, false))) ||
             (BranchMoves(Else, true) && BranchMoves(Then, false));
    }
    return AssignedTo(S) == Move;
  };
  auto FactoryOf = [&](const Stmt *S) -> const CallExpr * {
    if (const auto *DS = dyn_cast_or_null<DeclStmt>(S)) {
      const auto *Var = dyn_cast<VarDecl>(V);
      return Var && DS->isSingleDecl() && DS->getSingleDecl() == Var &&
                     Var->getInit()
                 ? factoryUnder(ast::stripCopiesAndConversions(Var->getInit()))
                 : nullptr;
    }
    const Expr *Value = AssignedTo(S);
    return Value ? factoryUnder(ast::stripCopiesAndConversions(Value))
                 : nullptr;
  };
  // `V = V.unsqueeze(0);`: keeps V's device.
  auto Reshapes = [&](const Stmt *S) {
    const Expr *Value = AssignedTo(S);
    return Value && Value != Move &&
           storageOf(underDeviceKeepingCalls(
               ast::stripCopiesAndConversions(Value))) == V;
  };
  // The factory above the statement \p It of \p CS.
  auto FactoryAbove = [&](const CompoundStmt *CS,
                          CompoundStmt::const_body_iterator It,
                          bool Far) -> const CallExpr * {
    while (It != CS->body_begin()) {
      --It;
      if (const auto *DS = dyn_cast<DeclStmt>(*It);
          DS && DS->isSingleDecl() && DS->getSingleDecl() == V)
        return FactoryOf(DS);
      // Far up, only V's declaration: no alias of V is older.
      if (!Far || isa<DeclStmt>(*It))
        if (const CallExpr *F = FactoryOf(*It))
          return F;
      // Right above the move, statements that leave V alone may sit between
      // (`this->std = s;`); far up, reshapes of V too.
      if (Far ? !(Reshapes(*It) || !Names(*It))
              : Names(*It) || callsProgramCode(*It))
        return nullptr;
    }
    return nullptr;
  };
  // Whether V's value is read again after the move: the first mention of V
  // that \p S makes, in the order it runs, reads it (true), overwrites it
  // (`V = <E without V>`: false), or there is none (nullopt). A branch that
  // names V counts as a read.
  std::function<std::optional<bool>(const Stmt *)> ReadsFirst =
      [&](const Stmt *S) -> std::optional<bool> {
    if (!S || !Names(S))
      return std::nullopt;
    if (const Expr *Value = AssignedTo(S); Value && !Names(Value))
      return false;
    if (isa<IfStmt, SwitchStmt, AbstractConditionalOperator, LambdaExpr>(S) ||
        (isa<BinaryOperator>(S) && cast<BinaryOperator>(S)->isLogicalOp()))
      return true;
    if (const auto *Ref = dyn_cast<DeclRefExpr>(S))
      return Ref->getDecl() == V ? std::optional<bool>(true) : std::nullopt;
    if (const auto *For = dyn_cast<ForStmt>(S)) {
      for (const Stmt *Part :
           {For->getInit(), static_cast<const Stmt *>(For->getCond()),
            For->getBody(), static_cast<const Stmt *>(For->getInc())})
        if (std::optional<bool> R = ReadsFirst(Part))
          return R;
      return std::nullopt;
    }
    if (isa<DoStmt>(S))
      return true;
    for (const Stmt *Child : S->children())
      if (std::optional<bool> R = ReadsFirst(Child))
        return R;
    return true; // a mention not reached above (a member access of this)
  };
  // True when nothing after \p It in \p CS reads V's value before
  // overwriting it.
  auto ReadLast = [&](const CompoundStmt *CS,
                      CompoundStmt::const_body_iterator It) {
    for (auto Next = std::next(It); Next != CS->body_end(); ++Next)
      if (std::optional<bool> R = ReadsFirst(*Next))
        return !*R;
    return true;
  };
  const CallExpr *Found = nullptr;
  std::function<void(const Stmt *)> Search = [&](const Stmt *S) {
    if (!S || Found || isa<LambdaExpr>(S))
      return;
    if (const auto *CS = dyn_cast<CompoundStmt>(S))
      for (auto It = CS->body_begin(); It != CS->body_end(); ++It) {
        if (IsTheMove(*It)) {
          Found = FactoryAbove(CS, It, /*Far=*/false);
          return;
        }
        if (Local && runsOnceIn(*It, Move) &&
            (isa<ReturnStmt>(*It) || ReadLast(CS, It))) {
          Found = FactoryAbove(CS, It, /*Far=*/true);
          return;
        }
      }
    for (const Stmt *Child : S->children())
      Search(Child);
  };
  Search(Body);
  return Found;
}

/// True for `x.device()`, a tensor's device.
static bool isTensorDevice(const Expr *E) {
  const auto *MC = dyn_cast<CXXMemberCallExpr>(E);
  const CXXMethodDecl *MD = MC ? MC->getMethodDecl() : nullptr;
  return MD && MD->getIdentifier() && MD->getName() == "device" &&
         libtorch::isTensorRecord(MD->getParent());
}

/// True if \p Move's device comes from elsewhere, so that its value may be
/// unknown here: another tensor's (`.to(x.device())`, or a local set to it
/// once: `auto device = inputs.at(0).device();`) or a namespace-scope
/// device (`inline torch::Device device = ...`), or a device name in a
/// std::string (`cfg.device`). Creating the tensor there is never worse,
/// even when that device is the CPU.
static bool targetFromElsewhere(const CXXMemberCallExpr *Move) {
  const Expr *A = soleDeviceArgument(Move);
  if (!A)
    return false;
  A = ast::stripCopiesAndConversions(A);
  if (isTensorDevice(A) || ast::isStdStringType(A->getType()))
    return true;
  // `{cfg.device}`, `torch::Device(name)`: a Device built from a name.
  if (const auto *Cast = dyn_cast<CXXFunctionalCastExpr>(A))
    A = ast::stripImplicit(Cast->getSubExpr());
  if (const auto *CE = dyn_cast<CXXConstructExpr>(A);
      CE && CE->getNumArgs() == 1 &&
      ast::isStdStringType(ast::stripImplicit(CE->getArg(0))->getType()))
    return true;
  if (const auto *Ref = dyn_cast<DeclRefExpr>(A))
    if (const auto *VD = dyn_cast<VarDecl>(Ref->getDecl())) {
      if (VD->getDeclContext()->getRedeclContext()->isFileContext())
        return true;
      return VD->hasLocalStorage() && !isa<ParmVarDecl>(VD) && VD->getInit() &&
             isTensorDevice(ast::stripCopiesAndConversions(VD->getInit()));
    }
  return false;
}

/// The argument of `.to(options)` when the options are another tensor's
/// (`x.options()`, or a local set to them): they carry its device and
/// dtype, and may be passed to the factory instead. Else null.
static const Expr *tensorOptionsArgument(const CXXMemberCallExpr *Move) {
  if (Move->getMethodDecl()->getName() != "to" || Move->getNumArgs() == 0 ||
      libtorch::carrierOf(Move->getArg(0)->getType()) !=
          libtorch::Carrier::Options)
    return nullptr;
  for (unsigned I = 1; I < Move->getNumArgs(); ++I)
    if (!isa<CXXDefaultArgExpr>(Move->getArg(I)))
      return nullptr;
  const Expr *A = ast::stripCopiesAndConversions(Move->getArg(0));
  const Expr *Value = A;
  if (const auto *Ref = dyn_cast<DeclRefExpr>(A))
    if (const auto *VD = dyn_cast<VarDecl>(Ref->getDecl());
        VD && VD->hasLocalStorage() && !isa<ParmVarDecl>(VD) && VD->getInit())
      Value = ast::stripCopiesAndConversions(VD->getInit());
  const auto *MC = dyn_cast<CXXMemberCallExpr>(Value);
  const CXXMethodDecl *MD = MC ? MC->getMethodDecl() : nullptr;
  return MD && MD->getIdentifier() && MD->getName() == "options" &&
                 libtorch::isTensorRecord(MD->getParent())
             ? Move->getArg(0)
             : nullptr;
}

/// The tensor of `.to(other)` (the other overload: `other`'s device and
/// dtype), when nothing else is passed; else null.
static const Expr *otherTensorArgument(const CXXMemberCallExpr *Move) {
  if (Move->getMethodDecl()->getName() != "to" || Move->getNumArgs() == 0 ||
      !libtorch::isTensorType(Move->getArg(0)->getType().getNonReferenceType()))
    return nullptr;
  for (unsigned I = 1; I < Move->getNumArgs(); ++I)
    if (!isa<CXXDefaultArgExpr>(Move->getArg(I)))
      return nullptr;
  return ast::stripCopiesAndConversions(Move->getArg(0));
}

/// The index of \p FD's TensorOptions parameter, or -1.
static int optionsParameter(const FunctionDecl *FD) {
  for (unsigned I = 0; I < FD->getNumParams(); ++I)
    if (libtorch::carrierOf(FD->getParamDecl(I)->getType()) ==
        libtorch::Carrier::Options)
      return static_cast<int>(I);
  return -1;
}

/// The edits that create the tensor on \p DeviceText: the device goes into
/// the factory's options, the conversion goes. Empty if the call's shape
/// allows no safe edit.
static std::vector<FixItHint> fixes(const CallExpr *Factory,
                                    const CXXMemberCallExpr *Move,
                                    StringRef DeviceText, StringRef OptionsText,
                                    const SourceManager &SM,
                                    const LangOptions &LO) {
  const auto *Member = dyn_cast<MemberExpr>(Move->getCallee());
  int Index = optionsParameter(Factory->getDirectCallee());
  if (!Member || Index < 0 ||
      static_cast<unsigned>(Index) >= Factory->getNumArgs())
    return {};
  std::vector<FixItHint> Edits;
  const Expr *Options = Factory->getArg(Index);
  if (isa<CXXDefaultArgExpr>(Options)) {
    // Only if every argument before the options is written.
    for (int I = 0; I < Index; ++I)
      if (isa<CXXDefaultArgExpr>(Factory->getArg(I)))
        return {};
    std::string Text =
        (Index > 0 ? ", " : "") +
        (OptionsText.empty() ? "torch::device(" + DeviceText.str() + ")"
                             : OptionsText.str());
    Edits.push_back(FixItHint::CreateInsertion(Factory->getRParenLoc(), Text));
  } else if (!OptionsText.empty()) {
    return {}; // the factory's own options would have to be merged
  } else {
    const Expr *Written = ast::stripCopiesAndConversions(Options);
    StringRef Text = ast::sourceText(Written, SM, LO);
    if (Text.empty())
      return {};
    std::string New;
    if (libtorch::carrierOf(Written->getType()) != libtorch::Carrier::Options)
      New = ("torch::TensorOptions(" + Text + ")").str();
    else if (isa<CallExpr, DeclRefExpr, ParenExpr, MemberExpr>(Written))
      New = Text.str();
    else
      New = ("(" + Text + ")").str();
    New += ".device(" + DeviceText.str() + ")";
    Edits.push_back(FixItHint::CreateReplacement(
        CharSourceRange::getTokenRange(Written->getSourceRange()), New));
  }
  Edits.push_back(FixItHint::CreateRemoval(CharSourceRange::getTokenRange(
      Member->getOperatorLoc(), Move->getRParenLoc())));
  return Edits;
}

void CreateThenMoveCheck::check(const MatchFinder::MatchResult &Result) {
  const auto *Move = Result.Nodes.getNodeAs<CXXMemberCallExpr>("move");
  const auto *Fn = Result.Nodes.getNodeAs<FunctionDecl>("fn");
  if (keepsDevice(Move))
    return;
  const Expr *Receiver = Move->getImplicitObjectArgument();
  const CallExpr *Factory = factoryUnder(Receiver);
  bool InStatementBefore = !Factory;
  if (!Factory)
    Factory = factoryBefore(Move, Fn->getBody());
  // Or made by a function of the program's (`make_mask(n).to(device)`).
  const FunctionDecl *Helper = nullptr;
  if (!isAllocatingFactory(Factory)) {
    Factory = factoryReturnedBy(Receiver, Helper);
    InStatementBefore = false;
  }
  if (!Factory)
    return;
  const FunctionDecl *FactoryFn = Factory->getDirectCallee();
  const bool Random = isRandom(FactoryFn->getName()) ||
                      (!InStatementBefore && drawsOnTheWay(Receiver));
  if (Random && !ReportRandomFactories)
    return;
  ASTContext &Ctx = *Result.Context;
  const DeviceFlow *Flow = device::analyzedFlow(*this, Fn, Ctx, Verbose);
  if (!Flow)
    return;
  const DeviceFlow *MadeIn =
      Helper ? device::analyzedFlow(*this, Helper, Ctx, Verbose) : Flow;
  if (!MadeIn)
    return;
  device::DeviceFact Created = MadeIn->factOf(Factory);
  DeviceValue Target = Flow->conversionTarget(Move);
  // Also a factory told to allocate on the CPU (`.device(torch::kCPU)`):
  // the move still copies what could have been created there.
  const bool ToldCPU = Created.From.Kind == device::Origin::FactoryWithDevice;
  if (!Created.Device.isCPU() ||
      (Created.From.Kind != device::Origin::Factory && !ToldCPU) ||
      Target.isCPU())
    return;
  const Expr *OtherOptions = tensorOptionsArgument(Move);
  // `.to(other)`: other's options, passed to the factory, do the same.
  const Expr *OtherTensor = otherTensorArgument(Move);
  if (!Target.isDeviceSide() && !targetFromElsewhere(Move) && !OtherOptions &&
      !OtherTensor)
    return;

  const SourceManager &SM = *Result.SourceManager;
  const LangOptions &LO = Ctx.getLangOpts();
  SourceLocation Loc = SM.getFileLoc(Move->getExprLoc());
  if (!reportOnce(Loc))
    return;
  const StringRef Method = Move->getMethodDecl()->getName();
  const std::string DeviceText = deviceText(Move, SM, LO);
  std::string OptionsText =
      OtherOptions ? ast::sourceText(
                         ast::stripCopiesAndConversions(OtherOptions), SM, LO)
                         .str()
                   : "";
  if (OtherTensor && isa<DeclRefExpr, MemberExpr, CallExpr>(OtherTensor))
    OptionsText = ast::sourceText(OtherTensor, SM, LO).str() + ".options()";
  const std::string FactoryName = FactoryFn->getQualifiedNameAsString();
  const bool InMacro =
      Move->getBeginLoc().isMacroID() || Move->getEndLoc().isMacroID();
  const NoFix Why = whyNoFix(InMacro, Fn);
  std::vector<FixItHint> Edits;
  if (Why == NoFix::Fixable && !(DeviceText.empty() && OptionsText.empty()) &&
      !InStatementBefore && !ToldCPU && !Helper)
    Edits = fixes(Factory, Move, DeviceText, OptionsText, SM, LO);
  std::string Instead = !OptionsText.empty() ? "'" + OptionsText + "'"
                        : DeviceText.empty()
                            ? "the device"
                            : "torch::device(" + DeviceText + ")";
  std::string To =
      Target.isDeviceSide() ? Target.name()
      : OtherTensor
          ? "the device of '" + ast::sourceText(OtherTensor, SM, LO).str() + "'"
      : !OptionsText.empty() ? "the device of '" + OptionsText + "'"
      : !DeviceText.empty()  ? "'" + DeviceText + "'"
                             : Target.name();
  const bool Fills = !FactoryFn->getName().starts_with("empty");
  if (Helper)
    diag(Loc, "'%0' returns a tensor that '%1' allocates %select{|and fills "
              "}2on the CPU, then '%3' copies it to %4; create it on the "
              "device in '%0' (pass it the device)")
        << Helper->getQualifiedNameAsString() << FactoryName << Fills << Method
        << To;
  else
    diag(Loc, "'%0' allocates %select{|and fills }1this tensor on the CPU, "
              "then '%2' copies it to %3; pass %4 to the factory to create it "
              "there")
        << FactoryName << Fills << Method << To << Instead
        << (Random ? std::vector<FixItHint>() : Edits);
  if (InStatementBefore || Helper)
    diag(SM.getFileLoc(Factory->getExprLoc()), "the tensor is created here",
         DiagnosticIDs::Note);
  // The fix changes the numbers a seeded run draws: offered on the note,
  // which --fix leaves alone (--fix-notes and editors apply it).
  if (Random)
    diag(Loc,
         "created on the device, the values come from its random generator, "
         "not the CPU's: a seeded run draws different numbers",
         DiagnosticIDs::Note)
        << Edits;
  if (Helper) // the message says what to do instead
    return;
  if (Why != NoFix::Fixable)
    noFixNote(Loc, Why);
}

} // namespace clang::tidy::torch
