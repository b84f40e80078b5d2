// A project header that starts with LibTorch: its units start with it too.
#pragma once
#include <torch/torch.h>

struct NetA : torch::nn::Module {
  torch::nn::Linear fc{nullptr};
  NetA() { fc = register_module("fc", torch::nn::Linear(8, 1)); }
  torch::Tensor forward(torch::Tensor x) { return fc->forward(x); }
};
