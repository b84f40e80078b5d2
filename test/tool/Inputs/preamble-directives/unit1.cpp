#include "replicated.h"

TT_INLINE void replicated1(at::Tensor x, c10::Device device) { x.to(device); }
