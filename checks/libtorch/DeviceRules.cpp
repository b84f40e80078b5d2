//===- DeviceRules.cpp - LibTorch's device rules, by name and type -------===//
#include "libtorch/DeviceRules.h"
#include "ast/ASTHelpers.h"
#include "libtorch/CudaApi.h"
#include "libtorch/HostSync.h"
#include "libtorch/ProgramCode.h"
#include "libtorch/TorchModules.h"
#include "libtorch/TorchTypes.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringSwitch.h"

namespace clang::tidy::torch::libtorch {

/// True if \p D is declared directly in namespace \p NS (one component).
static bool inNamespace(const Decl *D, StringRef NS) {
  const auto *N = dyn_cast_or_null<NamespaceDecl>(D->getDeclContext());
  return N && N->getIdentifier() && N->getName() == NS;
}

static bool isNamed(const NamedDecl *D, StringRef Name) {
  return D && D->getIdentifier() && D->getName() == Name;
}

static const CXXRecordDecl *templateArgClass(const CXXRecordDecl *RD) {
  const auto *Spec = dyn_cast_or_null<ClassTemplateSpecializationDecl>(RD);
  if (!Spec || Spec->getTemplateArgs().size() < 1 ||
      Spec->getTemplateArgs()[0].getKind() != TemplateArgument::Type)
    return nullptr;
  return Spec->getTemplateArgs()[0].getAsType()->getAsCXXRecordDecl();
}

static bool isExampleClass(const CXXRecordDecl *RD) {
  return isNamed(RD, "Example") && inNamespace(RD, "data") &&
         isLibTorchDecl(RD);
}

Carrier carrierOf(QualType T) {
  if (T.isNull())
    return Carrier::None;
  T = T.getNonReferenceType();
  if (const auto *ET = T->getAs<EnumType>()) {
    const EnumDecl *ED = ET->getDecl();
    return isNamed(ED, "DeviceType") && inNamespace(ED, "c10")
               ? Carrier::DeviceType
               : Carrier::None;
  }
  if (T->isPointerType()) {
    const CXXRecordDecl *P = T->getPointeeCXXRecordDecl();
    return P && isModuleClass(P) ? Carrier::Module : Carrier::None;
  }
  const CXXRecordDecl *RD = T->getAsCXXRecordDecl();
  if (!RD || !RD->getIdentifier())
    return Carrier::None;
  StringRef Name = RD->getName();
  if ((Name == "Tensor" || Name == "TensorBase") && inNamespace(RD, "at"))
    return Carrier::Tensor;
  if (Name == "Device" && inNamespace(RD, "c10"))
    return Carrier::Device;
  if (Name == "TensorOptions" && inNamespace(RD, "c10"))
    return Carrier::Options;
  if (isExampleClass(RD))
    return Carrier::Example;
  if (Name == "shared_ptr" || Name == "vector") {
    const CXXRecordDecl *Arg = templateArgClass(RD);
    if (!Arg || outermostNamespace(RD) != "std")
      return Carrier::None;
    if (Name == "shared_ptr")
      return isModuleClass(Arg) ? Carrier::Module : Carrier::None;
    return isExampleClass(Arg) ? Carrier::ExampleVector : Carrier::None;
  }
  if (outermostNamespace(RD) == "std")
    return Carrier::None;
  if (isOrDerivesFrom(RD, "torch::nn::ModuleHolder") || isModuleClass(RD))
    return Carrier::Module;
  return Carrier::None;
}

FactoryKind factoryKind(const FunctionDecl *FD) {
  if (!FD || !FD->getIdentifier() ||
      !(inNamespace(FD, "torch") || inNamespace(FD, "at")))
    return FactoryKind::None;
  StringRef N = FD->getName();
  if (N.ends_with("_like") && !N.starts_with("_"))
    return FactoryKind::Like;
  if (N.ends_with("_window") || N == "fft_fftfreq" || N == "fft_rfftfreq")
    return FactoryKind::Vector;
  return llvm::StringSwitch<FactoryKind>(N)
      .Cases({"randn", "rand", "randint", "zeros", "ones", "empty", "full",
              "empty_strided", "normal"},
             FactoryKind::Sized)
      .Cases({"arange", "range", "linspace", "logspace", "randperm"},
             FactoryKind::Vector)
      .Cases({"eye", "tril_indices", "triu_indices"}, FactoryKind::Matrix)
      .Case("tensor", FactoryKind::Data)
      .Case("from_blob", FactoryKind::FromBlob)
      .Case("scalar_tensor", FactoryKind::Scalar)
      .Default(FactoryKind::None);
}

static const InitListExpr *findInitList(const Expr *E, int Depth = 0) {
  if (!E || Depth > 6)
    return nullptr;
  E = ast::stripImplicit(E);
  if (const auto *IL = dyn_cast<InitListExpr>(E))
    return IL;
  if (const auto *IL = dyn_cast<CXXStdInitializerListExpr>(E))
    return findInitList(IL->getSubExpr(), Depth + 1);
  if (const auto *M = dyn_cast<MaterializeTemporaryExpr>(E))
    return findInitList(M->getSubExpr(), Depth + 1);
  if (const auto *B = dyn_cast<CXXBindTemporaryExpr>(E))
    return findInitList(B->getSubExpr(), Depth + 1);
  if (const auto *CE = dyn_cast<CXXConstructExpr>(E))
    if (CE->getNumArgs() == 1)
      return findInitList(CE->getArg(0), Depth + 1);
  return nullptr;
}

const InitListExpr *initListOf(const Expr *E) { return findInitList(E); }

void addTensorOperands(const Expr *Arg,
                       llvm::SmallVectorImpl<const Expr *> &Out) {
  if (isa<CXXDefaultArgExpr>(Arg))
    return;
  if (carrierOf(Arg->getType()) == Carrier::Tensor) {
    Out.push_back(Arg);
    return;
  }
  if (const InitListExpr *IL = initListOf(Arg)) {
    for (const Expr *Init : IL->inits())
      if (carrierOf(Init->getType()) == Carrier::Tensor)
        Out.push_back(Init);
    return;
  }
  // c10::optional<Tensor> built from a tensor.
  const auto *CE = dyn_cast<CXXConstructExpr>(ast::stripImplicit(Arg));
  if (CE && CE->getNumArgs() == 1 &&
      carrierOf(CE->getArg(0)->getType()) == Carrier::Tensor)
    Out.push_back(CE->getArg(0));
}

bool isFullReduction(StringRef Name) {
  return llvm::StringSwitch<bool>(Name)
      .Cases({"sum",     "mean",   "prod",   "max",           "min",
              "amax",    "amin",   "norm",   "all",           "any",
              "std",     "var",    "median", "nanmedian",     "nansum",
              "nanmean", "argmax", "argmin", "count_nonzero", "trace",
              "dot",     "vdot"},
             true)
      .Default(false);
}

bool keepsRank(StringRef Name) {
  if (Name.size() > 1 && Name.ends_with("_") && !Name.starts_with("_"))
    return true;
  static const llvm::StringSet<> Names = {
      "abs",       "neg",         "negative",    "exp",           "exp2",
      "expm1",     "log",         "log2",        "log10",         "log1p",
      "sqrt",      "rsqrt",       "relu",        "relu6",         "sigmoid",
      "tanh",      "sin",         "cos",         "tan",           "asin",
      "acos",      "atan",        "sinh",        "cosh",          "floor",
      "ceil",      "round",       "trunc",       "frac",          "sign",
      "sgn",       "reciprocal",  "square",      "clamp",         "clamp_min",
      "clamp_max", "clip",        "float",       "double",        "half",
      "bfloat16",  "int",         "long",        "short",         "bool",
      "byte",      "char",        "to",          "cpu",           "cuda",
      "clone",     "detach",      "contiguous",  "softmax",       "log_softmax",
      "cumsum",    "cumprod",     "type_as",     "pin_memory",    "gelu",
      "silu",      "elu",         "leaky_relu",  "hardtanh",      "logit",
      "erf",       "erfc",        "nan_to_num",  "isnan",         "isinf",
      "isfinite",  "logical_not", "bitwise_not", "flip",          "roll",
      "t",         "transpose",   "permute",     "triu",          "tril",
      "dropout",   "bernoulli",   "masked_fill", "requires_grad", "toType",
      "type"};
  return Names.contains(Name);
}

bool isBroadcastingOp(StringRef Name) {
  static const llvm::StringSet<> Names = {"add",
                                          "sub",
                                          "subtract",
                                          "mul",
                                          "multiply",
                                          "div",
                                          "divide",
                                          "true_divide",
                                          "floor_divide",
                                          "remainder",
                                          "fmod",
                                          "pow",
                                          "atan2",
                                          "hypot",
                                          "eq",
                                          "ne",
                                          "lt",
                                          "le",
                                          "gt",
                                          "ge",
                                          "greater",
                                          "less",
                                          "greater_equal",
                                          "less_equal",
                                          "not_equal",
                                          "maximum",
                                          "minimum",
                                          "fmax",
                                          "fmin",
                                          "logical_and",
                                          "logical_or",
                                          "logical_xor",
                                          "bitwise_and",
                                          "bitwise_or",
                                          "bitwise_xor",
                                          "where",
                                          "lerp",
                                          "addcmul",
                                          "addcdiv",
                                          "copysign",
                                          "xlogy",
                                          "rsub"};
  return Names.contains(Name);
}

bool isDeviceMixAllowed(StringRef Name) {
  if (Name.starts_with("index") || Name.starts_with("_index") ||
      Name.starts_with("scatter") || Name.starts_with("masked_") ||
      Name.starts_with("new_") || Name.ends_with("_like") ||
      Name.ends_with("_as") || Name.ends_with("_as_") ||
      Name.contains("ctc_loss") || Name.contains("pack_padded_sequence") ||
      Name.starts_with("copy") || Name.starts_with("_copy"))
    return true;
  static const llvm::StringSet<> Names = {
      "to",          "_to_copy",       "type_as",
      "set_",        "set_data",       "is_same_size",
      "is_set_to",   "equal",          "gather",
      "take",        "take_along_dim", "put",
      "put_",        "tensor_split",   "repeat_interleave",
      "backward",    "_backward",      "register_hook",
      "retain_grad", "narrow",         "broadcast_to",
      "grad",        "requires_grad_", "_has_same_storage_numel"};
  return Names.contains(Name);
}

static bool isCudaFunction(const Expr *E, StringRef Name) {
  const auto *Call = dyn_cast_or_null<CallExpr>(ast::stripImplicit(E));
  const FunctionDecl *FD = Call ? Call->getDirectCallee() : nullptr;
  return FD && isNamed(FD, Name) && inNamespace(FD, "cuda") &&
         isLibTorchDecl(FD);
}

bool isCudaAvailabilityTest(const Expr *Cond, bool &Negated) {
  Cond = ast::stripImplicit(Cond);
  if (!Cond)
    return false;
  if (const auto *UO = dyn_cast<UnaryOperator>(Cond))
    if (UO->getOpcode() == UO_LNot) {
      bool Inner = false;
      if (!isCudaAvailabilityTest(UO->getSubExpr(), Inner))
        return false;
      Negated = !Inner;
      return true;
    }
  Negated = false;
  if (isCudaFunction(Cond, "is_available"))
    return true;
  // device_count() > 0, device_count() >= 1, device_count() != 0
  if (const auto *BO = dyn_cast<BinaryOperator>(Cond)) {
    if (!isCudaFunction(BO->getLHS(), "device_count"))
      return false;
    const auto *Lit =
        dyn_cast<IntegerLiteral>(ast::stripImplicit(BO->getRHS()));
    if (!Lit)
      return false;
    uint64_t V = Lit->getValue().getZExtValue();
    return (BO->getOpcode() == BO_GT && V == 0) ||
           (BO->getOpcode() == BO_GE && V == 1) ||
           (BO->getOpcode() == BO_NE && V == 0);
  }
  return false;
}

const CXXRecordDecl *moduleClassOf(QualType T) {
  if (T.isNull())
    return nullptr;
  T = T.getNonReferenceType();
  if (T->isPointerType())
    T = T->getPointeeType();
  const CXXRecordDecl *RD = T->getAsCXXRecordDecl();
  if (!RD)
    return nullptr;
  if (isNamed(RD, "shared_ptr"))
    return templateArgClass(RD);
  if (isModuleClass(RD))
    return RD;
  // A holder: the Impl argument of its ModuleHolder<Impl> base.
  for (const CXXRecordDecl *Cur = RD->getDefinition(); Cur;) {
    if (isNamed(Cur, "ModuleHolder"))
      return templateArgClass(Cur);
    const CXXRecordDecl *Next = nullptr;
    for (const CXXBaseSpecifier &B : Cur->bases())
      if (const CXXRecordDecl *Base = B.getType()->getAsCXXRecordDecl())
        if (isOrDerivesFrom(Base, "torch::nn::ModuleHolder"))
          Next = Base->getDefinition() ? Base->getDefinition() : Base;
    Cur = Next;
  }
  return nullptr;
}

namespace {
/// Finds a register_parameter / register_buffer / register_module call.
struct RegisterFinder : RecursiveASTVisitor<RegisterFinder> {
  bool Found = false;
  bool VisitCXXMemberCallExpr(CXXMemberCallExpr *Call) {
    if (asRegisterCall(Call))
      Found = true;
    return !Found;
  }
};
} // namespace

bool moduleHasParameters(const CXXRecordDecl *RD) {
  if (!RD || !RD->getIdentifier())
    return false;
  if (isLibTorchDecl(RD)) {
    StringRef N = RD->getName();
    N.consume_back("Impl");
    static const llvm::StringSet<> WithWeights = {"Linear",
                                                  "Bilinear",
                                                  "Conv1d",
                                                  "Conv2d",
                                                  "Conv3d",
                                                  "ConvTranspose1d",
                                                  "ConvTranspose2d",
                                                  "ConvTranspose3d",
                                                  "BatchNorm1d",
                                                  "BatchNorm2d",
                                                  "BatchNorm3d",
                                                  "LayerNorm",
                                                  "GroupNorm",
                                                  "Embedding",
                                                  "EmbeddingBag",
                                                  "LSTM",
                                                  "GRU",
                                                  "RNN",
                                                  "LSTMCell",
                                                  "GRUCell",
                                                  "RNNCell",
                                                  "PReLU",
                                                  "MultiheadAttention",
                                                  "Transformer",
                                                  "TransformerEncoder",
                                                  "TransformerDecoder",
                                                  "TransformerEncoderLayer",
                                                  "TransformerDecoderLayer",
                                                  "Sequential",
                                                  "ModuleList",
                                                  "ModuleDict",
                                                  "AdaptiveLogSoftmaxWithLoss"};
    return WithWeights.contains(N);
  }
  const CXXRecordDecl *Def = RD->getDefinition();
  if (!Def)
    return false;
  for (const FieldDecl *F : Def->fields())
    if (moduleMemberKind(F->getType()) != MemberKind::None)
      return true;
  for (const CXXConstructorDecl *Ctor : Def->ctors()) {
    RegisterFinder Finder;
    if (Ctor->hasBody())
      Finder.TraverseStmt(Ctor->getBody());
    if (Finder.Found)
      return true;
  }
  for (const CXXBaseSpecifier &B : Def->bases()) {
    const CXXRecordDecl *Base = B.getType()->getAsCXXRecordDecl();
    if (Base && !isLibTorchDecl(Base) && moduleHasParameters(Base))
      return true;
  }
  return false;
}

bool isLossModule(const CXXRecordDecl *RD) {
  return RD && RD->getIdentifier() && isLibTorchDecl(RD) &&
         RD->getName().ends_with("LossImpl");
}

bool isSerializeLoad(const FunctionDecl *FD) {
  // torch::load itself, not torch::jit::load (which returns its module).
  return isNamed(FD, "load") && inNamespace(FD, "torch") &&
         isa<TranslationUnitDecl>(FD->getDeclContext()->getParent());
}

bool isWeightlessLayer(const CXXRecordDecl *RD) {
  if (!RD || !RD->getIdentifier() || !isLibTorchDecl(RD) ||
      !RD->getName().ends_with("Impl") || moduleHasParameters(RD))
    return false;
  StringRef N = RD->getName();
  return !N.starts_with("InstanceNorm") && !N.starts_with("Functional") &&
         !N.starts_with("Any") && !isLossModule(RD);
}

std::optional<bool> holdsOnlyOnCPU(const Expr *Cond, ASTContext &Ctx) {
  Cond = ast::stripImplicit(Cond);
  if (!Cond)
    return std::nullopt;
  if (const auto *UO = dyn_cast<UnaryOperator>(Cond);
      UO && UO->getOpcode() == UO_LNot) {
    std::optional<bool> Inner = holdsOnlyOnCPU(UO->getSubExpr(), Ctx);
    return Inner ? std::optional<bool>(!*Inner) : std::nullopt;
  }
  if (bool Negated = false; isCudaAvailabilityTest(Cond, Negated))
    return Negated;
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Cond)) {
    if (isCudaDeviceTest(MC))
      return false;
    if (const CXXMethodDecl *MD = MC->getMethodDecl();
        MD && MD->getIdentifier() && MD->getName() == "is_cpu" &&
        isLibTorchDecl(MD))
      return true;
  }
  // device == kCPU, kCUDA != device.type(), ...
  const Expr *LHS = nullptr, *RHS = nullptr;
  bool Equal = false;
  if (const auto *BO = dyn_cast<BinaryOperator>(Cond);
      BO && BO->isEqualityOp()) {
    LHS = BO->getLHS();
    RHS = BO->getRHS();
    Equal = BO->getOpcode() == BO_EQ;
  } else if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Cond);
             Op && Op->getNumArgs() == 2 &&
             (Op->getOperator() == OO_EqualEqual ||
              Op->getOperator() == OO_ExclaimEqual)) {
    LHS = Op->getArg(0);
    RHS = Op->getArg(1);
    Equal = Op->getOperator() == OO_EqualEqual;
  }
  if (!LHS)
    return std::nullopt;
  if (denotesCPU(RHS, Ctx) || denotesCPU(LHS, Ctx))
    return Equal;
  if (namesCuda(RHS) || namesCuda(LHS))
    return !Equal;
  return std::nullopt;
}

