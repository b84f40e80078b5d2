//===- KernelLaunches.h - the GPU work of a host function -------*- C++ -*-===//
//
// Answers, for a host function of a C++/CUDA extension: which GPU work does
// it start (kernel launches, runtime copies, cuBLAS, thrust, cub: in its
// body, in the lambdas written there such as AT_DISPATCH's, and through the
// functions of this file it calls that take no tensor and start work
// themselves), and what surrounds each piece of work: a device guard or a
// device selection before it, a read of the launch error after it, a test
// that a tensor is on a CUDA device before it. Each question also has a
// form for "every caller in this file", as guards and tests are often
// written by the caller. CUDA's names are libtorch/CudaApi.h's.
//
// "Before" and "after" follow the blocks that enclose the work: a guard
// declared earlier in one of them, a check later in one of them. A lambda
// written in the function counts as part of it (AT_DISPATCH calls it right
// away).
//
//===----------------------------------------------------------------------===//
#ifndef TORCH_TIDY_PROGRAM_KERNELLAUNCHES_H
#define TORCH_TIDY_PROGRAM_KERNELLAUNCHES_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include <vector>

namespace clang::tidy::torch::program {

/// One piece of GPU work a host function starts.
struct GpuWork {
  /// In the function: the work itself, or the call of a launcher.
  const Expr *Site;
  /// The launch or call that starts the work (inside the launcher when
  /// there is one).
  const Expr *Work;
  /// The function of this file that \c Site calls, or null.
  const FunctionDecl *Launcher;
};

/// The first parameter of \p Fn that is a tensor (by value or reference), or
/// null: the functions that take tensors are the ones that must guard and
/// check them, and launchers are the others.
const ParmVarDecl *firstTensorParameter(const FunctionDecl *Fn);

/// The GPU work \p Fn starts, in source order; launchers are followed
/// three calls deep.
std::vector<GpuWork> gpuWorkOf(const FunctionDecl *Fn, ASTContext &Ctx);

/// True when a device guard declared before \p Site in a block enclosing
/// it, or a device selection (cudaSetDevice) before it, makes a device
/// current where \p Site runs in \p Fn.
bool guardedAt(const FunctionDecl *Fn, const Expr *Site);

/// True when \p Fn is called in this file, and every call is guarded in its
/// caller, or in every caller of that caller, however many calls up. The
/// calls of a template are those of its instantiations.
bool guardedByEveryCaller(const FunctionDecl *Fn, ASTContext &Ctx);

/// True when the error of the launch \p Site in \p Fn is read after it: a
/// cudaGetLastError()/cudaPeekAtLastError() whose result is used
/// (C10_CUDA_KERNEL_LAUNCH_CHECK(), AT_CUDA_CHECK(cudaGetLastError()), a
/// comparison, a return, an argument) later in a block enclosing it; or,
/// for a launch function (cudaLaunchKernel), when its own result is used.
bool launchErrorReadAfter(const FunctionDecl *Fn, const Expr *Site);

/// The statement of the innermost block around \p Site in \p Fn that holds
/// it (`k<<<g, b>>>(x);` for the launch in it), or null when \p Site is in
/// no block (`if (c) k<<<g, b>>>(x);`).
const Stmt *statementInBlock(const FunctionDecl *Fn, const Expr *Site);

/// True when \p Fn is called in this file, and every call is followed by a
/// read of the launch error in its caller, or in every caller of that
/// caller, however many calls up.
bool launchErrorReadByEveryCaller(const FunctionDecl *Fn, ASTContext &Ctx);

/// A tensor parameter whose memory a piece of GPU work receives.
struct HandedMemory {
  const ParmVarDecl *Tensor;
  /// What hands it out: a data_ptr()/accessor call, or the call of a
  /// function of this file that takes one from the tensor (a project's
  /// `devicetensor(t)`).
  const Expr *Access;
  /// The tensor expression there.
  const Expr *Object;
};

/// The tensor parameters of \p Fn whose memory \p Site receives among its
/// arguments: `t.data_ptr<T>()`, an accessor (in a template too, where the
/// call is not resolved yet), a helper of this file that takes one from the
/// tensor, or a local pointer or accessor set from one of these; of the
/// parameter or of a local made from it (`t.contiguous()`).
std::vector<HandedMemory> memoryHandedTo(const FunctionDecl *Fn,
                                         const Expr *Site);

/// The tensor parameter of \p Fn that \p E comes from: itself, or a local
/// tensor initialised from it (`auto tc = t.contiguous();`, or with a
/// function of the user's that takes that one tensor and returns one:
/// `auto x = normalize_shape(x_);`); null if none.
const ParmVarDecl *tensorParameterOf(const Expr *E, const FunctionDecl *Fn);

/// True when \p Tensor is known to be on a CUDA device where \p Site runs
/// in \p Fn: a test before it (earlier in an enclosing block, or in the
/// condition of an enclosing branch, or in a function of this file called
/// there with the tensor): `t.is_cuda()`, `t.device().is_cuda()`,
/// `t.type().is_cuda()` (TORCH_CHECK, AT_ASSERTM, CHECK_CUDA and the like
/// expand to these) or `t.device().type() == kCUDA`; or the device analysis
/// (device/DeviceFlow.h) puts \p Object, the tensor where its memory is
/// taken, on CUDA (`t = t.cuda()`). LibTorch's at::checkAllSameGPU and
/// at::checkSameGPU prove the tensors of the TensorArgs they are given.
bool provenOnCudaAt(const FunctionDecl *Fn, const ParmVarDecl *Tensor,
                    const Expr *Site, const Expr *Object, ASTContext &Ctx);

/// True when \p Fn is called in this file, and at every call the argument
/// for parameter \p Index is proven to be on a CUDA device in the caller,
/// or is a parameter of the caller proven so by all of its callers (three
/// calls deep).
bool provenOnCudaByEveryCaller(const FunctionDecl *Fn, unsigned Index,
                               ASTContext &Ctx);

/// In a batch worker, for the callers in other files (device/ProgramFacts.h):
/// a G line for each call of a function that takes tensors (is the call
/// guarded, or as guarded as its caller's callers), and a P line for each
/// tensor it passes (proven on CUDA, or as proven as a parameter of the
/// caller), in source order. The device analysis is not asked there: only
/// tests prove a tensor to the other files.
std::string guardFacts(ASTContext &Ctx);
std::string proofFacts(ASTContext &Ctx);

/// In a batch worker: an E line for each call of a function of the program
/// (is the launch error read after it, or as read as its caller's callers).
std::string errorReadFacts(ASTContext &Ctx);

/// The calls in \p Fn (and the lambdas written there) of functions of the
/// program defined in another file that take no tensor: launchers, perhaps,
/// whose GPU work only the other file's facts show.
std::vector<const CallExpr *> callsOfOtherFiles(const FunctionDecl *Fn);

/// The tensor parameters of \p Fn whose memory \p Arg, one argument of a
/// call, hands out (as memoryHandedTo does for a launch's arguments).
std::vector<HandedMemory> memoryInArgument(const FunctionDecl *Fn,
                                           const Expr *Arg);

/// In a batch worker: an L line for each function of this file that takes
/// no tensor, can be called from other files and starts GPU work (a
/// launcher of raw pointers): is its work guarded inside, which of its
/// parameters that can carry memory (pointers, accessors) reach it, where
/// it starts.
std::string launcherFacts(ASTContext &Ctx);

/// In a batch worker, for a CUDA unit with compile errors: a V line for
/// each piece of device code (kernels, __device__ functions, device
/// lambdas), so that the driver can tell errors in device code alone from
/// errors in host code.
std::string deviceCodeFacts(ASTContext &Ctx);

/// Drops what was learnt about the translation unit.
void clearKernelLaunchCache();

} // namespace clang::tidy::torch::program

#endif // TORCH_TIDY_PROGRAM_KERNELLAUNCHES_H
