//===- CudaApi.cpp - what extension code asks of CUDA ---------------------===//
#include "libtorch/CudaApi.h"
#include "ast/ASTHelpers.h"
#include "libtorch/TorchTypes.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringSwitch.h"

namespace clang::tidy::torch::libtorch {

namespace {

/// The name of a direct callee declared outside any class, or "".
llvm::StringRef freeFunctionName(const CallExpr *Call) {
  const auto *FD = dyn_cast_or_null<FunctionDecl>(Call->getCalleeDecl());
  if (!FD || isa<CXXMethodDecl>(FD) || !FD->getIdentifier())
    return "";
  return FD->getName();
}

/// The runtime's launch functions, with the index of their stream argument
/// (~0u: none that torch-tidy reads).
unsigned launchStreamIndex(llvm::StringRef Name) {
  return llvm::StringSwitch<unsigned>(Name)
      .Cases({"cudaLaunchKernel", "cudaLaunchCooperativeKernel"}, 5)
      .Case("cuLaunchKernel", 8)
      .Case("cudaLaunchKernelExC", ~0u)
      .Default(~1u);
}

/// The asynchronous copies and fills, with the index of their stream.
unsigned asyncCopyStreamIndex(llvm::StringRef Name) {
  return llvm::StringSwitch<unsigned>(Name)
      .Case("cudaMemcpyAsync", 4)
      .Case("cudaMemsetAsync", 3)
      .Case("cudaMemcpy2DAsync", 7)
      .Case("cudaMemset2DAsync", 5)
      .Case("cudaMemcpy3DAsync", 1)
      .Case("cudaMemset3DAsync", 3)
      .Case("cudaMemcpyPeerAsync", 5)
      .Cases({"cudaMemcpyToSymbolAsync", "cudaMemcpyFromSymbolAsync"}, 5)
      .Default(~0u);
}

/// The innermost non-inline namespace around \p D, or null.
const NamespaceDecl *enclosingNamespace(const Decl *D) {
  for (const DeclContext *DC = D->getDeclContext(); DC; DC = DC->getParent())
    if (const auto *NS = dyn_cast<NamespaceDecl>(DC))
      if (!NS->isInline())
        return NS;
  return nullptr;
}

bool isThrustAlgorithm(const FunctionDecl *FD) {
  static const llvm::StringSet<> Names = {"sort",
                                          "sort_by_key",
                                          "stable_sort",
                                          "stable_sort_by_key",
                                          "reduce",
                                          "reduce_by_key",
                                          "transform",
                                          "transform_reduce",
                                          "inclusive_scan",
                                          "exclusive_scan",
                                          "inclusive_scan_by_key",
                                          "exclusive_scan_by_key",
                                          "transform_inclusive_scan",
                                          "transform_exclusive_scan",
                                          "copy",
                                          "copy_if",
                                          "copy_n",
                                          "fill",
                                          "fill_n",
                                          "sequence",
                                          "unique",
                                          "unique_by_key",
                                          "unique_copy",
                                          "count",
                                          "count_if",
                                          "for_each",
                                          "for_each_n",
                                          "gather",
                                          "gather_if",
                                          "scatter",
                                          "scatter_if",
                                          "remove",
                                          "remove_if",
                                          "remove_copy_if",
                                          "max_element",
                                          "min_element",
                                          "minmax_element",
                                          "lower_bound",
                                          "upper_bound",
                                          "binary_search",
                                          "equal_range",
                                          "find",
                                          "find_if",
                                          "replace",
                                          "replace_if",
                                          "partition",
                                          "stable_partition",
                                          "adjacent_difference",
                                          "tabulate",
                                          "generate",
                                          "uninitialized_fill",
                                          "set_intersection",
                                          "set_union",
                                          "set_difference",
                                          "merge",
                                          "merge_by_key",
                                          "all_of",
                                          "any_of",
                                          "none_of",
                                          "equal",
                                          "inner_product",
                                          "reverse"};
  const NamespaceDecl *NS = enclosingNamespace(FD);
  return FD->getIdentifier() && !isa<CXXMethodDecl>(FD) && NS &&
         NS->getName() == "thrust" && Names.contains(FD->getName());
}

/// The canonical type name of \p E's type, without references.
std::string typeName(const Expr *E) {
  PrintingPolicy Policy{LangOptions()};
  Policy.SuppressTagKeyword = true;
  return E->getType()
      .getNonReferenceType()
      .getCanonicalType()
      .getUnqualifiedType()
      .getAsString(Policy);
}

StreamUse classifyStream(const Expr *S) {
  if (!S || isa<CXXDefaultArgExpr>(S))
    return StreamUse::NoStream;
  S = S->IgnoreParens();
  while (true) {
    if (const auto *Cast = dyn_cast<CastExpr>(S)) {
      // A conversion operator (CUDAStream -> cudaStream_t) is a real stream.
      if (Cast->getCastKind() == CK_UserDefinedConversion)
        return StreamUse::Given;
      S = Cast->getSubExpr()->IgnoreParens();
      continue;
    }
    if (const auto *Cleanups = dyn_cast<ExprWithCleanups>(S)) {
      S = Cleanups->getSubExpr()->IgnoreParens();
      continue;
    }
    break;
  }
  if (isa<CXXNullPtrLiteralExpr, GNUNullExpr>(S))
    return StreamUse::Legacy;
  if (const auto *Lit = dyn_cast<IntegerLiteral>(S)) {
    uint64_t V = Lit->getValue().getLimitedValue();
    return V == 2   ? StreamUse::PerThread
           : V <= 1 ? StreamUse::Legacy
                    : StreamUse::Given;
  }
  return StreamUse::Given;
}

} // namespace

bool isKernelLaunch(const Expr *E) {
  if (isa<CUDAKernelCallExpr>(E))
    return true;
  const auto *Call = dyn_cast<CallExpr>(E);
  return Call && launchStreamIndex(freeFunctionName(Call)) != ~1u;
}

std::string launchedName(const Expr *Launch) {
  const auto *Call = cast<CallExpr>(Launch);
  const Expr *Callee = Call->getCallee();
  if (!isa<CUDAKernelCallExpr>(Call)) {
    if (Call->getNumArgs() == 0)
      return freeFunctionName(Call).str();
    Callee = Call->getArg(0);
  }
  Callee = Callee->IgnoreParenCasts();
  if (const auto *UO = dyn_cast<UnaryOperator>(Callee))
    Callee = UO->getSubExpr()->IgnoreParenCasts();
  if (const auto *DRE = dyn_cast<DeclRefExpr>(Callee))
    return DRE->getNameInfo().getAsString();
  if (const auto *ULE = dyn_cast<UnresolvedLookupExpr>(Callee))
    return ULE->getName().getAsString();
  return isa<CUDAKernelCallExpr>(Call) ? "the kernel"
                                       : freeFunctionName(Call).str();
}

const Expr *streamArgument(const Expr *Work) {
  const auto *Call = dyn_cast<CallExpr>(Work);
  if (!Call)
    return nullptr;
  unsigned Index = ~0u;
  if (const auto *K = dyn_cast<CUDAKernelCallExpr>(Call)) {
    Call = K->getConfig();
    Index = 3;
  } else {
    llvm::StringRef Name = freeFunctionName(Call);
    Index = launchStreamIndex(Name);
    if (Index >= ~1u)
      Index = asyncCopyStreamIndex(Name);
  }
  if (!Call || Index >= Call->getNumArgs() ||
      isa<CXXDefaultArgExpr>(Call->getArg(Index)))
    return nullptr;
  return Call->getArg(Index);
}

StreamUse streamUse(const Expr *Work) {
  const auto *Call = dyn_cast<CallExpr>(Work);
  if (!Call)
    return StreamUse::NotAStreamCall;
  if (isBlockingRuntimeCopy(Call))
    return StreamUse::NoStream;
  if (const StreamUse Thrust = thrustStreamUse(Call);
      Thrust != StreamUse::NotAStreamCall)
    return Thrust;
  llvm::StringRef Name = freeFunctionName(Call);
  bool TakesStream = isa<CUDAKernelCallExpr>(Call) ||
                     launchStreamIndex(Name) < ~1u ||
                     asyncCopyStreamIndex(Name) != ~0u;
  if (!TakesStream)
    return StreamUse::NotAStreamCall;
  return classifyStream(streamArgument(Call));
}

bool isBlockingRuntimeCopy(const CallExpr *Call) {
  return llvm::StringSwitch<bool>(freeFunctionName(Call))
      .Cases({"cudaMemcpy", "cudaMemset", "cudaMemcpy2D", "cudaMemset2D"}, true)
      .Cases({"cudaMemcpy3D", "cudaMemset3D", "cudaMemcpyPeer"}, true)
      .Cases({"cudaMemcpyToSymbol", "cudaMemcpyFromSymbol"}, true)
      .Default(false);
}

bool isAsyncRuntimeCopy(const CallExpr *Call) {
  return asyncCopyStreamIndex(freeFunctionName(Call)) != ~0u;
}

StreamUse thrustStreamUse(const CallExpr *Call) {
  const auto *FD = dyn_cast_or_null<FunctionDecl>(Call->getCalleeDecl());
  if (!FD || !isThrustAlgorithm(FD) || Call->getNumArgs() == 0)
    return StreamUse::NotAStreamCall;
  std::string Policy = typeName(Call->getArg(0));
  if (llvm::StringRef(Policy).starts_with("thrust::") &&
      (llvm::StringRef(Policy).contains("execution_policy") ||
       llvm::StringRef(Policy).contains("_t") ||
       llvm::StringRef(Policy).contains("execute_"))) {
    llvm::StringRef P(Policy);
    if (P.contains("stream"))
      return StreamUse::Given;
    if (P.contains("host") || P.contains("seq") || P.contains("cpp::") ||
        P.contains("omp::") || P.contains("tbb::"))
      return StreamUse::NotAStreamCall;
    if (P.contains("device") || P.contains("cuda") || P.contains("par"))
      return StreamUse::NoStream;
    return StreamUse::NotAStreamCall;
  }
  for (const Expr *Arg : Call->arguments())
    if (llvm::StringRef(typeName(Arg)).contains("thrust::device_ptr"))
      return StreamUse::NoStream;
  return StreamUse::NotAStreamCall;
}

bool isGpuWork(const Expr *E) {
  if (isKernelLaunch(E))
    return true;
  const auto *Call = dyn_cast<CallExpr>(E);
  if (!Call || isa<CXXMemberCallExpr, CXXOperatorCallExpr>(Call))
    return false;
  if (isBlockingRuntimeCopy(Call) || isAsyncRuntimeCopy(Call) ||
      thrustStreamUse(Call) != StreamUse::NotAStreamCall)
    return true;
  llvm::StringRef Name = freeFunctionName(Call);
  if ((Name.starts_with("cublas") || Name.starts_with("cusparse") ||
       Name.starts_with("cusolver")) &&
      !Name.contains("Create") && !Name.contains("Destroy") &&
      !Name.contains("SetStream") && !Name.contains("GetStream"))
    return true;
  // cub's device-wide algorithms: static members of cub::DeviceReduce, ...
  if (const auto *MD = dyn_cast_or_null<CXXMethodDecl>(Call->getCalleeDecl()))
    if (const NamespaceDecl *NS = enclosingNamespace(MD->getParent()))
      return NS->getName() == "cub" && MD->isStatic() &&
             MD->getParent()->getName().starts_with("Device");
  return false;
}

bool isDeviceGuardVariable(const VarDecl *V) {
  const auto *RD = V->getType().getNonReferenceType()->getAsCXXRecordDecl();
  if (!RD || !RD->getIdentifier())
    return false;
  static const llvm::StringSet<> Guards = {
      "c10::cuda::CUDAGuard",
      "c10::cuda::OptionalCUDAGuard",
      "c10::cuda::CUDAStreamGuard",
      "c10::cuda::OptionalCUDAStreamGuard",
      "c10::cuda::CUDAMultiStreamGuard",
      "c10::DeviceGuard",
      "c10::OptionalDeviceGuard",
      "c10::StreamGuard",
      "c10::OptionalStreamGuard",
      "c10::hip::HIPGuard",
      "c10::hip::OptionalHIPGuard",
      "c10::hip::HIPStreamGuard",
      "c10::hip::HIPGuardMasqueradingAsCUDA",
      "c10::hip::OptionalHIPGuardMasqueradingAsCUDA"};
  return Guards.contains(RD->getQualifiedNameAsString());
}

bool isDeviceSelection(const CallExpr *Call) {
  if (freeFunctionName(Call) == "cudaSetDevice")
    return true;
  const auto *FD = dyn_cast_or_null<FunctionDecl>(Call->getCalleeDecl());
  if (!FD || !FD->getIdentifier() || !isLibTorchDecl(FD))
    return false;
  std::string Name = FD->getQualifiedNameAsString();
  return Name == "c10::cuda::set_device" || Name == "c10::cuda::SetDevice" ||
         Name == "c10::cuda::MaybeSetDevice";
}

bool isLaunchErrorRead(const CallExpr *Call) {
  llvm::StringRef Name = freeFunctionName(Call);
  return Name == "cudaGetLastError" || Name == "cudaPeekAtLastError";
}

bool isTensorMemoryAccessName(llvm::StringRef Name) {
  return llvm::StringSwitch<bool>(Name)
      .Cases({"data_ptr", "data", "const_data_ptr", "mutable_data_ptr"}, true)
      .Cases({"packed_accessor32", "packed_accessor64", "packed_accessor",
              "generic_packed_accessor"},
             true)
      .Default(false);
}

bool isTensorMemoryAccess(const CXXMemberCallExpr *Call) {
  const CXXMethodDecl *MD = Call->getMethodDecl();
  return MD && MD->getIdentifier() && isTensorRecord(MD->getParent()) &&
         isTensorMemoryAccessName(MD->getName());
}

bool isCudaDeviceTest(const CXXMemberCallExpr *Call) {
  const CXXMethodDecl *MD = Call->getMethodDecl();
  return MD && MD->getIdentifier() && MD->getName() == "is_cuda" &&
         isLibTorchDecl(MD);
}

bool namesCuda(const Expr *E) {
  if (!E || isa<LambdaExpr>(E))
    return false;
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
    const ValueDecl *D = DRE->getDecl();
    if (D->getIdentifier() &&
        (D->getName() == "kCUDA" ||
         (isa<EnumConstantDecl>(D) && D->getName() == "CUDA")))
      return true;
  }
  for (const Stmt *Child : E->children())
    if (const auto *CE = dyn_cast_or_null<Expr>(Child); CE && namesCuda(CE))
      return true;
  return false;
}

