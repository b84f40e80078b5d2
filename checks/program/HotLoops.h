//===- HotLoops.h - loops that run once per step ------------*- C++ -*-===//
//
// Answers: does this loop run its body once per training or inference step
// (or more often), so that per-iteration host work (a sync, an allocation)
// is multiplied by the number of steps? And what is the loop, for messages?
//
// A loop is hot by itself (findHotMarker) when the statements run on each
// of its iterations (body, condition, increment) contain a hot marker:
//   - a backward pass: Tensor::backward, torch::autograd::backward / grad;
//   - torch::optim::Optimizer::step or zero_grad (and overrides);
//   - a module's forward call: `m->forward(x)`, `m(x)` on a ModuleHolder,
//     Sequential or AnyModule, torch::jit::Module::forward / operator();
// or when it is a range-for over a torch::data data loader. A marker in the
// body of a function of the user's that the loop calls, outside that
// function's loops, counts too (`train_step(model, batch)`, an agent's
// `act(obs)`), up to three calls deep. Markers inside a nested loop or a
// lambda do not make the outer loop hot (the outer loop then runs once per
// epoch, not once per step), nor does a model call in a loop around a nested
// training loop that runs on each iteration (an evaluation or bootstrap once
// per epoch or update; a training loop under an `if`, an off-policy agent's
// updates after `learning_starts`, leaves the environment-step loop hot); a
// loop nested in a hot loop is hot.
//
// hotLoop() adds loops that are hot by where they are (the outermost such
// loop of a function; loops nested in it are covered by it):
//   - a loop in forward() of a torch::nn::Module subclass, which runs on
//     every call of the model;
//   - a loop in a function called once per step: called from a hot loop, from
//     forward(), or from such a function, up to three calls deep;
//   - a loop over a tensor's elements: its condition reads the tensor's size
//     (`i < dets.size(0)`, `while (order.numel() > 0)`), directly or through
//     a local initialised from it, as in greedy NMS and detection decoding.
//
// Everything here walks the AST top-down: no parent map is built.
//
//===----------------------------------------------------------------------===//
#ifndef TORCH_TIDY_PROGRAM_HOTLOOPS_H
#define TORCH_TIDY_PROGRAM_HOTLOOPS_H

#include "ast/ASTHelpers.h"
#include "libtorch/ProgramCode.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "clang/AST/Stmt.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "llvm/ADT/StringRef.h"
#include <string>
#include <vector>

namespace clang::tidy::torch::program {

/// In order of preference when a loop has several markers.
enum class HotMarkerKind : unsigned char {
  Backward,
  OptimizerStep,
  Forward,
  DataLoader,
  // Hot by where the loop is (hotLoop()):
  InForward,     ///< in forward() of a module
  CalledPerStep, ///< in a function called once per step
  PerElement,    ///< bounded by a tensor's size
  /// In batch mode: a loop that calls functions of other files, one of which
  /// may run a training step (`agent.learn()`); the program decides.
  CallsElsewhere,
};

/// What makes a loop hot.
struct HotMarker {
  /// The call, the data loader range, the call of the loop's function (per
  /// step), the size read (per element); null for InForward.
  const Expr *E = nullptr;
  HotMarkerKind Kind = HotMarkerKind::Backward;
  /// e.g. "backward", "step", "forward"; the function's or tensor's name for
  /// the kinds hotLoop() adds.
  std::string Name;
  /// Forward: every module the loop calls is a loss. CalledPerStep: why the
  /// function runs once per step ("on every iteration of a training loop").
  bool Loss = false;
  std::string Why;
  const FunctionDecl *Forward = nullptr; ///< InForward: that forward()
  /// The user's function that runs the marker, when the loop calls it
  /// (`train_step(model, batch)`); E is then that call.
  std::string Via;
  /// CalledPerStep in batch mode: a function that no call here runs per
  /// step, which another file may call once per step (perStepElsewhere());
  /// Body: the marker of its body outside loops, not of a loop.
  const FunctionDecl *Elsewhere = nullptr;
  bool Body = false;
  /// PerElement, or CalledPerStep from such a loop only: hot because of the
  /// size of a tensor, not because the loop trains or runs a model.
  bool BySize = false;
  /// Found through a call left unresolved in a template's pattern
  /// (`model->forward(x)` on a type parameter): for code no instantiation
  /// covers only.
  bool Dependent = false;
  /// CallsElsewhere: the keys of the functions of other files the loop calls.
  std::vector<std::string> Callees;

  explicit operator bool() const {
    return E != nullptr || Forward || Elsewhere;
  }
  /// "training", "inference", "loss-computing" or "data-loading" for the
  /// markers; "" for the others.
  StringRef loopKind() const;
  /// How messages name the loop: "this training loop", "this loop in
  /// 'Net::forward'", "this loop over 'dets'".
  std::string loopName() const;
  /// Where the note goes, and what it says: "this loop runs a training step:
  /// 'backward' is called here".
  SourceLocation location() const;
  std::string describe() const;
};

/// The marker that makes \p Loop hot by itself, or an empty marker: the first
/// of the preferred kind (a backward pass, then an optimizer call, a forward
/// call, the data loader).
HotMarker findHotMarker(const Stmt *Loop);

/// The marker of \p Loop, a loop of \p Fn (its enclosing function, for a
/// loop in a lambda), if it is hot by itself or is the outermost loop that
/// is hot by where it is; an empty marker for the other loops, including
/// those nested in such a loop (the outer loop covers them). Cached per
/// function and translation unit until clearHotLoopCache().
HotMarker hotLoop(const Stmt *Loop, const FunctionDecl *Fn, ASTContext &Ctx);

/// Why \p Fn runs once per step, when it does: the call that makes it so
/// (HotMarker::E) and the reason (HotMarker::Why); else an empty marker.
HotMarker perStepCall(const FunctionDecl *Fn, ASTContext &Ctx);

/// In batch mode, for a function of the program that no call in this unit
/// runs once per step and that other files can call: a CalledPerStep marker
/// as if one did (HotMarker::Elsewhere). Findings made with it are kept only
/// if another unit calls the function once per step (perStepFacts(),
/// device::ProgramFacts S and Q lines). Else an empty marker.
HotMarker perStepElsewhere(const FunctionDecl *Fn, ASTContext &Ctx);

/// This unit's lines for device::ProgramFacts: S, the functions defined in
/// other files that it calls once per step; M, its functions whose body
/// runs a step (a marker outside their loops, which a loop in another file
/// that calls them makes hot); O, its loops not hot by themselves, with the
/// functions defined in other files that each calls (hot if one has an M
/// line: a DQN's episode loop calling `agent.act(obs)` and `agent.learn()`).
std::string perStepFacts(ASTContext &Ctx);

void clearHotLoopCache();

/// Matches each loop (bound as "loop") of each function definition outside
/// system headers (bound as "fn"), top-down, for checks that then ask
/// findHotMarker(). A lambda inside a function is not a root of its own:
/// its enclosing function's match covers it.
inline ast_matchers::DeclarationMatcher functionLoops() {
  using namespace ast_matchers;
  return functionDecl(
             isDefinition(), unless(libtorch::isLibraryCode()),
             unless(ast::lambdaInFunction()),
             hasBody(forEachDescendant(stmt(anyOf(forStmt(), cxxForRangeStmt(),
                                                  whileStmt(), doStmt()))
                                           .bind("loop"))))
      .bind("fn");
}

} // namespace clang::tidy::torch::program

#endif // TORCH_TIDY_PROGRAM_HOTLOOPS_H
