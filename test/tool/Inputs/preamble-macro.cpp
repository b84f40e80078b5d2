// A macro before the torch include: this unit parses its own preamble.
#define TORCH_TIDY_TEST_MACRO 1
#include <torch/torch.h>
#include <vector>

void macro(torch::Tensor x, torch::Device device) {
#if TORCH_TIDY_TEST_MACRO
  x.to(device);
#endif
}
