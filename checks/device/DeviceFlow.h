//===- DeviceFlow.h - where each tensor lives, at each program point -----===//
// Answers, for one function body: on which device is this tensor (or
// torch::Device, TensorOptions, module) where this expression is evaluated,
// how many dimensions does it have when that matters (0-dim CPU tensors mix
// with any device), and which expression gave it that device (its origin).
//
// Questions it answers, for the checks:
//   - factOf(E) / deviceOf(E) / originOf(E): the device of a tensor, Device,
//     TensorOptions or module expression E where E is evaluated, and where
//     it came from: originOf(E).Kind is Factory for a factory call without a
//     device (Where is that call), LoaderBatch for a data-loader example,
//     Moved for a conversion, ...;
//   - isOnCPU(E): E is known to be a CPU tensor (an .item() on it is no sync);
//   - conversionTarget(Call): the device a `.to(...)`, `.cuda()`, `.cpu()` or
//     `type_as` call moves its receiver to;
//   - isAlreadyOnTarget(Call): that conversion moves nothing;
//   - skipReason(): why a function was not analysed (the Verbose option).
//
// Lattice (DeviceFacts.h): CPU, CUDA(index), "on D" (a torch::Device
// variable, parameter or member D), "the module's device", "inherited from
// P" (what the callers pass as tensor parameter P, or what the user's
// function P returns: CallerDevices.h follows it), Unknown (top); Bottom for
// "no value yet". Different values join to Unknown.
//
// Sources: factory calls (torch::/at:: randn, zeros, ..., tensor, from_blob,
// scalar_tensor, *_like(x)), TensorOptions (torch::device(d),
// TensorOptions().device(d), x.options(), dtype-only options), conversions
// (.to(dev), .to(other), .cuda(), .cpu(), .to(dtype) keeps the device), op
// results (the common device of their tensor operands, as ATen computes it:
// 0-dim CPU operands follow the others), data-loader batches (the loop
// variable of `for (auto &batch : *loader)` is on the CPU), modules (created
// on the CPU, moved by module->to(d), restored by torch::load(m, path) where
// the checkpoint was saved: unknown; their members and outputs are on their
// device), inside forward() of a torch::nn::Module subclass the tensor
// arguments and registered members are on "the module's device", and
// elsewhere tensor parameters, elements of tensor-vector parameters,
// results of the user's functions and tensor members of the user's structs
// (CallerDevices.h: isFollowedField) are "inherited".
//
// Engine: our own forward worklist over clang::CFG, not clang's dataflow
// framework (clang/Analysis/FlowSensitive). The framework models every value
// and storage location of the function, with a SAT-backed formula per
// program point; it is built for path-sensitive questions and costs several
// times a plain CFG walk. Our question is small: one lattice element per
// tensor-, device- or module-typed declaration, joined at merges. The CFG
// linearises every subexpression, so each element is evaluated once from its
// children's cached values: a pass is linear in the size of the function.
// The whole analysis runs only for functions a check asks about (those in
// the main file with a candidate operation), and is cached per FunctionDecl
// until the translation unit ends, so all checks share one analysis.
//
// Files: DeviceFlow.cpp (worklist, effects of statements, cache, API),
// DeviceEval.cpp (the value of each expression), DeviceLiterals.cpp (what
// LibTorch's constants say, in the lattice), DeviceFacts.cpp (the lattice);
// LibTorch's names and rules are in libtorch/DeviceRules.cpp.
//
// Limits: template code (dependent or instantiated) is skipped; so is a
// function whose CFG has more than MaxBlocks blocks or MaxElements elements,
// or that does not converge within MaxVisitsPerBlock visits per block.
// A lambda body is analysed as a function of its own, on request (factOf()
// of an expression in it); what it captures has there the fact it had where
// the lambda was created, when the function around it never assigns it,
// takes its address or passes it by non-const reference (nor moves it, a
// module, after the lambda), and is Unknown otherwise; a local that a lambda
// captures by reference and assigns is Unknown everywhere.
// A tensor passed by non-const reference to a function outside LibTorch, and
// a module passed to one at all, become Unknown there.
#ifndef TORCH_TIDY_DEVICE_DEVICEFLOW_H
#define TORCH_TIDY_DEVICE_DEVICEFLOW_H

