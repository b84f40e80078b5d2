//===- DeviceMismatchCheck.cpp - torch-device-mismatch -------------------===//
#include "DeviceMismatchCheck.h"
#include "ast/ASTHelpers.h"
#include "device/DeviceDiagnostics.h"
#include "libtorch/DeviceRules.h"
#include "libtorch/ProgramCode.h"
#include "libtorch/TorchModules.h"
#include "libtorch/TorchTypes.h"
#include "clang/AST/ASTContext.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Lex/Lexer.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch {

using device::DeviceFact;
using device::DeviceFlow;
using device::DeviceValue;
using device::Origin;
using libtorch::Carrier;

void DeviceMismatchCheck::onStartOfTranslationUnit() {
  DeviceFlowCheck::onStartOfTranslationUnit();
  Fixed.clear();
}

void DeviceMismatchCheck::registerMatchers(MatchFinder *Finder) {
  // Function bodies top-down; check() collects the ops and asks DeviceFlow.
  Finder->addMatcher(
      functionDecl(isDefinition(), unless(libtorch::isLibraryCode()))
          .bind("fn"),
      this);
}

static Carrier carrier(QualType T) { return libtorch::carrierOf(T); }
static Carrier carrier(const Expr *E) {
  return E ? carrier(E->getType()) : Carrier::None;
}

static bool isCheckedOperator(OverloadedOperatorKind K) {
  switch (K) {
  case OO_Plus:
  case OO_Minus:
  case OO_Star:
  case OO_Slash:
  case OO_Percent:
  case OO_Amp:
  case OO_Pipe:
  case OO_Caret:
  case OO_Less:
  case OO_Greater:
  case OO_LessEqual:
  case OO_GreaterEqual:
  case OO_EqualEqual:
  case OO_ExclaimEqual:
    return true;
  default:
    return ast::isArithmeticCompoundAssignment(K);
  }
}

namespace {
/// Collects the ops of a function body, not entering lambdas (DeviceFlow
/// does not analyse their bodies with the function).
struct OpCollector {
  std::vector<DeviceMismatchCheck::Op> Ops;
  /// How often each local is named: a fix-it changes a factory call only
  /// when its tensor is used once, in the op reported.
  llvm::DenseMap<const VarDecl *, unsigned> Uses;

  void visit(const Stmt *S) {
    if (!S || isa<LambdaExpr>(S))
      return;
    if (const auto *DRE = dyn_cast<DeclRefExpr>(S))
      if (const auto *V = dyn_cast<VarDecl>(DRE->getDecl()))
        ++Uses[V];
    if (const auto *E = dyn_cast<Expr>(S))
      consider(E);
    for (const Stmt *Child : S->children())
      visit(Child);
  }

  void consider(const Expr *E) {
    DeviceMismatchCheck::Op O{E, E->getExprLoc(), {}, nullptr};
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E)) {
      if (Op->getOperator() == OO_Call && Op->getNumArgs() > 0 &&
          carrier(Op->getArg(0)) == Carrier::Module) {
        O.Module = Op->getArg(0);
        for (const Expr *A : llvm::drop_begin(Op->arguments()))
          libtorch::addTensorOperands(A, O.Operands);
      } else if (isCheckedOperator(Op->getOperator())) {
        for (const Expr *A : Op->arguments())
          if (carrier(A) == Carrier::Tensor)
            O.Operands.push_back(A);
      }
    } else if (const auto *MC = dyn_cast<CXXMemberCallExpr>(E)) {
      const CXXMethodDecl *MD = MC->getMethodDecl();
      if (!MD || !MD->getIdentifier())
        return;
      StringRef Name = MD->getName();
      if (libtorch::isTensorRecord(MD->getParent())) {
        if (libtorch::isDeviceMixAllowed(Name))
          return;
        O.Operands.push_back(MC->getImplicitObjectArgument());
        for (const Expr *A : MC->arguments())
          libtorch::addTensorOperands(A, O.Operands);
      } else if ((Name == "forward" || Name == "any_forward") &&
                 libtorch::isForwardableModuleClass(MD->getParent())) {
        O.Module = MC->getImplicitObjectArgument();
        for (const Expr *A : MC->arguments())
          libtorch::addTensorOperands(A, O.Operands);
      }
    } else if (const auto *Call = dyn_cast<CallExpr>(E)) {
      const FunctionDecl *FD = Call->getDirectCallee();
      if (!FD || !FD->getIdentifier() || isa<CXXMethodDecl>(FD) ||
          !libtorch::isLibTorchDecl(FD) ||
          libtorch::factoryKind(FD) != libtorch::FactoryKind::None ||
          libtorch::isDeviceMixAllowed(FD->getName()))
        return;
      for (const Expr *A : Call->arguments())
        libtorch::addTensorOperands(A, O.Operands);
      if (const auto *DRE =
              dyn_cast<DeclRefExpr>(Call->getCallee()->IgnoreImplicit()))
        O.Loc = DRE->getLocation();
    }
    if (O.Operands.size() >= (O.Module ? 1u : 2u))
      Ops.push_back(std::move(O));
  }
};
} // namespace

