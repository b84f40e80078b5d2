//===- ASTHelpers.h - expressions, loops and source text --------*- C++ -*-===//
//
// Answers questions about the shape of the code, whatever library it uses:
// what an expression is once the compiler's implicit nodes and copies are
// looked through, what an assignment assigns, whether a node belongs to a
// template, which parts of a loop run on every iteration, and what the
// source says. Matchers with hasParent/hasAncestor build the parent map of
// the whole translation unit, so checks bind the enclosing function or loop
// top-down instead and ask these questions of it.
//
//===----------------------------------------------------------------------===//
#ifndef TORCH_TIDY_AST_ASTHELPERS_H
#define TORCH_TIDY_AST_ASTHELPERS_H

#include "clang/AST/DeclBase.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/Stmt.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "clang/Basic/LangOptions.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include <array>
#include <optional>
#include <utility>
#include <vector>

namespace clang::tidy::torch::ast {

// Stripping. Each looks through more than the one before it:
//   stripImplicit              implicit nodes (temporaries, implicit casts,
//                              cleanups) and parentheses;
//   stripCopiesAndConversions  + a construction from one argument (the rest
//                              defaulted, no braces) by a copy, move or
//                              implicit converting constructor: what is
//                              assigned or registered, `shared_ptr` ->
//                              `ModuleHolder` included;
//   stripCopiesAndMoves        + copy and move constructions only, but also
//                              `std::move`, `std::forward` and functional
//                              casts: where a value comes from.

/// \p E without implicit nodes (temporaries, casts, cleanups) and parens.
const Expr *stripImplicit(const Expr *E);

/// \p E without implicit nodes, parens, and copy or implicit converting
/// constructions.
const Expr *stripCopiesAndConversions(const Expr *E);

/// \p E without implicit nodes, parens, copies, moves (std::move too) and
/// functional casts: `torch::Tensor(std::move(loss))` is `loss`.
const Expr *stripCopiesAndMoves(const Expr *E);

/// True for the arithmetic and bitwise compound assignments (`+=` ... `^=`),
/// which change their left operand in place.
bool isArithmeticCompoundAssignment(OverloadedOperatorKind K);

/// The object a member call is made on, without implicit nodes and parens.
const Expr *receiverOf(const CXXMemberCallExpr *Call);

/// True if \p Call calls the function `std::Name`.
bool isStdCall(const CallExpr *Call, llvm::StringRef Name);

/// True if \p E, without implicit nodes and parens, names \p D.
bool namesDecl(const Expr *E, const ValueDecl *D);

/// True if \p S or a node inside it names a declaration \p Named accepts (a
/// variable, or a member by its declaration).
bool mentions(const Stmt *S, llvm::function_ref<bool(const ValueDecl *)> Named);

/// (LHS, RHS) if \p S is an assignment (built-in or operator=).
std::pair<const Expr *, const Expr *> asAssignment(const Stmt *S);

/// The variable an expression is part of: `w`, `w[0]`, `w.narrow(0, 0, 1)`,
/// `s.w` give `w` (or `s`); null when it is rooted in no variable.
const VarDecl *rootVariable(const Expr *E);

/// The field a this-based member expression \p E names (`fc`, `this->fc`),
/// or null.
const FieldDecl *thisField(const Expr *E);

/// The same as rootVariable for a member of `this`: `w_`, `w_[0]`,
/// `w_.narrow(0, 0, 1)` give the field `w_`; null otherwise.
const FieldDecl *rootField(const Expr *E);

/// True for code that belongs to a template: a dependent context, a
/// function template instantiation, or a member of a class template
/// specialization. A fix-it there would edit the source every instance
/// shares, so checks report once and offer a note instead.
bool isTemplateCode(const DeclContext *DC);

/// Appends the values of the return statements in \p S, not in its
/// lambdas, to \p Out (null for a `return;`).
void returnValues(const Stmt *S, llvm::SmallVectorImpl<const Expr *> &Out);

// Loops.

/// Matches the call operator of a lambda written inside a function body.
/// Matchers that walk whole bodies skip it as a root: the enclosing body's
/// walk already covers it, and walking it again from every enclosing lambda
/// makes deeply nested lambdas cost more than linear time.
inline ast_matchers::internal::BindableMatcher<Decl> lambdaInFunction() {
  using namespace ast_matchers;
  return cxxMethodDecl(
      ofClass(cxxRecordDecl(isLambda(), hasDeclContext(functionDecl()))));
}

/// True for for, range-for, while and do statements.
bool isLoop(const Stmt *S);

/// True when \p S is or holds a loop (lambdas left out).
bool containsLoop(const Stmt *S);

/// True for `step % interval == 0` and other conditions using '%' (a
/// periodic guard), lambdas left out.
bool usesModulo(const Stmt *S);

/// For an `if` under a periodic guard (usesModulo on its condition, `if
/// (step % every == 0) ...`): the parts that run on every pass, its
/// init-statement, condition variable, condition and else branch (some may
/// be null); nullopt for any other statement.
std::optional<std::array<const Stmt *, 4>>
partsBesidePeriodicBranch(const Stmt *S);

/// True for `i == 0` (or `0 == i`, any integer constant) where \p Loop
/// counts with `i`: its increment (`++i`, `i++`, `i += n`) runs in \p Loop
/// outside the loops nested in it. The branch runs once per run of the
/// loop, not on each iteration.
bool isCounterEquality(const Expr *Cond, const Stmt *Loop);

/// In a template's pattern, the callee of \p Call when it is a member call
/// left unresolved by a dependent type (`model->forward(x)`,
/// `t.eq(target).sum().item()`) naming an identifier; else null.
const CXXDependentScopeMemberExpr *dependentMemberCallee(const CallExpr *Call);

/// The function \p Call runs: its direct callee, or, in a template's
/// pattern, the one function (not a template) that a call left unresolved
/// by a dependent argument names (`expand(node, Game::ACTION_SPACE)`).
const FunctionDecl *calleeOrOnlyCandidate(const CallExpr *Call);

/// True when \p Fn is template code (or in a class template) that nothing
/// in this unit instantiates: only its pattern can be read.
bool isUninstantiatedPattern(const FunctionDecl *Fn);

/// True when \p Fn is template code whose body this unit instantiates: its
/// instantiations can be read instead, with their types and devices.
bool hasInstantiatedBody(const FunctionDecl *Fn);

/// The body of \p Loop, or null if \p Loop is not a loop.
const Stmt *loopBody(const Stmt *Loop);

/// The parts of \p Loop that run on every iteration: body, condition,
/// increment and range-for loop variable (not for-init or the range).
llvm::SmallVector<const Stmt *, 4> iterationParts(const Stmt *Loop);

// Source text.

/// The source text of \p Range (a token range), or "" inside a macro
/// argument the lexer cannot map back.
llvm::StringRef sourceText(SourceRange Range, const SourceManager &SM,
                           const LangOptions &LO);
inline llvm::StringRef sourceText(const Stmt *S, const SourceManager &SM,
                                  const LangOptions &LO) {
  return sourceText(S->getSourceRange(), SM, LO);
}

/// True if \p A comes before \p B once both are mapped to where their
/// macros are expanded.
bool isBeforeExpanded(const SourceManager &SM, SourceLocation A,
                      SourceLocation B);

} // namespace clang::tidy::torch::ast

#endif // TORCH_TIDY_AST_ASTHELPERS_H
