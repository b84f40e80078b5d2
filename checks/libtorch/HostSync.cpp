//===- HostSync.cpp - calls that make the host wait for the device -------===//
#include "libtorch/HostSync.h"
#include "ast/ASTHelpers.h"
#include "libtorch/TorchTypes.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/StringSet.h"

namespace clang::tidy::torch::libtorch {

// clang-format off
static const SyncOperation SyncOperations[] = {
  // Option          Waits for         Callee
  //   Names                                             OutForms
  {"item",          SyncWait::Value,   SyncCallee::Tensor,
     {"item"}},
  {"cpu",           SyncWait::Value,   SyncCallee::Tensor,
     {"cpu"}},
  {"to",            SyncWait::Value,   SyncCallee::Tensor,
     {"to"}},
  {"operator<<",    SyncWait::Value,   SyncCallee::Tensor,
     {}},
  {"operator[]",    SyncWait::Value,   SyncCallee::Tensor,
     {}},
  {"equal",         SyncWait::Value,   SyncCallee::TensorOrFunction,
     {"equal"}},
  {"allclose",      SyncWait::Value,   SyncCallee::TensorOrFunction,
     {"allclose"}},
  {"is_nonzero",    SyncWait::Value,   SyncCallee::TensorOrFunction,
     {"is_nonzero"}},
  {"nonzero",       SyncWait::Shape,   SyncCallee::TensorOrFunction,
     {"nonzero", "nonzero_numpy", "argwhere"},           true},
  {"masked_select", SyncWait::Shape,   SyncCallee::TensorOrFunction,
     {"masked_select"},                                  true},
  {"index",         SyncWait::Shape,   SyncCallee::Tensor,
     {}},
  {"bincount",      SyncWait::Shape,   SyncCallee::TensorOrFunction,
     {"bincount"}},
  {"unique",        SyncWait::Shape,   SyncCallee::TensorOrFunction,
     {"_unique", "_unique2", "unique_dim", "unique_consecutive",
      "unique_dim_consecutive"},                         true},
  {"synchronize",   SyncWait::AllWork, SyncCallee::AnyLibTorch,
     {"synchronize", "device_synchronize"}},
};
// clang-format on

llvm::ArrayRef<SyncOperation> syncOperations() { return SyncOperations; }

const SyncOperation *syncOperationByOption(StringRef Option) {
  for (const SyncOperation &Op : SyncOperations)
    if (Op.Option == Option)
      return &Op;
  return nullptr;
}

/// The built-in operation named \p Name, or null.
static const SyncOperation *operationByName(StringRef Name) {
  StringRef Base = Name;
  Base.consume_back("_outf") || Base.consume_back("_out");
  for (const SyncOperation &Op : SyncOperations)
    for (StringRef N : Op.Names)
      if (!N.empty() && (N == Name || (Op.OutForms && N == Base)))
        return &Op;
  return nullptr;
}

/// Whether \p Op's names apply to a callee of this kind.
static bool appliesTo(const SyncOperation &Op, bool TensorMethod, bool Method,
                      bool InLibTorch) {
  switch (Op.Callee) {
  case SyncCallee::Tensor:
    return TensorMethod;
  case SyncCallee::TensorOrFunction:
    return TensorMethod || (!Method && InLibTorch);
  case SyncCallee::AnyLibTorch:
    return TensorMethod || InLibTorch;
  }
  return false;
}

/// cudaDeviceSynchronize, cudaStreamSynchronize, ...: the CUDA runtime's
/// waits, global C functions.
static bool isCudaRuntimeSync(const FunctionDecl *FD) {
  return FD->getDeclContext()->getRedeclContext()->isTranslationUnit() &&
         FD->getName().starts_with("cuda") &&
         FD->getName().ends_with("Synchronize");
}

static bool denotesCPU(const Expr *E, ASTContext &Ctx, int Depth) {
  if (!E || Depth > 8)
    return false;
  E = ast::stripImplicit(E);
  auto Recurse = [&](const Expr *Sub) {
    return denotesCPU(Sub, Ctx, Depth + 1);
  };
  if (const auto *ET = E->getType()->getAs<EnumType>()) {
    const EnumDecl *ED = ET->getDecl();
    Expr::EvalResult R;
    if (ED->getQualifiedNameAsString() != "c10::DeviceType" ||
        E->isValueDependent() || !E->EvaluateAsInt(R, Ctx))
      return false;
    return llvm::any_of(ED->enumerators(), [&](const EnumConstantDecl *C) {
      return C->getName() == "CPU" &&
             llvm::APSInt::isSameValue(C->getInitVal(), R.Val.getInt());
    });
  }
  if (const auto *SL = dyn_cast<StringLiteral>(E))
    return SL->getCharByteWidth() == 1 &&
           (SL->getString() == "cpu" || SL->getString().starts_with("cpu:"));
  if (const auto *CE = dyn_cast<CXXConstructExpr>(E))
    return CE->getNumArgs() > 0 && !isa<CXXDefaultArgExpr>(CE->getArg(0)) &&
           Recurse(CE->getArg(0));
  if (const auto *FC = dyn_cast<CXXFunctionalCastExpr>(E))
    return Recurse(FC->getSubExpr());
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(E)) {
    const CXXMethodDecl *MD = MC->getMethodDecl();
    if (!MD ||
        MD->getParent()->getQualifiedNameAsString() != "c10::TensorOptions")
      return false;
    if (MD->getDeclName().isIdentifier() && MD->getName() == "device")
      return MC->getNumArgs() > 0 && Recurse(MC->getArg(0));
    return Recurse(MC->getImplicitObjectArgument());
  }
  if (const auto *Call = dyn_cast<CallExpr>(E)) {
    const FunctionDecl *FD = Call->getDirectCallee();
    return FD && FD->getDeclName().isIdentifier() &&
           FD->getName() == "device" && Call->getNumArgs() > 0 &&
           outermostNamespace(FD) != "std" && Recurse(Call->getArg(0));
  }
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E))
    if (const auto *VD = dyn_cast<VarDecl>(DRE->getDecl()))
      return VD->getType().isConstQualified() && VD->getInit() &&
             Recurse(VD->getInit());
  return false;
}

