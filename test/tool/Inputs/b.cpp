#include "header.h"
void useB(torch::Tensor x) { moveInHeader(x, torch::kCPU); }