void DeviceMismatchCheck::check(const MatchFinder::MatchResult &Result) {
  const auto *Fn = Result.Nodes.getNodeAs<FunctionDecl>("fn");
  if (ast::isTemplateCode(Fn)) // DeviceFlow skips it
    return;
  ASTContext &Ctx = *Result.Context;
  OpCollector Collector;
  Collector.visit(Fn->getBody());
  if (Collector.Ops.empty())
    return;
  const DeviceFlow *Flow = device::analyzedFlow(*this, Fn, Ctx, Verbose);
  if (!Flow)
    return;
  for (const Op &O : Collector.Ops)
    checkOp(O, *Flow, Fn, Ctx, Collector.Uses);
}

// ===--------------------------------------------------------------------===//
// Fix-its: give a factory call the other operand's device.
// ===--------------------------------------------------------------------===//

/// True when \p D is assigned anywhere in \p S.
static bool assignedIn(const Stmt *S, const ValueDecl *D) {
  if (!S)
    return false;
  if (auto [LHS, RHS] = ast::asAssignment(S); LHS) {
    const Expr *L = ast::stripImplicit(LHS);
    if (const auto *DRE = dyn_cast<DeclRefExpr>(L); DRE && DRE->getDecl() == D)
      return true;
    if (const auto *ME = dyn_cast<MemberExpr>(L);
        ME && ME->getMemberDecl() == D)
      return true;
  }
  return llvm::any_of(S->children(),
                      [D](const Stmt *C) { return assignedIn(C, D); });
}

/// True when \p D names the same device at \p At as everywhere else in
/// \p Fn: a parameter, a member, or a top-level local declared before At,
/// never reassigned.
static bool usableAt(const ValueDecl *D, const Expr *At, const FunctionDecl *Fn,
                     const SourceManager &SM) {
  if (!D || !D->getIdentifier() || assignedIn(Fn->getBody(), D))
    return false;
  if (const auto *P = dyn_cast<ParmVarDecl>(D))
    return P->getDeclContext() == Fn;
  if (const auto *F = dyn_cast<FieldDecl>(D)) {
    const auto *MD = dyn_cast<CXXMethodDecl>(Fn);
    return MD && !MD->isStatic() &&
           libtorch::isOrDerivesFrom(
               MD->getParent(), F->getParent()->getQualifiedNameAsString());
  }
  const auto *V = dyn_cast<VarDecl>(D);
  if (!V)
    return false;
  if (!V->isLocalVarDecl())
    return false; // a global may need qualification
  const auto *Body = dyn_cast<CompoundStmt>(Fn->getBody());
  if (!Body)
    return false;
  for (const Stmt *S : Body->body())
    if (const auto *DS = dyn_cast<DeclStmt>(S))
      for (const Decl *Dl : DS->decls())
        if (Dl == V)
          return SM.isBeforeInTranslationUnit(DS->getEndLoc(),
                                              At->getBeginLoc());
  return false;
}

/// A torch::Device or DeviceType variable named in \p E
/// (`device`, `torch::device(device)`, `TensorOptions().device(device)`).
static const ValueDecl *deviceVariableIn(const Expr *E, int Depth = 0) {
  if (!E || Depth > 6)
    return nullptr;
  E = ast::stripImplicit(E);
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
    Carrier C = carrier(DRE);
    return libtorch::holdsDevice(C) ? DRE->getDecl() : nullptr;
  }
  if (const auto *ME = dyn_cast<MemberExpr>(E)) {
    Carrier C = carrier(ME);
    if (libtorch::holdsDevice(C) &&
        isa<CXXThisExpr>(ast::stripImplicit(ME->getBase())))
      return ME->getMemberDecl();
    return nullptr;
  }
  for (const Stmt *Child : E->children())
    if (const auto *CE = dyn_cast_or_null<Expr>(Child))
      if (const ValueDecl *D = deviceVariableIn(CE, Depth + 1))
        return D;
  return nullptr;
}

