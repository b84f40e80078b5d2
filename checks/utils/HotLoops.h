//===- HotLoops.h - loops that run a training or inference step ----------===//
// A loop is "hot" when every iteration runs a step of a training or inference
// pipeline, so per-iteration host work (a sync, an allocation) is multiplied
// by the number of steps. A loop is hot by itself when the statements run on
// each of its iterations (body, condition, increment) contain a hot marker:
//   - a backward pass: Tensor::backward, torch::autograd::backward / grad;
//   - torch::optim::Optimizer::step or zero_grad (and overrides);
//   - a module's forward call: `m->forward(x)`, `m(x)` on a ModuleHolder,
//     Sequential or AnyModule, torch::jit::Module::forward / operator();
// or when it is a range-for over a torch::data data loader. Markers inside a
// nested loop or a lambda do not make the outer loop hot (the outer loop then
// runs once per epoch, not once per step); a loop nested in a hot loop is hot.
//
// Everything here walks the AST top-down: no parent map is built.
#ifndef TORCH_TIDY_UTILS_HOTLOOPS_H
#define TORCH_TIDY_UTILS_HOTLOOPS_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Stmt.h"
#include "llvm/ADT/SmallVector.h"
#include <optional>
#include <string>

namespace clang::tidy::torch::utils {

/// In order of preference when a loop has several markers.
enum class HotMarkerKind { Backward, OptimizerStep, Forward, DataLoader };

/// What makes a loop hot.
struct HotMarker {
  const Expr *E = nullptr; ///< the call, or the data loader range expression
  HotMarkerKind Kind = HotMarkerKind::Backward;
  std::string Name; ///< e.g. "backward", "step", "forward"

  explicit operator bool() const { return E != nullptr; }
  /// "training", "inference" or "data-loading".
  StringRef loopKind() const;
  /// Note text, e.g. "this loop runs a training step: 'backward' is called
  /// here".
  std::string describe() const;
};

/// True for for, range-for, while and do statements.
bool isLoop(const Stmt *S);

/// The parts of \p Loop that run on every iteration: body, condition,
/// increment and range-for loop variable (not for-init or the range).
llvm::SmallVector<const Stmt *, 4> iterationParts(const Stmt *Loop);

/// If \p E is itself a hot marker, describes it.
HotMarker asHotMarker(const Expr *E);

/// The marker that makes \p Loop hot by itself, or an empty marker: the first
/// of the preferred kind (a backward pass, then an optimizer call, a forward
/// call, the data loader).
HotMarker findHotMarker(const Stmt *Loop, ASTContext &Ctx);

struct HotLoop {
  const Stmt *Loop = nullptr; ///< innermost loop hot by itself around S
  HotMarker Marker;
};

/// The innermost loop around \p S inside \p Body (a function body) that is
/// hot by itself, provided \p S runs on each of its iterations (directly or in
/// nested loops or in a lambda defined there); std::nullopt when \p S is in
/// no hot loop. Top-down: costs a walk of \p Body.
std::optional<HotLoop> enclosingHotLoop(const Stmt *Body, const Stmt *S,
                                        ASTContext &Ctx);

} // namespace clang::tidy::torch::utils

#endif
