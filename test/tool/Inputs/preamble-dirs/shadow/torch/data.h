// A folder of the project that shadows one of LibTorch's headers: a unit
// compiled with it reads other files than the rest, and shares nothing.
#pragma once
#define SHADOWED_TORCH_DATA 1
#include_next <torch/data.h>
