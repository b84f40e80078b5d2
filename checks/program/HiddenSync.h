//===- HiddenSync.h - a host-device wait inside the user's function ------===//
// Answers: does calling this function of the user's make the host wait for
// the device somewhere inside it (libtorch/HostSync.h's operations), and
// where? torch-sync-in-loop reports such a call in a hot loop, with a note
// at the wait.
#ifndef TORCH_TIDY_PROGRAM_HIDDENSYNC_H
#define TORCH_TIDY_PROGRAM_HIDDENSYNC_H

#include "device/DeviceFacts.h"
#include "libtorch/HostSync.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include <cstdint>

namespace clang::tidy::torch::program {

/// A synchronizing call, and the function whose body holds it.
struct HiddenWait {
  const CallExpr *Call = nullptr;
  const FunctionDecl *In = nullptr;
};

/// The parameters of a function that receive CPU tensors at one call: bit
/// I for parameter I (the first 32).
using CPUParameters = uint32_t;

/// The synchronizing call hidden in \p FD: in its body, or in the body of a
/// function it calls, up to three bodies deep (a loss tracker that calls
/// `.item()`, `torch::nn::utils::clip_grad_norm_`, whose result is read with
/// `.item()`, and its overloads that forward to it). Bodies of Tensor
/// methods, of at::/c10:: functions and of std:: are not entered; lambdas
/// are not entered, nor the loops of a function that runs once per step
/// (HotLoops.h: those loops are hot and report their own syncs). \p OnCPU:
/// the parameters of \p FD that this call gives CPU tensors; a wait that
/// reads one of them, or what a function it calls receives from them
/// (`normalize(pred.cpu())`, whose `masked_select` and `item` read its
/// parameter), waits for nothing. Null when there is none. Cached per
/// declaration and parameters until clearHiddenSyncCache() (thread-local).
HiddenWait hiddenSync(const FunctionDecl *FD, ASTContext &Ctx,
                      CPUParameters OnCPU = 0);
void clearHiddenSyncCache();

/// The parameters of \p Call's callee that receive a tensor on the CPU, as
/// the device analysis of \p Caller sees the arguments; \p CallerOnCPU:
/// \p Caller's own parameters known to hold CPU tensors.
CPUParameters cpuArguments(const CallExpr *Call, const FunctionDecl *Caller,
                           CPUParameters CallerOnCPU, ASTContext &Ctx);

/// The wait \p Call makes (libtorch::syncOperationOf), or, for a blocking
/// `x.to(d)` in \p Fn whose target the device analysis places on the CPU
/// (`torch::Device cpu_device(torch::kCPU); x.to(cpu_device)`), the
/// `to` operation; null when it makes none.
const libtorch::SyncOperation *syncOperationIn(const CallExpr *Call,
                                               bool ResultUsed,
                                               const FunctionDecl *Fn,
                                               ASTContext &Ctx);

/// The device of the tensor \p Call, a wait of operation \p Op in \p Fn,
/// reads (`.item()`, `.cpu()`, `.to(kCPU)`, `torch::nonzero(t)`, printing
/// it, the index of `x[i]`): on the CPU (DeviceFlow, or CallerDevices for a
/// tensor from the rest of the program) it waits for no device. Bottom for
/// a wait for all work (synchronize).
/// \p OnCPU: the parameters of \p Fn this call of it gives CPU tensors.
device::DeviceValue readDevice(const Expr *Call,
                               const libtorch::SyncOperation *Op,
                               const FunctionDecl *Fn, ASTContext &Ctx,
                               CPUParameters OnCPU = 0);

} // namespace clang::tidy::torch::program

#endif // TORCH_TIDY_PROGRAM_HIDDENSYNC_H