#include "device/DeviceFacts.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace clang::tidy::torch::device {

/// The tensor parameters of \p Callee (bit I: parameter I, the first 32)
/// to which \p Call passes an argument that \p OnCPU says is on the CPU;
/// a member operator's object is no parameter.
uint32_t cpuParameters(const CallExpr *Call, const FunctionDecl *Callee,
                       llvm::function_ref<bool(const Expr *)> OnCPU);

class DeviceFlow {
public:
  static constexpr unsigned MaxBlocks = 4000;
  static constexpr unsigned MaxElements = 60000;
  static constexpr unsigned MaxVisitsPerBlock = 24;

  /// The analysis of \p FD's body: computed on the first request, then
  /// cached until clearCache(). Thread-local (torch-clangd builds ASTs on
  /// several threads).
  static const DeviceFlow &get(const FunctionDecl *FD, ASTContext &Ctx);
  /// The same, also for a template instantiation (get() skips those): what a
  /// caller that is a function template passes (CallerDevices.h), and the
  /// transfers torch-loop-invariant-transfer reads in an instantiation. The
  /// other checks report nothing in template code.
  static const DeviceFlow &getForCallers(const FunctionDecl *FD,
                                         ASTContext &Ctx);
  /// As getForCallers, with the tensor parameters of \p FD whose bits are
  /// set in \p CPUParameters (bit I: parameter I) on the CPU: what one call
  /// that passes CPU tensors computes (HiddenSync.h). 0: getForCallers.
  static const DeviceFlow &getWithCPUParameters(const FunctionDecl *FD,
                                                uint32_t CPUParameters,
                                                ASTContext &Ctx);
  /// Drops every cached analysis. Each check that uses DeviceFlow calls it
  /// from onStartOfTranslationUnit() and onEndOfTranslationUnit().
  static void clearCache();

  /// False when the function was skipped; skipReason() says why.
  bool analyzed() const { return Skip.empty(); }
  StringRef skipReason() const { return Skip; }

  /// What is known about \p E where it is evaluated. Unknown for an
  /// expression the analysis did not reach (a lambda body, an unevaluated
  /// operand, dead code) and in a skipped function.
  DeviceFact factOf(const Expr *E) const;
  DeviceValue deviceOf(const Expr *E) const { return factOf(E).Device; }
  Origin originOf(const Expr *E) const { return factOf(E).From; }

  /// True when \p E is a tensor known to be on the CPU.
  bool isOnCPU(const Expr *E) const { return deviceOf(E).isCPU(); }

  /// The device a conversion (`x.to(...)`, `.cuda()`, `.cpu()`,
  /// `x.type_as(y)`) moves its receiver to; Bottom when the call keeps the
  /// device (`.to(torch::kHalf)`) or is no conversion.
  DeviceValue conversionTarget(const CXXMemberCallExpr *Call) const;

  /// True when \p Call is a conversion of a tensor that is already on the
  /// device it moves to (both known and equal).
  bool isAlreadyOnTarget(const CXXMemberCallExpr *Call) const;

  /// True when the function moves a tensor to a device that is not the CPU
  /// (`obs.to(device_)`, `.cuda()`): where it computes is its own choice,
  /// not only its tensor parameters'.
  bool movesToDevice() const;

  /// True for forward() of a torch::nn::Module subclass: its tensor
  /// arguments are on the module's device.
  static bool isModuleForward(const FunctionDecl *FD);

  /// Statistics for tests and the Verbose option.
  unsigned blocks() const { return NumBlocks; }
  unsigned visits() const { return NumVisits; }

  DeviceFlow() = default;

private:
  friend class DeviceFlowBuilder;
  /// The fact for \p E, here or in the analysis of a lambda in the body.
  const DeviceFact *find(const Expr *E) const;

  std::string Skip;
  ASTContext *Context = nullptr;
  std::vector<const FunctionDecl *> Lambdas;
  unsigned NumBlocks = 0;
  unsigned NumVisits = 0;
  llvm::DenseMap<const Expr *, DeviceFact> Facts;
};

} // namespace clang::tidy::torch::device

#endif // TORCH_TIDY_DEVICE_DEVICEFLOW_H