/// How to spell, at the factory call \p At, the device of \p Dev; "" when
/// there is no spelling that is sure to mean the same device there.
static std::string deviceSpelling(const DeviceFact &Dev, const Expr *At,
                                  const FunctionDecl *Fn,
                                  const SourceManager &SM) {
  const DeviceValue &V = Dev.Device;
  if (V.kind() == DeviceValue::OnDevice && usableAt(V.decl(), At, Fn, SM))
    return V.decl()->getName().str();
  if (const auto *Conv = dyn_cast_or_null<CXXMemberCallExpr>(Dev.From.Where);
      Conv && (Dev.From.Kind == Origin::Moved ||
               Dev.From.Kind == Origin::FactoryWithDevice)) {
    for (const Expr *A : Conv->arguments())
      if (const ValueDecl *D = deviceVariableIn(A);
          D && usableAt(D, At, Fn, SM))
        return D->getName().str();
  }
  if (const auto *Call = dyn_cast_or_null<CallExpr>(Dev.From.Where);
      Call && Dev.From.Kind == Origin::FactoryWithDevice) {
    for (const Expr *A : Call->arguments())
      if (const ValueDecl *D = deviceVariableIn(A);
          D && usableAt(D, At, Fn, SM))
        return D->getName().str();
  }
  if (V.kind() == DeviceValue::CUDA && !V.ifAvailable())
    return V.index() >= 0 ? "torch::Device(torch::kCUDA, " +
                                std::to_string(V.index()) + ")"
                          : "torch::kCUDA";
  if (V.kind() == DeviceValue::ModuleDevice)
    for (const ParmVarDecl *P : Fn->parameters())
      if (carrier(P->getType()) == Carrier::Tensor && P->getIdentifier() &&
          !assignedIn(Fn->getBody(), P))
        return (P->getName() + ".device()").str();
  return "";
}

/// Where to insert ", device" into a factory call that has no options
/// written, or an invalid location.
static SourceLocation optionsInsertion(const CallExpr *Factory,
                                       const SourceManager &SM,
                                       const LangOptions &LO) {
  const FunctionDecl *FD = Factory->getDirectCallee();
  if (!FD || Factory->getBeginLoc().isMacroID() ||
      Factory->getEndLoc().isMacroID())
    return {};
  libtorch::FactoryKind K = libtorch::factoryKind(FD);
  if (K == libtorch::FactoryKind::None || K == libtorch::FactoryKind::Like ||
      K == libtorch::FactoryKind::FromBlob)
    return {};
  for (unsigned I = 1; I < Factory->getNumArgs() && I < FD->getNumParams();
       ++I) {
    if (carrier(FD->getParamDecl(I)->getType()) != Carrier::Options)
      continue;
    if (!isa<CXXDefaultArgExpr>(Factory->getArg(I)))
      return {};
    const Expr *Prev = Factory->getArg(I - 1);
    if (isa<CXXDefaultArgExpr>(Prev))
      return {};
    return Lexer::getLocForEndOfToken(Prev->getEndLoc(), 0, SM, LO);
  }
  return {};
}

/// True for a name, a member access or a call: `x`, `batch.data`,
/// `torch::ones({2})`, which need no parentheses before `.device()`.
static bool isSimpleName(const Expr *E) {
  E = ast::stripImplicit(E);
  if (const auto *B = dyn_cast<CXXBindTemporaryExpr>(E))
    E = ast::stripImplicit(B->getSubExpr());
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E))
    return Op->getOperator() == OO_Arrow || Op->getOperator() == OO_Subscript;
  return isa<DeclRefExpr>(E) || isa<MemberExpr>(E) || isa<CallExpr>(E);
}

// ===--------------------------------------------------------------------===//
// Reports
// ===--------------------------------------------------------------------===//

