// The tests' precompiled header for CUDA units (see CMakeLists.txt): the
// same headers as torch_pch.h, parsed as a CUDA unit's host side, and with a
// LibTorch built with CUDA, what extensions include.
#include "torch_pch.h"
#if __has_include(<c10/cuda/impl/cuda_cmake_macros.h>)
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAGuard.h>
#include <torch/extension.h>
#endif
