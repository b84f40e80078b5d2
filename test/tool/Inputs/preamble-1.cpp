// Unit one of a project whose units share their LibTorch preamble.
#include <torch/torch.h>
#include "header.h"

void step1(torch::Tensor x, torch::Device device) {
  x.to(device);
  for (int i = 0; i < 3; ++i) {
    torch::Tensor loss = x.sum();
    loss.backward();
    double v = loss.item<double>();
    (void)v;
  }
}