bool denotesCPU(const Expr *E, ASTContext &Ctx) {
  return denotesCPU(E, Ctx, 0);
}

bool isNonBlocking(const CallExpr *Call, ASTContext &Ctx) {
  const FunctionDecl *FD = Call->getDirectCallee();
  if (!FD)
    return false;
  for (unsigned I = 0; I < Call->getNumArgs() && I < FD->getNumParams(); ++I) {
    const Expr *A = Call->getArg(I);
    bool True = false;
    if (!isa<CXXDefaultArgExpr>(A) &&
        FD->getParamDecl(I)->getName() == "non_blocking" &&
        !A->isValueDependent() && A->EvaluateAsBooleanCondition(True, Ctx) &&
        True)
      return true;
  }
  return false;
}

/// `to()` toward the CPU that waits: `non_blocking=true` copies to pinned
/// memory without waiting.
static bool waitsForCopyToCPU(const CallExpr *Call, ASTContext &Ctx) {
  if (isNonBlocking(Call, Ctx))
    return false;
  return llvm::any_of(Call->arguments(), [&](const Expr *A) {
    return !isa<CXXDefaultArgExpr>(A) && denotesCPU(A, Ctx);
  });
}

/// True if \p E is a boolean tensor by how it is made: a comparison
/// (`conf > t`, `x.gt(t)`, `torch::isnan(x)`), a logical operation of masks,
/// `to(torch::kBool)`, a view of a mask (`mask[i]`, `mask.view(-1)`), or a
/// local initialised with one.
static bool isBooleanMask(const Expr *E, unsigned Depth = 0) {
  if (!E || Depth > 8)
    return false;
  E = ast::stripCopiesAndConversions(E);
  static const llvm::StringSet<> Comparisons = {
      "gt",         "lt",          "ge",
      "le",         "eq",          "ne",
      "greater",    "less",        "greater_equal",
      "less_equal", "not_equal",   "isnan",
      "isinf",      "isfinite",    "isposinf",
      "isneginf",   "isclose",     "logical_and",
      "logical_or", "logical_not", "logical_xor",
      "isin"};
  static const llvm::StringSet<> Views = {
      "select",    "view",   "reshape",     "squeeze",  "unsqueeze", "flatten",
      "slice",     "narrow", "contiguous",  "clone",    "detach",    "t",
      "transpose", "expand", "bitwise_not", "squeeze_", "unsqueeze_"};
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E)) {
    switch (Op->getOperator()) {
    case OO_Greater:
    case OO_Less:
    case OO_GreaterEqual:
    case OO_LessEqual:
    case OO_EqualEqual:
    case OO_ExclaimEqual:
    case OO_Exclaim:
      return true;
    case OO_Subscript:
    case OO_Tilde:
      return isBooleanMask(Op->getArg(0), Depth + 1);
    case OO_Amp:
    case OO_Pipe:
    case OO_Caret:
    case OO_AmpAmp:
    case OO_PipePipe:
    case OO_Star: // bool * bool stays bool (`filter_0 * filter_1`)
      return Op->getNumArgs() == 2 && isBooleanMask(Op->getArg(0), Depth + 1) &&
             isBooleanMask(Op->getArg(1), Depth + 1);
    default:
      return false;
    }
  }
  if (const auto *Call = dyn_cast<CallExpr>(E)) {
    const FunctionDecl *FD = Call->getDirectCallee();
    if (!FD || !FD->getIdentifier() || !isLibTorchDecl(FD))
      return false;
    StringRef Name = FD->getName();
    if (Comparisons.contains(Name))
      return true;
    const auto *MC = dyn_cast<CXXMemberCallExpr>(Call);
    if (MC && Views.contains(Name))
      return isBooleanMask(MC->getImplicitObjectArgument(), Depth + 1);
    if (MC && (Name == "to" || Name == "toType"))
      return llvm::any_of(MC->arguments(), [](const Expr *A) {
        const auto *Ref =
            dyn_cast<DeclRefExpr>(ast::stripCopiesAndConversions(A));
        const NamedDecl *D = Ref ? Ref->getDecl() : nullptr;
        return D && D->getIdentifier() &&
               (D->getName() == "kBool" ||
                (isa<EnumConstantDecl>(D) && D->getName() == "Bool"));
      });
    return false;
  }
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E))
    if (const auto *V = dyn_cast<VarDecl>(Ref->getDecl());
        V && V->isLocalVarDecl() && V->getInit())
      return isBooleanMask(V->getInit(), Depth + 1);
  return false;
}

