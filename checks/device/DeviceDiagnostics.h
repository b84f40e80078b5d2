//===- DeviceDiagnostics.h - wording for checks built on DeviceFlow ------===//
// How checks built on DeviceFlow name an operand and explain where it got its
// device: the parenthesis of a warning ("created without a device") and the
// note at the origin ("'y' is created here without a device, so it is on the
// CPU"), so that every such check words it the same way.
#ifndef TORCH_TIDY_DEVICE_DEVICEDIAGNOSTICS_H
#define TORCH_TIDY_DEVICE_DEVICEDIAGNOSTICS_H

#include "clang-tidy/ClangTidyCheck.h"
#include "device/DeviceFacts.h"
#include "device/DeviceFlow.h"
#include <string>

namespace clang::tidy::torch::device {

/// The source text of \p E when it is short enough to quote in a message
/// (one line, at most 40 characters, not from a macro); otherwise "".
std::string quotableText(const Expr *E, const SourceManager &SM,
                         const LangOptions &LO);

/// "'y' is on the CPU (created without a device)", or without the
/// parenthesis when the origin is not known; \p Name may be "" ("the
/// tensor").
std::string describeOperand(StringRef Name, const DeviceFact &F);

/// True when \p Origin is \p Operand itself, or the initializer of the
/// variable \p Operand names.
bool isOwnOrigin(const Expr *Operand, const Stmt *Origin);

/// DeviceFlow's analysis of \p Fn, or null when it skipped \p Fn; then,
/// with \p Verbose, a remark from \p Check says why.
const DeviceFlow *analyzedFlow(ClangTidyCheck &Check, const FunctionDecl *Fn,
                               ASTContext &Ctx, bool Verbose);

/// Adds the note at the origin of \p F, the fact about \p Operand (named
/// \p Name, or ""), unless the origin is in a system header. The note says
/// "'y' is created here ..." when the origin is Operand's own initializer,
/// "the device of 'y' comes from here: ..." when Operand derives from it.
void noteOrigin(ClangTidyCheck &Check, StringRef Name, const Expr *Operand,
                const DeviceFact &F, const SourceManager &SM);

} // namespace clang::tidy::torch::device

#endif // TORCH_TIDY_DEVICE_DEVICEDIAGNOSTICS_H
