//===- TorchModules.h - modules and optimizers ------------------*- C++ -*-===//
//
// Answers questions about torch::nn modules and torch::optim optimizers:
// which classes are modules, module holders and optimizers; which members of
// a module must be registered (tensors, holders, shared_ptr to modules);
// which object an expression such as `net->fc->parameters()` is rooted in;
// where an optimizer is constructed; and which members of a module class
// are registered, and under which name; which tensors a module's forward
// is given. Shared by torch-stale-optimizer,
// torch-unregistered-member and the hot-loop and autograd analyses.
//
//===----------------------------------------------------------------------===//
#ifndef TORCH_TIDY_LIBTORCH_TORCHMODULES_H
#define TORCH_TIDY_LIBTORCH_TORCHMODULES_H

#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include <string>

namespace clang::tidy::torch::libtorch {

/// True if \p RD is torch::nn::Module or derives from it.
bool isModuleClass(const CXXRecordDecl *RD);

/// True for anything whose forward()/operator() runs a model: Module
/// subclasses, ModuleHolder (torch::nn::Linear, MSELoss, ...), AnyModule and
/// torch::jit::Module.
bool isForwardableModuleClass(const CXXRecordDecl *RD);

/// False when \p Callee, a function of the program whose body is here,
/// provably leaves the module it takes as parameter \p Param where it is:
/// the body only calls members of it other than to/cuda/cpu/apply/load
/// (`model.train()`, `model->forward(x)`, `model.parameters()`). True
/// otherwise (it may move it).
bool mayMoveModuleParameter(const FunctionDecl *Callee, unsigned Param);

/// True when \p Body moves a module to \p Device (`model->to(device)`,
/// `module.to(device)`): where the function computes.
bool placesModuleOn(const Stmt *Body, const ValueDecl *Device);

/// The tensors a module's `forward` is given in \p Arg: those written in it
/// (`forward({image, mask})`) and, when \p Arg names a local
/// `std::vector<IValue>`, those pushed into it with push_back or
/// emplace_back in its function (a TorchScript module's inputs).
void inputTensors(const Expr *Arg, llvm::SmallVectorImpl<const Expr *> &Out);

/// True if \p RD is torch::optim::Optimizer or derives from it.
bool isOptimizerClass(const CXXRecordDecl *RD);

/// The kinds of member that must be registered with their module.
enum class MemberKind : unsigned char { None, Tensor, Holder, SharedPtr };

/// A tensor, a ModuleHolder (torch::nn::Linear, ...) or a std::shared_ptr
/// to a module; None for anything else (references included).
MemberKind moduleMemberKind(QualType T);

/// If \p E is (a copy of) a call to register_module, register_parameter,
/// register_buffer or replace_module, that call.
const CXXMemberCallExpr *asRegisterCall(const Expr *E);

/// A module object named in the source: `net` (variable or field) and, for
/// `net->fc->...`, the first member on the way (`fc`).
struct ModuleRef {
  const ValueDecl *Root = nullptr;
  const FieldDecl *Member = nullptr;
  explicit operator bool() const { return Root != nullptr; }
};

/// Follows `->`, `*`, `.ptr()`, `.get()`, `.as<T>()` and member accesses
/// from \p E down to a variable, or to a field of `this`.
ModuleRef moduleRoot(const Expr *E);

/// If \p S is a module's move, `net->to(device)` or `model.to(torch::kCUDA)`,
/// the module it moves (moduleRoot of its object); else an empty ref.
ModuleRef movedModule(const Stmt *S);

/// If \p Call is Module::parameters() or named_parameters(), the module
/// it is called on.
ModuleRef parametersReceiver(const CXXMemberCallExpr *Call);

/// The optimizer construction \p E is or contains at top level: a
/// construct expression of an optimizer class, `new Optimizer(...)`, or
/// std::make_shared/make_unique<Optimizer>(...). Null if none.
const Expr *optimizerConstruction(const Expr *E);

/// How a member of a module class is registered.
struct Registration {
  StringRef Method; ///< "register_module", "register_parameter", ...
  std::string Name; ///< the registered name when written as a literal
};

/// The registered members of a module class, from its constructors (bodies
/// and mem-initializers), methods (reset() of a Cloneable included) and
/// default member initializers visible in this translation unit.
struct ModuleRegistrations {
  llvm::DenseMap<const FieldDecl *, Registration> Fields;
  /// False when a constructor or reset() is defined elsewhere, or the class
  /// lives in a system header: unlisted members may still be registered.
  bool Complete = true;
  const Registration *find(const FieldDecl *FD) const {
    auto It = Fields.find(FD);
    return It == Fields.end() ? nullptr : &It->second;
  }
};

/// The registrations of \p RD; ModuleAnalysisCache keeps them per file.
ModuleRegistrations analyzeRegistrations(const CXXRecordDecl *RD,
                                         const SourceManager &SM);

} // namespace clang::tidy::torch::libtorch

#endif // TORCH_TIDY_LIBTORCH_TORCHMODULES_H
