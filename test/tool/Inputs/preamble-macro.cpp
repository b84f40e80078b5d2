// A macro before the torch include that no LibTorch header names: it is
// defined after the shared header instead of before its headers, which
// changes nothing, so this unit shares.
#define TORCH_TIDY_TEST_MACRO 1
#include <torch/torch.h>
#include <vector>

void macro(torch::Tensor x, torch::Device device) {
#if TORCH_TIDY_TEST_MACRO
  x.to(device);
#endif
}
