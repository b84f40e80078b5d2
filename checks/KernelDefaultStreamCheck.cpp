//===- KernelDefaultStreamCheck.cpp - torch-kernel-default-stream ---------===//
#include "KernelDefaultStreamCheck.h"
#include "libtorch/CudaApi.h"
#include "program/KernelLaunches.h"
#include "clang/Lex/Lexer.h"

namespace clang::tidy::torch {

namespace {
constexpr llvm::StringLiteral CurrentStream =
    "at::cuda::getCurrentCUDAStream()";

/// The arguments of \p Call written in the source (default ones left out).
unsigned writtenArgs(const CallExpr *Call) {
  unsigned N = 0;
  for (const Expr *A : Call->arguments())
    N += !isa<CXXDefaultArgExpr>(A);
  return N;
}

/// The fix that puts \p Work on the current stream, if one is simple.
std::optional<FixItHint>
streamFix(const Expr *Work, const SourceManager &SM, const LangOptions &LO,
          SourceLocation (*Editable)(SourceLocation, const SourceManager &)) {
  if (const Expr *Stream = libtorch::streamArgument(Work)) {
    CharSourceRange R = Lexer::makeFileCharRange(
        CharSourceRange::getTokenRange(Stream->getSourceRange()), SM, LO);
    if (R.isInvalid())
      return std::nullopt;
    return FixItHint::CreateReplacement(R, CurrentStream);
  }
  const auto *Call = cast<CallExpr>(Work);
  if (const auto *K = dyn_cast<CUDAKernelCallExpr>(Call)) {
    const CallExpr *Config = K->getConfig();
    unsigned N = writtenArgs(Config);
    SourceLocation At = Editable(Config->getRParenLoc(), SM);
    if (N < 2 || N > 3 || At.isInvalid())
      return std::nullopt;
    return FixItHint::CreateInsertion(
        At, ((N == 2 ? ", 0, " : ", ") + CurrentStream).str());
  }
  SourceLocation At = Editable(Call->getRParenLoc(), SM);
  if (libtorch::isAsyncRuntimeCopy(Call) && At.isValid())
    return FixItHint::CreateInsertion(At, (", " + CurrentStream).str());
  return std::nullopt;
}
} // namespace

void KernelDefaultStreamCheck::checkFunction(const FunctionDecl *Fn,
                                             ASTContext &Ctx) {
  // A CUDA unit of the project is extension code even when it includes no
  // LibTorch header (a .cu of raw launchers); a C++ unit is when it does.
  if (!Ctx.getLangOpts().CUDA && !libtorch::includesLibTorch(Ctx))
    return;
  const SourceManager &SM = Ctx.getSourceManager();
  for (const program::GpuWork &W : program::gpuWorkOf(Fn, Ctx)) {
    if (W.Launcher)
      continue;
    libtorch::StreamUse Use = libtorch::streamUse(W.Work);
    if (Use != libtorch::StreamUse::NoStream &&
        Use != libtorch::StreamUse::Legacy)
      continue;
    SourceLocation Loc = reportLoc(W.Site, SM);
    if (!reportOnce(Loc))
      continue;
    const auto *Call = cast<CallExpr>(W.Work);
    bool Launch = libtorch::isKernelLaunch(Call);
    bool Blocking = libtorch::isBlockingRuntimeCopy(Call);
    bool Thrust =
        libtorch::thrustStreamUse(Call) != libtorch::StreamUse::NotAStreamCall;
    std::string What =
        Launch
            ? "kernel '" + libtorch::launchedName(Call) + "'"
            : "'" + Call->getDirectCallee()->getQualifiedNameAsString() + "'";
    llvm::StringRef Instead =
        Blocking ? "use its Async form on at::cuda::getCurrentCUDAStream(), "
                   "then synchronize that stream if the host needs the result"
        : Thrust
            ? "pass thrust::cuda::par.on(at::cuda::getCurrentCUDAStream()) "
              "as its execution policy"
            : "pass at::cuda::getCurrentCUDAStream()";
    bool InMacro = editableLoc(W.Site->getBeginLoc(), SM).isInvalid();
    bool CanWrite = isDeclared(Ctx, "at::cuda::getCurrentCUDAStream");
    std::optional<FixItHint> Fix;
    if (!Blocking && !Thrust && !InMacro && CanWrite)
      Fix = streamFix(Call, SM, Ctx.getLangOpts(), &editableLoc);
    {
      auto D = diag(Loc, "%0 runs on the legacy default stream, not on "
                         "PyTorch's current stream: under a stream guard, a "
                         "side stream or CUDA graph capture it races with "
                         "the work around it or breaks the capture; %1")
               << What << Instead;
      if (Fix)
        D << *Fix;
    }
    if (!Blocking && !Thrust) {
      if (InMacro)
        noFixNote(Loc, NoFix::InMacro);
      else if (!CanWrite)
        diag(Loc,
             "no automatic fix: at::cuda::getCurrentCUDAStream is not "
             "declared here; include <ATen/cuda/CUDAContext.h>",
             DiagnosticIDs::Note);
    }
  }
}

} // namespace clang::tidy::torch
