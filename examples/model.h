#pragma once
#include <torch/torch.h>

// A two-layer regressor.
struct RegressorImpl : torch::nn::Module {
  RegressorImpl(int64_t in, int64_t hidden);
  torch::Tensor forward(torch::Tensor x);

  torch::nn::Linear fc1{nullptr}, fc2{nullptr};
  torch::Tensor scale; // BUG: never registered, so module->to() leaves it behind
};
TORCH_MODULE(Regressor);

// Moves a batch to the device the model lives on.
void prepare(torch::Tensor &batch, const torch::Device &device);