const Expr *deviceOperandOf(const Expr *E) {
  E = E ? E->IgnoreParenImpCasts() : nullptr;
  while (const auto *Tmp = dyn_cast_or_null<MaterializeTemporaryExpr>(E))
    E = Tmp->getSubExpr()->IgnoreParenImpCasts();
  if (const auto *Bind = dyn_cast_or_null<CXXBindTemporaryExpr>(E))
    E = Bind->getSubExpr()->IgnoreParenImpCasts();
  const auto *MC = dyn_cast_or_null<CXXMemberCallExpr>(E);
  const CXXMethodDecl *MD = MC ? MC->getMethodDecl() : nullptr;
  if (!MD || !MD->getIdentifier())
    return nullptr;
  const Expr *Object = MC->getImplicitObjectArgument()->IgnoreParenImpCasts();
  llvm::StringRef Name = MD->getName();
  if (Name == "type" || Name == "device")
    if (const Expr *Inner = deviceOperandOf(Object))
      return Inner; // t.device().type(), t.options().device()
  if ((Name == "device" || Name == "get_device") &&
      isTensorType(Object->getType().getNonReferenceType()))
    return Object;
  if (Name == "options" &&
      isTensorType(Object->getType().getNonReferenceType()))
    return Object; // the options carry the device
  return nullptr;
}

