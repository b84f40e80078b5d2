// Its own header first, then more library headers: still the same start.
#include "model_b.h"
#include <iostream>

void show(torch::Device device) {
  torch::Tensor t = torch::ones({3}).to(device);
  t.to(torch::kCPU);
  std::cout << scale(t) << "\n";
}