/// True for c10::Device and c10::DeviceType, through pointers, references,
/// smart pointers and optionals.
static bool namesDeviceType(QualType T) {
  std::string Name = T.getCanonicalType().getAsString();
  return StringRef(Name).contains("c10::Device");
}

/// True when \p S names a device or calls `cuda()`.
static bool handlesDevice(const Stmt *S) {
  if (!S)
    return false;
  if (const auto *E = dyn_cast<Expr>(S)) {
    if (!E->isTypeDependent() && namesDeviceType(E->getType()))
      return true;
    if (const auto *MC = dyn_cast<CXXMemberCallExpr>(E))
      if (const CXXMethodDecl *MD = MC->getMethodDecl();
          MD && MD->getIdentifier() && MD->getName() == "cuda" &&
          isTensorRecord(MD->getParent()))
        return true;
  }
  return llvm::any_of(S->children(), handlesDevice);
}

static bool datasetHandlesDevice(const CXXRecordDecl *RD) {
  RD = RD ? RD->getDefinition() : nullptr;
  if (!RD || isLibraryDecl(RD))
    return false;
  if (llvm::any_of(RD->fields(), [](const FieldDecl *F) {
        return namesDeviceType(F->getType());
      }))
    return true;
  for (const CXXMethodDecl *MD : RD->methods()) {
    if (isa<CXXConstructorDecl>(MD) &&
        llvm::any_of(MD->parameters(), [](const ParmVarDecl *P) {
          return namesDeviceType(P->getType());
        }))
      return true;
    const FunctionDecl *Def = nullptr;
    if (MD->hasBody(Def) && handlesDevice(Def->getBody()))
      return true;
  }
  return false;
}

/// Walks the template arguments of \p T (a loader, a MapDataset, ...) for
/// the program's datasets.
static bool anyDatasetHandlesDevice(QualType T, unsigned Depth) {
  const auto *RD = T.isNull() ? nullptr : T->getAsCXXRecordDecl();
  if (!RD || Depth > 6)
    return false;
  if (datasetHandlesDevice(RD))
    return true;
  const auto *Spec = dyn_cast<ClassTemplateSpecializationDecl>(RD);
  if (!Spec)
    return false;
  for (const TemplateArgument &Arg : Spec->getTemplateArgs().asArray())
    if (Arg.getKind() == TemplateArgument::Type &&
        anyDatasetHandlesDevice(Arg.getAsType(), Depth + 1))
      return true;
  return false;
}

bool loaderDatasetHandlesDevice(QualType LoaderType) {
  return anyDatasetHandlesDevice(LoaderType.getNonReferenceType(), 0);
}

} // namespace clang::tidy::torch::libtorch