/// True if the indices \p Arg of `Tensor::index` (`{mask}`, `{Slice(),
/// mask}`) hold a boolean mask.
static bool hasBooleanMask(const Stmt *Arg) {
  if (!Arg)
    return false;
  if (const auto *E = dyn_cast<Expr>(Arg); E && isTensorType(E->getType()))
    return isBooleanMask(E);
  for (const Stmt *Child : Arg->children())
    if (hasBooleanMask(Child))
      return true;
  return false;
}

const SyncOperation *syncOperationOf(const CallExpr *Call, bool ResultUsed,
                                     ASTContext &Ctx) {
  const FunctionDecl *FD = Call->getDirectCallee();
  if (!FD)
    return nullptr;
  if (FD->getOverloadedOperator() == OO_LessLess) {
    bool PrintsTensor =
        !isa<CXXMethodDecl>(FD) &&
        llvm::any_of(FD->parameters(), [](const ParmVarDecl *P) {
          return isTensorType(P->getType());
        });
    return PrintsTensor ? syncOperationByOption("operator<<") : nullptr;
  }
  // `x[i]` with a tensor index reads `i.item()` (TensorOperators.h).
  if (FD->getOverloadedOperator() == OO_Subscript) {
    const auto *MD = dyn_cast<CXXMethodDecl>(FD);
    bool TensorIndex = MD && isTensorRecord(MD->getParent()) &&
                       MD->getNumParams() == 1 &&
                       isTensorType(MD->getParamDecl(0)->getType());
    return TensorIndex ? syncOperationByOption("operator[]") : nullptr;
  }
  if (!FD->getDeclName().isIdentifier())
    return nullptr;
  // `x.index({mask})` keeps the elements a boolean mask selects: a nonzero.
  if (const auto *MD = dyn_cast<CXXMethodDecl>(FD);
      MD && FD->getName() == "index" && isTensorRecord(MD->getParent()))
    return Call->getNumArgs() == 1 && hasBooleanMask(Call->getArg(0))
               ? syncOperationByOption("index")
               : nullptr;
  if (isCudaRuntimeSync(FD))
    return syncOperationByOption("synchronize");
  const auto *MD = dyn_cast<CXXMethodDecl>(FD);
  const SyncOperation *Op = operationByName(FD->getName());
  if (!Op || !appliesTo(*Op, MD && isTensorRecord(MD->getParent()), MD,
                        isLibTorchDecl(FD)))
    return nullptr;
  if (Op->Option == "to" && !(ResultUsed && waitsForCopyToCPU(Call, Ctx)))
    return nullptr;
  return Op;
}

