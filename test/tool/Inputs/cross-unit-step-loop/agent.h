#pragma once
#include <torch/torch.h>

struct Agent {
  explicit Agent(torch::Device device);
  torch::Tensor act(const torch::Tensor &obs);
  void learn(const torch::Tensor &batch);
  torch::Tensor scale(const torch::Tensor &x);
  torch::nn::Linear net;
  torch::optim::SGD opt;
  torch::Device device;
};
