//===- GpuUse.h - can this translation unit use a GPU at all? ----*- C++
//-*-===//
//
// Answers: is this translation unit a whole program (it defines main())
// whose code never names a GPU nor takes a device from elsewhere? Then every
// tensor it makes stays on the CPU, and a "sync" there waits for nothing
// (CPU-only tutorials, examples without a device). A file without main()
// may be called with tensors on a GPU, so it may use one. It names one with a
// non-CPU torch::DeviceType
// (`torch::kCUDA`), `.cuda()`, a torch::cuda / at::cuda / c10::cuda call, or
// a string that names a device ("cuda:0", "mps") or a torch::Device made
// from a string only known when it runs (`torch::Device(argv[1])`); it takes
// one from elsewhere with a parameter or member of type torch::Device or
// TensorOptions, or with a call of a function of the program's that is
// defined in another file and takes or returns tensors or modules (not a
// module's method: it computes on the module's device, decided here). A
// CUDA translation unit uses a GPU. Computed once per translation unit, on
// first request.
//
//===----------------------------------------------------------------------===//
#ifndef TORCH_TIDY_PROGRAM_GPUUSE_H
#define TORCH_TIDY_PROGRAM_GPUUSE_H

#include "clang/AST/ASTContext.h"
#include <string>

namespace clang::tidy::torch::program {

/// False when the translation unit is a program that can only run on the
/// CPU (see above).
bool mayUseGPU(ASTContext &Ctx);

/// In batch mode, this unit's part of the same answer for the whole program
/// (device::ProgramFacts P lines): "main" if it defines main(), "gpu" if it
/// names a GPU itself, as above, not counting the devices it takes from
/// other files (they name them, or nothing does); and the program's
/// functions it defines and calls without defining, which tie the units of
/// one program together. A program whose units name no GPU, and one of
/// which defines main(), runs on the CPU.
std::string programGpuFacts(ASTContext &Ctx);
void clearGpuUseCache();

} // namespace clang::tidy::torch::program

#endif // TORCH_TIDY_PROGRAM_GPUUSE_H