std::string syncSubject(const CallExpr *Call) {
  const FunctionDecl *FD = ast::calleeOrOnlyCandidate(Call);
  if (!FD)
    return "";
  const auto *MD = dyn_cast<CXXMethodDecl>(FD);
  if (MD && isTensorRecord(MD->getParent()) && FD->getDeclName().isIdentifier())
    return "'Tensor::" + FD->getName().str() + "'";
  return "'" + FD->getQualifiedNameAsString() + "'";
}

/// The tensor variable a view expression starts from: `dst` in `dst[i]`,
/// `dst.index({i})`, `dst.select(0, i)[j]`.
static const Expr *viewBase(const Expr *E) {
  E = ast::stripImplicit(E);
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E))
    if (Op->getOperator() == OO_Subscript)
      return viewBase(Op->getArg(0));
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(E))
    if (const CXXMethodDecl *MD = MC->getMethodDecl();
        MD && MD->getIdentifier() && isTensorRecord(MD->getParent()) &&
        llvm::is_contained({"index", "select", "narrow", "slice", "view"},
                           MD->getName()))
      return viewBase(MC->getImplicitObjectArgument());
  return isa<DeclRefExpr, MemberExpr>(E) ? E : nullptr;
}

TensorCopy copyIntoTensor(const Expr *E, ASTContext &Ctx) {
  TensorCopy Copy;
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(E)) {
    const CXXMethodDecl *MD = MC->getMethodDecl();
    if (!MD || !MD->getIdentifier() || !isTensorRecord(MD->getParent()) ||
        MC->getNumArgs() == 0 || isNonBlocking(MC, Ctx))
      return Copy;
    StringRef Name = MD->getName();
    unsigned SourceArg = Name == "copy_"         ? 0
                         : Name == "index_put_"  ? 1
                         : Name == "index_copy_" ? 2
                                                 : ~0u;
    if (SourceArg >= MC->getNumArgs() ||
        !isTensorType(MC->getArg(SourceArg)->getType()))
      return Copy;
    Copy.Destination = viewBase(MC->getImplicitObjectArgument());
    Copy.Source = MC->getArg(SourceArg);
    Copy.Subject = "'Tensor::" + Name.str() + "'";
  } else if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E)) {
    const auto *MD = dyn_cast_or_null<CXXMethodDecl>(Op->getDirectCallee());
    if (Op->getOperator() != OO_Equal || !MD ||
        !isTensorRecord(MD->getParent()) || Op->getNumArgs() != 2 ||
        !isTensorType(Op->getArg(1)->getType()))
      return Copy;
    const Expr *Target = ast::stripImplicit(Op->getArg(0));
    if (isa<DeclRefExpr, MemberExpr>(Target))
      return Copy; // rebinding a variable copies nothing
    Copy.Destination = viewBase(Target);
    Copy.Source = Op->getArg(1);
    Copy.Subject = "assigning a tensor into a view";
  }
  if (!Copy.Destination)
    Copy.Source = nullptr;
  return Copy;
}

} // namespace clang::tidy::torch::libtorch