/// True for a tensor made by a factory given a literal size of zero
/// (`torch::empty(0)`, `torch::zeros({0})`): no elements, a "none" marker
/// that a module's forward() tests (`valid_lens.numel() == 0`), not an input
/// it computes with.
static bool isEmptyMarker(const DeviceFact &F) {
  const auto *Factory = dyn_cast_or_null<CallExpr>(F.From.Where);
  if (F.From.Kind != Origin::Factory || !Factory || Factory->getNumArgs() == 0)
    return false;
  // The size, through an IntArrayRef made from `{0}`.
  const Expr *Size = Factory->getArg(0);
  while (Size) {
    Size = Size->IgnoreImplicit();
    if (const auto *CE = dyn_cast<CXXConstructExpr>(Size))
      Size = CE->getNumArgs() == 1 ? CE->getArg(0) : nullptr;
    else if (const auto *IL = dyn_cast<CXXStdInitializerListExpr>(Size))
      Size = IL->getSubExpr();
    else if (const auto *List = dyn_cast<InitListExpr>(Size))
      Size = List->getNumInits() == 1 ? List->getInit(0) : nullptr;
    else
      break;
  }
  const auto *Zero = dyn_cast_or_null<IntegerLiteral>(Size);
  return Zero && Zero->getValue() == 0;
}

void DeviceMismatchCheck::checkOp(
    const Op &O, const DeviceFlow &Flow, const FunctionDecl *Fn,
    ASTContext &Ctx, const llvm::DenseMap<const VarDecl *, unsigned> &Uses) {
  const SourceManager &SM = Ctx.getSourceManager();
  const LangOptions &LO = Ctx.getLangOpts();
  llvm::SmallVector<DeviceFact, 4> Facts;
  for (const Expr *E : O.Operands)
    Facts.push_back(Flow.factOf(E));
  auto IsHostTensor = [](const DeviceFact &F) {
    return F.Device.isCPU() && F.Rank.isNonScalar();
  };

  if (O.Module) {
    const CXXRecordDecl *Class = libtorch::moduleClassOf(O.Module->getType());
    if (!libtorch::isLossModule(Class)) {
      DeviceFact M = Flow.factOf(O.Module);
      if (!libtorch::moduleHasParameters(Class))
        return;
      for (unsigned I = 0; I < Facts.size(); ++I)
        if ((M.Device.isDeviceSide() && IsHostTensor(Facts[I]) &&
             !isEmptyMarker(Facts[I])) ||
            (M.Device.isCPU() && Facts[I].Device.isDeviceSide()))
          return reportModuleCall(O, O.Operands[I], Facts[I], M, SM, LO);
      return;
    }
  }

  // The first CPU operand, and the device operand best named in a message.
  int Host = -1, Dev = -1;
  for (unsigned I = 0; I < Facts.size(); ++I) {
    if (Host < 0 && IsHostTensor(Facts[I]))
      Host = I;
    if (Facts[I].Device.isDeviceSide() &&
        (Dev < 0 ||
         (!isSimpleName(O.Operands[Dev]) && isSimpleName(O.Operands[I]))))
      Dev = I;
  }
  if (Host < 0 || Dev < 0)
    return;
  SourceLocation Loc = SM.getFileLoc(O.Loc);
  if (!reportOnce(Loc))
    return;

  const DeviceFact &H = Facts[Host], &D = Facts[Dev];
  std::string HName = device::quotableText(O.Operands[Host], SM, LO);
  std::string DName = device::quotableText(O.Operands[Dev], SM, LO);
  std::string Fix;
  if (!HName.empty() && !DName.empty()) {
    std::string HObj =
        isSimpleName(O.Operands[Host]) ? HName : "(" + HName + ")";
    std::string DObj =
        isSimpleName(O.Operands[Dev]) ? DName : "(" + DName + ")";
    // Advice that repeats a call would run it twice: name the device instead.
    std::string Spelling;
    if (!isa<DeclRefExpr, MemberExpr>(ast::stripImplicit(O.Operands[Dev])))
      Spelling = deviceSpelling(D, O.E, Fn, SM);
    if (!Spelling.empty()) {
      Fix = "move it with '" + HObj + ".to(" + Spelling + ")'";
      if (H.From.Kind == Origin::Factory)
        Fix += " or create it with the device '" + Spelling + "'";
    } else {
      Fix = "move it with '" + HObj + ".to(" + DObj + ".device())'";
      if (H.From.Kind == Origin::Factory)
        Fix += " or create it with '" + DObj + ".options()'";
    }
  } else {
    Fix = "move it to the other operand's device with '.to(...)'";
  }
  std::string Message = device::describeOperand(HName, H) + " but " +
                        device::describeOperand(DName, D) +
                        "; on a GPU machine this op throws 'Expected all "
                        "tensors to be on the same device'; " +
                        Fix;
  {
    auto Diag = diag(Loc, "%0") << Message;
    // Only a factory call whose tensor is used nowhere else: the operand
    // itself, or a local named once.
    const auto *Factory = dyn_cast_or_null<CallExpr>(H.From.Where);
    const Expr *HostOperand = ast::stripImplicit(O.Operands[Host]);
    const auto *HostVar = dyn_cast<DeclRefExpr>(HostOperand);
    bool UsedOnce = HostOperand == Factory ||
                    (HostVar && isa<VarDecl>(HostVar->getDecl()) &&
                     Uses.lookup(cast<VarDecl>(HostVar->getDecl())) == 1);
    if (H.From.Kind == Origin::Factory && Factory && UsedOnce &&
        device::isOwnOrigin(O.Operands[Host], Factory) &&
        !Fixed.contains(Factory)) {
      SourceLocation At = optionsInsertion(Factory, SM, LO);
      std::string Spelling = deviceSpelling(D, Factory, Fn, SM);
      if (At.isValid() && !Spelling.empty()) {
        Diag << FixItHint::CreateInsertion(At, ", " + Spelling);
        Fixed.insert(Factory);
      }
    }
  }
  device::noteOrigin(*this, HName, O.Operands[Host], H, SM);
  device::noteOrigin(*this, DName, O.Operands[Dev], D, SM);
}

