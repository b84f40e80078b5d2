//===- HostEvents.h - what a function's host code does, in order -*- C++
//-*-===//
//
// Answers, for one function body read in evaluation order (children before
// parents, statements in source order, lambdas not entered): which calls does
// the host make, where is each result stored, which values are subtracted
// from each other, which variables are reassigned; and for a call, does it
// queue device work, may it wait for the device, or neither. Used by the
// checks about missing waits: torch-unsynchronized-timing (a clock read with
// work still queued) and torch-async-copy-read (a host read of a copy still
// in flight).
//
// Control flow is flattened to source order: a wait in one branch of an `if`
// counts for what follows, and a loop is read once. Calls to functions whose
// effect is unknown (user functions outside LibTorch, indirect calls) count
// as possible waits, so that a helper that synchronises is not missed.
//
//===----------------------------------------------------------------------===//
#ifndef TORCH_TIDY_PROGRAM_HOSTEVENTS_H
#define TORCH_TIDY_PROGRAM_HOSTEVENTS_H

#include "device/DeviceFacts.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "clang/AST/Stmt.h"
#include "llvm/ADT/SmallPtrSet.h"
#include <optional>
#include <utility>
#include <vector>

namespace clang::tidy::torch::device {
class DeviceFlow;
} // namespace clang::tidy::torch::device

namespace clang::tidy::torch::program {

/// One step of the host code.
struct HostEvent {
  /// A call (also an overloaded operator other than '='), or null.
  const CallExpr *Call = nullptr;
  /// The call's statement when it sits directly in a block as an
  /// expression or declaration statement, so that a statement can be
  /// inserted before it; else null.
  const Stmt *Statement = nullptr;
  /// The variable the call's result initialises or is assigned to.
  const ValueDecl *StoredIn = nullptr;
  /// A variable assigned here (`h = ...`), call or not, and the value
  /// assigned (without implicit nodes).
  const ValueDecl *Assigned = nullptr;
  const Expr *AssignedValue = nullptr;
  /// For `A - B`: keys of both sides, each a call (a CallExpr) or the
  /// variable an operand is rooted in (a ValueDecl).
  std::optional<std::pair<const void *, const void *>> Subtraction;
};

/// The events of \p Body in evaluation order.
std::vector<HostEvent> hostEvents(const Stmt *Body);

enum class HostCallKind : unsigned char {
  DeviceWork, ///< queues work on a device (a tensor op on the GPU, a copy)
  MayWait,    ///< waits for the device, or may (an unknown function)
  Other,      ///< neither: CPU work, metadata, the standard library
};

/// What \p Call does to the device, as far as \p Flow knows.
HostCallKind classifyHostCall(const CallExpr *Call,
                              const device::DeviceFlow &Flow, ASTContext &Ctx);

/// The device \p Call queues work on: its tensor result's, else its tensor
/// or module receiver's; Unknown when neither is on a device.
device::DeviceValue workDevice(const CallExpr *Call,
                               const device::DeviceFlow &Flow);

/// Tensor methods that launch no kernel: metadata (sizes, dtype, device,
/// ...) and views (view, select, detach, ...).
bool launchesNoKernel(StringRef TensorMethod);

/// The names of the host clocks isClockRead knows, for a matcher's
/// hasAnyName.
llvm::ArrayRef<StringRef> clockFunctions();

/// True for a read of a host clock: std::chrono::*_clock::now(), clock(),
/// gettimeofday, clock_gettime, omp_get_wtime, MPI_Wtime.
bool isClockRead(const CallExpr *Call);

/// True when \p S reads a host clock (not counting lambdas defined in it).
bool readsClock(const Stmt *S);

/// The timing's own waits in \p Block: waits for all device work
/// (torch::cuda::synchronize, ...) in a statement right before or after one
/// that reads a clock, or right before a read of the time between two CUDA
/// events (`cudaEventSynchronize(stop); cudaEventElapsedTime(...)`), the
/// statement being the wait itself or an `if` whose
/// branches hold nothing but such waits
/// (`if (!device.is_cpu()) torch::cuda::synchronize();`), and such waits
/// among the statements of a loop that sits between two clock reads, with
/// only straight-line code between them and the loop (a latency benchmark
/// that waits for each sample), and a read of a tensor's value made only
/// to wait, before the end clock (`float first = out[0][0].item<float>();
/// end = now();`: stored in a new variable that nothing after the clock
/// reads, only call-free statements between). They make a measured
/// interval right: torch-unsynchronized-timing asks for them and
/// torch-sync-in-loop leaves them alone, in its loops and in the helpers
/// they call.
void collectTimingWaits(const CompoundStmt *Block, ASTContext &Ctx,
                        llvm::SmallPtrSetImpl<const Expr *> &Out);

} // namespace clang::tidy::torch::program

#endif // TORCH_TIDY_PROGRAM_HOSTEVENTS_H
