//===- CallerDevices.h - devices that come from the rest of the program --===//
// Answers: a tensor whose device DeviceFlow cannot know inside its function
// (DeviceValue::Inherited: a tensor parameter, an element of a tensor-vector
// parameter, what a function of the user's returns, a tensor member of the
// user's struct, the device a torch::Device parameter holds, a module
// parameter's device), is it on the CPU wherever it comes from?
//
// The answer follows the values through the translation unit:
//   - a parameter receives what every call of its function passes; a
//     function other files can call needs a call here, one they cannot call
//     (static, anonymous namespace) and that is never called receives
//     nothing;
//   - a function returns what every return statement of its body returns;
//   - a tensor member of a plain struct or class of the user's
//     (isFollowedField) holds what the unit stores in it, in any object:
//     assignments (`sample.intrinsics = K`), constructor initializers,
//     aggregate initialization, and assignments to a function's non-const
//     reference parameter the member is passed to; a member that a pointer,
//     another non-const reference or an in-class initializer reaches is not
//     followed;
//   - a std::vector<Tensor> local holds what its initializer,
//     push_back/emplace_back, element assignments (`v[i] = t`) and the
//     functions it is passed to by reference (theirs, three calls deep) put
//     in it; any other change stops the search.
// Each step asks DeviceFlow about the caller or the callee, so the chain
// goes through any number of functions; a cycle adds nothing. The tensor is
// on the CPU when every value that arrives is, and at least one arrives; a
// value that cannot be followed (no body, a template, a device) answers no.
//
// Batch mode sees the whole program: each worker writes what its unit knows
// and what its findings need (ProgramFacts.h), and the driver joins them.
#ifndef TORCH_TIDY_DEVICE_CALLERDEVICES_H
#define TORCH_TIDY_DEVICE_CALLERDEVICES_H

#include "device/DeviceFacts.h"
#include "clang/AST/ASTContext.h"
#include "llvm/ADT/ArrayRef.h"
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace clang::tidy::torch::device {

/// True for a function of the user's code whose tensor results and
/// parameters the analysis follows: not LibTorch's, not the standard
/// library's.
bool isUserFunction(const FunctionDecl *FD);

/// True for a tensor member of a class of the user's code that is neither a
/// module nor a template's: what the program stores in it is followed, in
/// any object of the class (`sample.intrinsics`, `p.obs`).
bool isFollowedField(const FieldDecl *FD);

/// For an element of the tensor sequence \p Seq (a std::vector<Tensor>):
/// where it comes from, as an Inherited root: the user's function whose
/// result \p Seq is, or the parameter or local (not a lambda's) it names;
/// null otherwise.
const Decl *sequenceRoot(const Expr *Seq);

/// \p V, or for the device held by a torch::Device parameter of the user's
/// function (OnDevice), Inherited from that parameter: whatever its callers
/// pass (`train(..., device)` with `device = torch::kCPU` in main).
DeviceValue asInheritedParameter(const DeviceValue &V);

/// True when \p V is Inherited and every tensor that reaches its root in
/// this translation unit is on the CPU. Always false in a batch worker,
/// where the driver answers for the whole program (deferToProgram()),
/// unless \p InThisUnit: a question no fact line can defer (the CPU
/// arguments of a call whose callee waits inside), answered from the unit.
bool inheritsCPU(const DeviceValue &V, ASTContext &Ctx,
                 bool InThisUnit = false);

/// True in a batch worker, which writes its unit's facts (ProgramFacts.h)
/// to the file named by the environment variable TORCH_TIDY_UNIT_FACTS.
bool exportsUnitFacts();

/// In a batch worker: the finding at \p Loc stands only if \p V, an
/// Inherited device, is not on the CPU in the whole program. \p SizeLoop:
/// the finding is in a loop bounded by a tensor's size, and also needs some
/// value to reach \p V.
void deferToProgram(SourceLocation Loc, const DeviceValue &V, ASTContext &Ctx,
                    bool SizeLoop = false);

/// In a batch worker: appends the unit's facts (what its functions return,
/// what its calls pass, the deferred findings) to the facts file.
void writeUnitFacts(ASTContext &Ctx);

/// A call of a user function, and the function whose body holds it (the
/// enclosing function, for a call in a lambda).
struct CallSite {
  const CallExpr *Call;
  const FunctionDecl *Caller;
};

/// The calls of \p Fn in the user code of this translation unit, operator
/// calls excluded (what the parameters' inflow is built from).
llvm::ArrayRef<CallSite> callSitesOf(const FunctionDecl *Fn, ASTContext &Ctx);

/// Every call of a user function in this translation unit, with its
/// callee, in source order.
std::vector<std::pair<const FunctionDecl *, CallSite>>
callSitesInUnit(ASTContext &Ctx);

/// Where a finding at \p Loc is, as the batch driver names it: the
/// absolute path of its file and its offset there.
std::optional<std::pair<std::string, unsigned>>
findingPosition(SourceLocation Loc, const SourceManager &SM);

/// The name of \p FD that every translation unit gives it (ProgramFacts.h):
/// qualified name and parameter types, and the file for a function with
/// internal linkage.
std::string functionKey(const FunctionDecl *FD);

/// The keys a call in another file may name \p FD by: its own, and those of
/// the program's virtual methods it overrides (`YOLO::process()` for
/// `YOLO_Detect::process()`, called through the base class).
std::vector<std::string> functionKeysOfCalls(const FunctionDecl *FD);

/// In a batch worker: appends \p Lines (ProgramFacts lines) to the unit's
/// facts file.
void appendUnitFacts(llvm::StringRef Lines);

/// Drops what was learnt about the translation unit.
void clearCallerDevicesCache();

} // namespace clang::tidy::torch::device

#endif // TORCH_TIDY_DEVICE_CALLERDEVICES_H
