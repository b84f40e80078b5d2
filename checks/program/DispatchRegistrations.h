//===- DispatchRegistrations.h - dispatch to CUDA kernels -------*- C++ -*-===//
//
// Answers, for a C++/CUDA extension: which functions of this unit are
// registered for CUDA, so that a dispatch reaches them only with tensors on
// a CUDA device; and which calls of this unit dispatch through a project's
// registry, which is then a call edge to the functions it holds.
//
// Learnt from the code, not from one project's names:
// - a registration is a call or a construction whose arguments name the
//   CUDA device type or dispatch key and refer to a function of the program
//   (`registry.Register(at::kCUDA, fn)`, `torch::dispatch(kCUDA,
//   TORCH_FN(fn))`); when that function takes no tensor and only registers
//   others (TORCH_LIBRARY_IMPL's init function, `m.impl("op", &fn)`), the
//   functions it registers;
// - a registry is a class of the program with a member that takes a device
//   type and a function pointer; a registration through it is keyed by the
//   class. A registry dispatch is a call of a function of the program that is
//   given a registry object: it forwards its last arguments (as many as the
//   registered functions take) to the function registered for the tensors'
//   device type;
// - such a dispatch checks that its tensors share one device when it, or a
//   function it calls (sixteen deep: a variadic check peels one argument
//   per call), compares devices and fails a check.
//
// What a registration proves: PyTorch's dispatcher picks the CUDA kernel
// when at least one tensor argument is on CUDA, so the first tensor
// parameter counts as proven and the others do not, and it takes no device
// guard for custom operators; a registry that checks its tensors share a
// device proves each of them, one that does not proves the first.
//
//===----------------------------------------------------------------------===//
#ifndef TORCH_TIDY_PROGRAM_DISPATCHREGISTRATIONS_H
#define TORCH_TIDY_PROGRAM_DISPATCHREGISTRATIONS_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include <string>
#include <vector>

namespace clang::tidy::torch::program {

/// A registration of a function for CUDA.
struct CudaRegistration {
  const FunctionDecl *Fn;
  const Expr *Site;
  /// The registry's key (registryKey), or empty for PyTorch's dispatcher.
  std::string Registry;
};

/// How \p Fn (any declaration of it) is registered for CUDA in this unit,
/// or null.
const CudaRegistration *cudaRegistrationOf(const FunctionDecl *Fn,
                                           ASTContext &Ctx);

/// Every registration for CUDA of this unit, in source order.
const std::vector<CudaRegistration> &cudaRegistrationsInUnit(ASTContext &Ctx);

/// A call that dispatches through a registry.
struct RegistryDispatch {
  const CallExpr *Call;
  const FunctionDecl *Caller;
  std::string Registry;
  /// The argument forwarded as the registered functions' first parameter,
  /// and how many are forwarded.
  unsigned FirstForwarded, Forwarded;
  /// The dispatch fails unless all tensors are on one device.
  bool ChecksOneDevice;
};

/// The registry dispatches of this unit's program code, in source order.
const std::vector<RegistryDispatch> &registryDispatchesInUnit(ASTContext &Ctx);

/// In a batch worker, for the other units (device/ProgramFacts.h): a K line
/// for each function registered for CUDA in a registry.
std::string registrationFacts(ASTContext &Ctx);

/// The name facts give a registry's dispatches, as if it were a function.
std::string registryFunctionKey(llvm::StringRef Registry);

/// Drops what was learnt about the translation unit.
void clearRegistrationCache();

} // namespace clang::tidy::torch::program

#endif // TORCH_TIDY_PROGRAM_DISPATCHREGISTRATIONS_H