void DeviceMismatchCheck::reportModuleCall(const Op &O, const Expr *Input,
                                           const DeviceFact &InputFact,
                                           const DeviceFact &ModuleFact,
                                           const SourceManager &SM,
                                           const LangOptions &LO) {
  SourceLocation Loc = SM.getFileLoc(O.Loc);
  if (!reportOnce(Loc))
    return;
  std::string IName = device::quotableText(Input, SM, LO);
  // `net->forward(x)` calls forward on `net.operator->()`: name `net`.
  const Expr *Module = ast::stripImplicit(O.Module);
  if (const auto *Arrow = dyn_cast<CXXOperatorCallExpr>(Module);
      Arrow && Arrow->getOperator() == OO_Arrow && Arrow->getNumArgs() == 1)
    Module = Arrow->getArg(0);
  std::string MName = device::quotableText(Module, SM, LO);
  std::string Message = device::describeOperand(IName, InputFact) +
                        " but the module" +
                        (MName.empty() ? "" : " '" + MName + "'") + " is " +
                        ModuleFact.Device.describe();
  if (ModuleFact.From.Kind == Origin::ModuleCreated)
    Message += " (created here, modules start on the CPU)";
  Message += "; on a GPU machine its parameters and this input are on "
             "different devices and the call throws; ";
  // The device to suggest, when a variable names it.
  const DeviceFact &Dev =
      InputFact.Device.isDeviceSide() ? InputFact : ModuleFact;
  std::string Device;
  if (Dev.Device.kind() == DeviceValue::OnDevice)
    Device = Dev.Device.decl()->getName().str();
  else if (const auto *To = dyn_cast_or_null<CXXMemberCallExpr>(Dev.From.Where);
           To && To->getNumArgs() > 0)
    if (const ValueDecl *D = deviceVariableIn(To->getArg(0)))
      Device = D->getName().str();
  if (InputFact.Device.isDeviceSide()) {
    Message += "move the module to the input's device first";
    if (!MName.empty() && !Device.empty())
      Message += ": '" + MName + "->to(" + Device + ")'";
  } else {
    Message += "move the input to the module's device first";
    if (!IName.empty() && !Device.empty())
      Message += ": '" + IName + ".to(" + Device + ")'";
  }
  diag(Loc, "%0") << Message;
  device::noteOrigin(*this, IName, Input, InputFact, SM);
  device::noteOrigin(*this, MName, Module, ModuleFact, SM);
}

} // namespace clang::tidy::torch
