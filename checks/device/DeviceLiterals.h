//===- DeviceLiterals.h - what LibTorch constants say, in the lattice ----===//
// Answers: which device does a compile-time LibTorch constant name
// (torch::kCUDA, "cuda:1"), and how many dimensions do a factory's sizes or
// data give (`{2, 3}`, `x.sizes()`, a number)? The values DeviceFlow starts
// from, in its lattice's terms (DeviceFacts.h); the names they are read
// from are LibTorch's (libtorch/DeviceRules.h).
#ifndef TORCH_TIDY_DEVICE_DEVICELITERALS_H
#define TORCH_TIDY_DEVICE_DEVICELITERALS_H

#include "device/DeviceFacts.h"
#include "clang/AST/ASTContext.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include <optional>

namespace clang::tidy::torch::device {

/// The rank a sizes argument (IntArrayRef) gives: `{2, 3}` is 2, `5` is 1,
/// `x.sizes()` is x's rank (from \p RankOfTensor), anything else unknown.
TensorRank sizesRank(const Expr *Sizes,
                     llvm::function_ref<TensorRank(const Expr *)> RankOfTensor);

/// The rank of torch::tensor(data): a number is 0-dim, a braced list or a
/// vector has at least one dimension.
TensorRank tensorDataRank(const Expr *Data);

/// If \p E is a compile-time c10::DeviceType (torch::kCUDA, kCPU), its
/// device; other device types (MPS, XLA, ...) are Unknown.
std::optional<DeviceValue> constantDeviceType(const Expr *E,
                                              const ASTContext &Ctx);

/// The device a string such as "cuda:1" or "cpu" names.
DeviceValue parseDeviceString(StringRef S);

} // namespace clang::tidy::torch::device

#endif // TORCH_TIDY_DEVICE_DEVICELITERALS_H
