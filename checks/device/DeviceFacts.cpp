//===- DeviceFacts.cpp - what DeviceFlow knows about one value -----------===//
#include "device/DeviceFacts.h"

namespace clang::tidy::torch::device {

DeviceValue DeviceValue::join(const DeviceValue &A, const DeviceValue &B) {
  if (A.isBottom())
    return B;
  if (B.isBottom() || A == B)
    return A;
  if (A.Kind == CUDA && B.Kind == CUDA)
    return cuda(A.Index == B.Index ? A.Index : -1,
                A.IfAvailable && B.IfAvailable);
  // The parameter whose device \p V is, or the root (a parameter, a
  // function's result) whose device it inherits, or null.
  auto Parameter = [](const DeviceValue &V) -> const clang::Decl * {
    if (V.Kind == OnDevice)
      return dyn_cast_or_null<ParmVarDecl>(V.Decl);
    return V.Kind == Inherited ? V.Root : nullptr;
  };
  const clang::Decl *PA = Parameter(A), *PB = Parameter(B);
  if ((PA && (PA == PB || B.Kind == CPU)) || (PB && A.Kind == CPU))
    return inherited(PA ? PA : PB,
                     A.Kind == CPU || B.Kind == CPU || A.OrCPU || B.OrCPU);
  return unknown();
}

std::string DeviceValue::name() const {
  switch (Kind) {
  case CPU:
  case Unspecified:
    return "the CPU";
  case CUDA:
    if (IfAvailable)
      return "the GPU when one is available";
    return Index >= 0 ? "CUDA device " + std::to_string(Index) : "CUDA";
  case OnDevice:
    return Decl && Decl->getIdentifier() ? ("'" + Decl->getName() + "'").str()
                                         : "the given device";
  case ModuleDevice:
    return "the module's device";
  case Bottom:
  case Inherited:
  case Unknown:
    break;
  }
  return "an unknown device";
}

TensorRank TensorRank::broadcast(TensorRank A, TensorRank B) {
  if (A.Dims >= 0 && B.Dims >= 0)
    return TensorRank(A.Dims > B.Dims ? A.Dims : B.Dims);
  if (A.isNonScalar() || B.isNonScalar())
    return nonScalar();
  return unknown();
}

TensorRank TensorRank::join(TensorRank A, TensorRank B) {
  if (A.Dims == B.Dims)
    return A;
  if (A.isNonScalar() && B.isNonScalar())
    return nonScalar();
  return unknown();
}

Origin::Origin(KindTy K, const Stmt *S) : Kind(K), Where(S) {
  if (const auto *E = dyn_cast_or_null<Expr>(S))
    Loc = E->getExprLoc();
  else if (S)
    Loc = S->getBeginLoc();
}

StringRef Origin::phrase() const {
  switch (Kind) {
  case Factory:
    return "created without a device";
  case FactoryWithDevice:
    return "created on it";
  case Moved:
    return "moved here";
  case LoaderBatch:
    return "a data-loader batch";
  case ForwardArgument:
    return "an argument of forward()";
  case ModuleTensor:
    return "a tensor of the module";
  case ModuleOutput:
    return "an output of the module";
  case ModuleCreated:
    return "created here, modules start on the CPU";
  case ModuleMoved:
    return "moved here";
  case DeviceValueDecl:
    return "declared here";
  case None:
    break;
  }
  return "";
}

bool DeviceFact::joinInto(DeviceFact &A, const DeviceFact &B) {
  DeviceValue D = DeviceValue::join(A.Device, B.Device);
  TensorRank R = A.Device.isBottom()   ? B.Rank
                 : B.Device.isBottom() ? A.Rank
                                       : TensorRank::join(A.Rank, B.Rank);
  bool Changed = D != A.Device || !(R == A.Rank);
  if (A.Device.isBottom() || (!A.From && D == B.Device))
    A.From = B.From;
  if (!D.isKnown())
    A.From = Origin();
  A.Device = D;
  A.Rank = R;
  return Changed;
}

} // namespace clang::tidy::torch::device
