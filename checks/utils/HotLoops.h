//===- HotLoops.h - loops that run a training step --------------*- C++ -*-===//
//
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
//
//===----------------------------------------------------------------------===//
#ifndef TORCH_TIDY_UTILS_HOTLOOPS_H
#define TORCH_TIDY_UTILS_HOTLOOPS_H

#include "ASTHelpers.h"
#include "clang/AST/Expr.h"
#include "clang/AST/Stmt.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "llvm/ADT/StringRef.h"
#include <string>

namespace clang::tidy::torch::utils {

/// In order of preference when a loop has several markers.
enum class HotMarkerKind : unsigned char {
  Backward,
  OptimizerStep,
  Forward,
  DataLoader
};

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

/// The marker that makes \p Loop hot by itself, or an empty marker: the first
/// of the preferred kind (a backward pass, then an optimizer call, a forward
/// call, the data loader).
HotMarker findHotMarker(const Stmt *Loop);

/// Matches each loop (bound as "loop") of each function definition outside
/// system headers (bound as "fn"), top-down, for checks that then ask
/// findHotMarker(). A lambda inside a function is not a root of its own:
/// its enclosing function's match covers it.
inline ast_matchers::DeclarationMatcher functionLoops() {
  using namespace ast_matchers;
  return functionDecl(
             isDefinition(), unless(isExpansionInSystemHeader()),
             unless(lambdaInFunction()),
             hasBody(forEachDescendant(stmt(anyOf(forStmt(), cxxForRangeStmt(),
                                                  whileStmt(), doStmt()))
                                           .bind("loop"))))
      .bind("fn");
}

} // namespace clang::tidy::torch::utils

#endif // TORCH_TIDY_UTILS_HOTLOOPS_H
