// The torch include in a branch of the unit's own: the test reads a macro
// no LibTorch header sets, so it takes the same branch after the shared
// header, and this unit shares.
#ifdef TORCH_TIDY_TEST_OTHER_BACKEND
#include "other_backend.h"
#else
#include <torch/torch.h>
#endif

void conditional(torch::Tensor x, torch::Device device) { x.to(device); }
