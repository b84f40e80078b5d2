#pragma once
#include <torch/torch.h>

// The model, behind a class of the program (not a module).
struct Extractor {
  torch::nn::Linear net{4, 4};
  torch::Tensor predict(const torch::Tensor &image);
};
