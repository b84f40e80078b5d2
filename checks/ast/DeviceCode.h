//===- DeviceCode.h - code the GPU runs, not the host -----------*- C++ -*-===//
//
// Answers, in a CUDA translation unit: is this function device code (a
// `__global__` kernel, a `__device__` function that is not also
// `__host__`), and which parts of a host function's body are (the bodies of
// lambdas marked `__device__`, as passed to launch helpers)? torch-tidy
// parses a CUDA unit for the host: kernel bodies are in its AST, but they
// hold no tensors and make no host calls, so host-side checks leave them
// alone (TorchCheck.h). Functions that are both `__host__` and `__device__`
// (constexpr functions and plain lambdas are, implicitly) run on the host
// too, and are host code here. Outside CUDA units nothing is device code.
//
//===----------------------------------------------------------------------===//
#ifndef TORCH_TIDY_AST_DEVICECODE_H
#define TORCH_TIDY_AST_DEVICECODE_H

#include "clang/AST/Decl.h"
#include "clang/Basic/SourceLocation.h"
#include "llvm/ADT/SmallVector.h"

namespace clang::tidy::torch::ast {

/// True for a kernel or a device-only function (lambda call operators
/// included).
bool isDeviceFunction(const FunctionDecl *FD);

/// The bodies of the device-only lambdas written in \p Fn's body, outermost
/// ones only; empty outside CUDA units.
llvm::SmallVector<SourceRange, 2> deviceLambdaBodies(const FunctionDecl *Fn);

} // namespace clang::tidy::torch::ast

#endif // TORCH_TIDY_AST_DEVICECODE_H
