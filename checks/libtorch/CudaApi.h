//===- CudaApi.h - what extension code asks of CUDA -------------*- C++ -*-===//
//
// Answers, for the host code of a C++/CUDA extension: is this a kernel
// launch, and on which stream; is this other GPU work (runtime copies and
// fills, cuBLAS, thrust, cub); does this variable make a device current (a
// device or stream guard) or this call select one (cudaSetDevice); does this
// call read a launch's error; is this a tensor's device memory (data_ptr,
// accessors) or a question about its device (is_cuda). CUDA's and
// LibTorch's names live here; which of them a function meets, and where, is
// program/KernelLaunches.h's question.
//
//===----------------------------------------------------------------------===//
#ifndef TORCH_TIDY_LIBTORCH_CUDAAPI_H
#define TORCH_TIDY_LIBTORCH_CUDAAPI_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"

namespace clang::tidy::torch::libtorch {

/// True for `kernel<<<grid, block, ...>>>(...)` and for calls of
/// cudaLaunchKernel, cudaLaunchKernelExC, cudaLaunchCooperativeKernel and
/// cuLaunchKernel.
bool isKernelLaunch(const Expr *E);

/// The name a diagnostic gives the launched kernel: "scale_kernel", or the
/// launch function's name.
std::string launchedName(const Expr *Launch);

/// Where a piece of GPU work runs, as far as its stream argument says.
enum class StreamUse : unsigned char {
  NoStream,  ///< no stream argument: the legacy default stream
  Legacy,    ///< 0, nullptr, NULL, cudaStreamLegacy
  PerThread, ///< cudaStreamPerThread
  Given,     ///< any other stream expression
  NotAStreamCall,
};

/// The stream argument of a launch or of a cudaMemcpyAsync-like call, or
/// null when it is left out (defaulted).
const Expr *streamArgument(const Expr *Work);
/// What the stream argument of \p Work is; NotAStreamCall for calls that
/// take none.
StreamUse streamUse(const Expr *Work);

/// True for cudaMemcpy, cudaMemset and their 2D/3D/symbol forms: blocking
/// calls on the legacy default stream.
bool isBlockingRuntimeCopy(const CallExpr *Call);
/// True for cudaMemcpyAsync, cudaMemsetAsync and their 2D/3D/peer forms.
bool isAsyncRuntimeCopy(const CallExpr *Call);

/// For a call of a thrust algorithm (a function in namespace thrust that
/// takes iterators): the stream it runs on. Given when its execution
/// policy names a stream (`thrust::cuda::par.on(s)`); NoStream when it
/// takes a policy without one (`thrust::device`) or none on device
/// iterators; NotAStreamCall otherwise (host iterators, not thrust).
StreamUse thrustStreamUse(const CallExpr *Call);

/// True for calls that make the GPU work on memory: launches, runtime
/// copies and fills, cuBLAS/cuSPARSE/cuSOLVER calls, thrust algorithms on
/// the device and cub's device-wide algorithms.
bool isGpuWork(const Expr *E);

/// True for a variable whose type makes a device current while it lives:
/// c10::cuda::CUDAGuard, OptionalCUDAGuard, CUDAStreamGuard,
/// OptionalCUDAStreamGuard, CUDAMultiStreamGuard, c10::DeviceGuard,
/// c10::OptionalDeviceGuard, c10::StreamGuard, c10::OptionalStreamGuard
/// (the at:: names are aliases of these), and HIP's.
bool isDeviceGuardVariable(const VarDecl *V);

/// True for cudaSetDevice and c10::cuda::set_device / at::cuda::set_device.
bool isDeviceSelection(const CallExpr *Call);

/// True for cudaGetLastError and cudaPeekAtLastError.
bool isLaunchErrorRead(const CallExpr *Call);

/// True for a tensor method that hands out its memory: data_ptr, data,
/// const_data_ptr, mutable_data_ptr, packed_accessor32/64,
/// generic_packed_accessor.
bool isTensorMemoryAccess(const CXXMemberCallExpr *Call);
/// The names of those methods, for a call a template leaves unresolved.
bool isTensorMemoryAccessName(llvm::StringRef Name);

/// True for `is_cuda()` on a tensor, a Device, a TensorOptions or a
/// DeprecatedTypeProperties (`t.type().is_cuda()`).
bool isCudaDeviceTest(const CXXMemberCallExpr *Call);

/// True when \p E names the CUDA device type or dispatch key (`at::kCUDA`,
/// `c10::DeviceType::CUDA`, `c10::DispatchKey::CUDA`), itself or in a
/// subexpression; lambdas are not looked into.
bool namesCuda(const Expr *E);

/// For an expression that reads a tensor's device (`t.device()`,
/// `t.device().type()`, `t.get_device()`, `t.options().device()`, through
/// implicit nodes): the tensor expression `t`; else null.
const Expr *deviceOperandOf(const Expr *E);

/// True for a statement that ends a failed check: a call of the function
/// TORCH_CHECK and AT_ASSERT call to throw (c10::detail::torchCheckFail,
/// torchInternalAssertFail), or a throw.
bool isCheckFailure(const Stmt *S);

/// True for a CUDA stream held in a variable: c10::cuda::CUDAStream,
/// c10::Stream, or the runtime's cudaStream_t (a pointer to CUstream_st).
bool isStreamType(QualType T);

/// True when the translation unit declares at::Tensor: it includes
/// LibTorch, and its GPU work is an extension's.
bool includesLibTorch(ASTContext &Ctx);

/// True when \p Name (e.g. "at::cuda::getCurrentCUDAStream",
/// "at::cuda::OptionalCUDAGuard") names a declaration in this translation
/// unit, so that a fix-it that writes it compiles.
bool declaresQualifiedName(ASTContext &Ctx, llvm::StringRef Name);

} // namespace clang::tidy::torch::libtorch

#endif // TORCH_TIDY_LIBTORCH_CUDAAPI_H
