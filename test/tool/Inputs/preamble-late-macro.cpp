// A test of a macro that a LibTorch header defines later: after a shared
// header it would take the other branch, so this unit parses its own
// preamble.
#ifndef C10_MACROS_MACROS_H_
#include <vector>
#endif
#include <torch/torch.h>

void late(torch::Tensor x, torch::Device device) { x.to(device); }
