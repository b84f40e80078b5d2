//===- HostSync.h - calls that make the host wait ------------*- C++ -*-===//
//
// Answers: does this call make the host wait for the device, and for what
// (a value, a data-dependent size, all queued work)? And: is this copy
// non-blocking, does this expression name the CPU? Used by
// torch-sync-in-loop (waits that should not be there), and by
// torch-unsynchronized-timing and torch-async-copy-read (waits that must be).
//
//===----------------------------------------------------------------------===//
#ifndef TORCH_TIDY_LIBTORCH_HOSTSYNC_H
#define TORCH_TIDY_LIBTORCH_HOSTSYNC_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

namespace clang::tidy::torch::libtorch {

/// What the host waits for.
enum class SyncWait : unsigned char {
  Value,   ///< a value on the device (item, cpu, equal, ...)
  Shape,   ///< a data-dependent output size (nonzero, unique, ...)
  AllWork, ///< all queued device work (synchronize)
};

/// Which callees an operation's names apply to.
enum class SyncCallee : unsigned char {
  Tensor,           ///< Tensor methods only
  TensorOrFunction, ///< or an at::/torch::/c10:: function
  AnyLibTorch,      ///< or a method of any LibTorch class (streams, events),
                    ///< or a CUDA runtime function (cudaDeviceSynchronize)
};

/// A built-in synchronizing operation.
struct SyncOperation {
  llvm::StringLiteral Option; ///< its entry in SyncFunctions
  SyncWait Wait;
  SyncCallee Callee;
  /// The LibTorch names it covers; with OutForms, their _out/_outf forms
  /// too. `operator<<` has none: it is recognised by its parameters.
  StringRef Names[5];
  bool OutForms = false;
};

/// Every built-in operation, in the order of torch-sync-in-loop's
/// SyncFunctions default. `to` counts only as a blocking copy toward the
/// CPU; `operator<<` only when it prints a tensor; `operator[]` only with a
/// tensor index, which it reads.
llvm::ArrayRef<SyncOperation> syncOperations();

/// The built-in operation whose SyncFunctions entry is \p Option, or null.
const SyncOperation *syncOperationByOption(StringRef Option);

/// The built-in operation \p Call performs, whatever its receiver's device
/// (the caller asks DeviceFlow whether the receiver is on the CPU), or null.
/// \p ResultUsed: a `to(kCPU)` whose result is thrown away waits for nothing
/// useful and is another check's business.
const SyncOperation *syncOperationOf(const CallExpr *Call, bool ResultUsed,
                                     ASTContext &Ctx);

/// How the warning names the callee: "'Tensor::item'",
/// "'torch::cuda::synchronize'".
std::string syncSubject(const CallExpr *Call);

/// A copy of one tensor's data into another: `dst.copy_(src)`,
/// `dst.index_put_({i}, src)`, `dst.index_copy_(0, i, src)`, `dst[i] = src`
/// or `dst.index({i}) = src` (assignment into a view copies; to a variable
/// it rebinds). A copy from the device into a CPU tensor waits for the
/// device; the caller asks DeviceFlow where each side is.
struct TensorCopy {
  const Expr *Destination = nullptr; ///< the tensor written: `dst`
  const Expr *Source = nullptr;
  std::string Subject; ///< "'Tensor::copy_'", "assigning into 'dst[...]'"
  explicit operator bool() const { return Source != nullptr; }
};
TensorCopy copyIntoTensor(const Expr *E, ASTContext &Ctx);

/// True if \p E denotes the CPU: torch::kCPU, Device(kCPU), Device("cpu"),
/// TensorOptions on the CPU, a const variable initialised so.
bool denotesCPU(const Expr *E, ASTContext &Ctx);

/// True if a `non_blocking` argument of \p Call is written and true.
bool isNonBlocking(const CallExpr *Call, ASTContext &Ctx);

} // namespace clang::tidy::torch::libtorch

#endif // TORCH_TIDY_LIBTORCH_HOSTSYNC_H