bool isCheckFailure(const Stmt *S) {
  if (isa<CXXThrowExpr>(S))
    return true;
  const auto *Call = dyn_cast<CallExpr>(S);
  const FunctionDecl *FD = Call ? Call->getDirectCallee() : nullptr;
  return FD && FD->getIdentifier() &&
         (FD->getName() == "torchCheckFail" ||
          FD->getName() == "torchInternalAssertFail");
}

namespace {
/// The declarations named \p Id in namespace (or the translation unit)
/// \p DC, through the using-directives written there.
llvm::SmallVector<const NamedDecl *, 2>
lookupThrough(const DeclContext *DC, IdentifierInfo &Id, unsigned Depth = 2) {
  llvm::SmallVector<const NamedDecl *, 2> Found;
  for (const NamedDecl *D : DC->lookup(&Id))
    Found.push_back(D);
  if (Found.empty() && Depth > 0)
    for (const UsingDirectiveDecl *UD : DC->using_directives())
      if (const NamespaceDecl *NS = UD->getNominatedNamespace())
        for (const NamedDecl *D : lookupThrough(NS, Id, Depth - 1))
          Found.push_back(D);
  return Found;
}
} // namespace

bool declaresQualifiedName(ASTContext &Ctx, llvm::StringRef Name) {
  llvm::SmallVector<llvm::StringRef, 4> Parts;
  Name.split(Parts, "::");
  const DeclContext *DC = Ctx.getTranslationUnitDecl();
  for (size_t I = 0; I < Parts.size(); ++I) {
    auto Found = lookupThrough(DC, Ctx.Idents.get(Parts[I]));
    if (Found.empty())
      return false;
    if (I + 1 == Parts.size())
      return true;
    const DeclContext *Next = nullptr;
    for (const NamedDecl *D : Found)
      if (const auto *NS = dyn_cast<NamespaceDecl>(D->getUnderlyingDecl()))
        Next = NS;
    if (!Next)
      return false;
    DC = Next;
  }
  return false;
}

bool isStreamType(QualType T) {
  T = T.getNonReferenceType().getCanonicalType();
  if (const auto *P = T->getAs<PointerType>()) {
    const auto *RD = P->getPointeeType()->getAsRecordDecl();
    return RD && RD->getIdentifier() && RD->getName() == "CUstream_st";
  }
  const auto *RD = T->getAsCXXRecordDecl();
  if (!RD || !RD->getIdentifier())
    return false;
  std::string Name = RD->getQualifiedNameAsString();
  return Name == "c10::cuda::CUDAStream" || Name == "c10::Stream";
}

bool includesLibTorch(ASTContext &Ctx) {
  return declaresQualifiedName(Ctx, "at::Tensor");
}

} // namespace clang::tidy::torch::libtorch
