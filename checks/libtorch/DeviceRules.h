//===- DeviceRules.h - LibTorch's device rules, by name and type ---------===//
// The LibTorch knowledge DeviceFlow is built on, kept apart from the engine:
// which types carry a device, which calls are factories and where they
// allocate, which ops keep or drop dimensions, which mixes of devices ATen
// accepts, which modules own parameters. Checked against LibTorch 1.13
// (and the 2.x headers where they differ; see
// docs/checks/torch-device-mismatch.md). In LibTorch's own terms: what
// these names mean as device-analysis values is device/DeviceLiterals.h.
#ifndef TORCH_TIDY_LIBTORCH_DEVICERULES_H
#define TORCH_TIDY_LIBTORCH_DEVICERULES_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/SmallVector.h"
#include <optional>

namespace clang::tidy::torch::libtorch {

/// What a value of some type tells DeviceFlow.
enum class Carrier : unsigned char {
  None,
  Tensor,        ///< at::Tensor, at::TensorBase
  Device,        ///< c10::Device
  DeviceType,    ///< c10::DeviceType (torch::kCUDA)
  Options,       ///< c10::TensorOptions
  Module,        ///< a module: holder, shared_ptr / pointer to, or object
  Example,       ///< torch::data::Example<...> (a data-loader batch)
  ExampleVector, ///< std::vector<Example<...>> (an unstacked batch)
};

/// The carrier of \p T, references and cv-qualifiers ignored.
Carrier carrierOf(QualType T);

/// True for a c10::Device or a c10::DeviceType: a value that names a device.
inline bool holdsDevice(Carrier C) {
  return C == Carrier::Device || C == Carrier::DeviceType;
}

/// How a factory function determines its result.
enum class FactoryKind : unsigned char {
  None,
  Sized,    ///< randn(size, options): rank from the `size` argument
  Like,     ///< zeros_like(x, options): x's device and rank
  Data,     ///< torch::tensor(data, options): rank from the data
  FromBlob, ///< from_blob(ptr, sizes, options): wraps existing memory
  Scalar,   ///< scalar_tensor(s, options): 0-dim
  Vector,   ///< arange, linspace, randperm, windows: 1-dim
  Matrix,   ///< eye, tril_indices, triu_indices: 2-dim
};

/// The factory kind of an at:: or torch:: function, or None.
FactoryKind factoryKind(const FunctionDecl *FD);

/// The braced list an argument is built from (`{a, b}` passed as a
/// TensorList, an IntArrayRef, a std::vector), or null.
const InitListExpr *initListOf(const Expr *E);

/// Appends the tensors the argument \p Arg of a LibTorch call passes:
/// itself, the elements of a braced TensorList (`torch::cat({a, b})`), or
/// the tensor inside an optional<Tensor>.
void addTensorOperands(const Expr *Arg,
                       llvm::SmallVectorImpl<const Expr *> &Out);

/// Reductions that give a 0-dim tensor when no dimension is passed:
/// sum, mean, max, norm, all, ... and dot products.
bool isFullReduction(StringRef Name);

/// Ops whose result has their first tensor's rank: elementwise unary ops,
/// conversions, in-place ops (trailing '_').
bool keepsRank(StringRef Name);

/// Elementwise binary ops whose result has the broadcast rank.
bool isBroadcastingOp(StringRef Name);

/// Ops taking several tensors that do not require them on one device, or
/// where we are not sure they do: copies (copy_, to, type_as), ops that
/// read only the other's shape or dtype (expand_as, view_as, *_like, new_*),
/// index ops (CPU index tensors are allowed), CPU-only length arguments
/// (pack_padded_sequence, ctc_loss, tensor_split), backward and hooks.
bool isDeviceMixAllowed(StringRef Name);

/// True for `torch::cuda::is_available()` and
/// `torch::cuda::device_count() > 0` (also negated, with '!').
/// \p Negated tells which branch is the CUDA one.
bool isCudaAvailabilityTest(const Expr *Cond, bool &Negated);

/// Which configuration \p Cond holds in: true when only on the CPU
/// (`device == torch::kCPU`, `device.is_cpu()`, `!torch::cuda::is_available()`,
/// `device != kCUDA`), false when only with a GPU (`device == kCUDA`,
/// `x.is_cuda()`, `torch::cuda::is_available()`); nullopt otherwise. The
/// sides of a comparison are read by denotesCPU and namesCuda.
std::optional<bool> holdsOnlyOnCPU(const Expr *Cond, ASTContext &Ctx);

/// The module class behind a module-carrier type: the Impl of a holder,
/// the pointee of a shared_ptr or pointer, or the class itself.
const CXXRecordDecl *moduleClassOf(QualType T);

/// True for modules that own parameters or buffers, so that their device
/// matters to their inputs: the torch::nn layers with weights (Linear,
/// Conv*, BatchNorm*, Embedding, LSTM, ...), Sequential and other
/// containers, and user-defined modules with tensor or submodule members or
/// register_* calls in their constructors.
bool moduleHasParameters(const CXXRecordDecl *ModuleClass);

/// True for loss modules (torch::nn::MSELoss, CrossEntropyLoss, ...).
bool isLossModule(const CXXRecordDecl *ModuleClass);

/// True for LibTorch's layers that hold no parameter or buffer (Softmax,
/// ReLU, Dropout, MaxPool2d, Flatten): their output is where their input
/// is. Not Functional or AnyModule, which run arbitrary code, nor
/// InstanceNorm, which may track running statistics.
bool isWeightlessLayer(const CXXRecordDecl *ModuleClass);

/// True when a data loader of type \p LoaderType reads a dataset of the
/// program's own that deals with devices: a field or a constructor
/// parameter holds a device, or a method names one or calls `cuda()`. Its
/// batches may already be on the GPU (a dataset that moves its tensors to
/// the device once, when it is built); others' batches are on the CPU.
bool loaderDatasetHandlesDevice(QualType LoaderType);

/// True for `torch::load(value, source...)`: it restores each tensor of
/// \p value (a tensor, a module, an optimizer) on the device it was saved
/// from, not where \p value was.
bool isSerializeLoad(const FunctionDecl *FD);

} // namespace clang::tidy::torch::libtorch

#endif // TORCH_TIDY_LIBTORCH_DEVICERULES_H
