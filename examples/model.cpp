#include "model.h"

RegressorImpl::RegressorImpl(int64_t in, int64_t hidden) {
  fc1 = register_module("fc1", torch::nn::Linear(in, hidden));
  fc2 = register_module("fc2", torch::nn::Linear(hidden, 1));
  scale = torch::ones({1});
}

torch::Tensor RegressorImpl::forward(torch::Tensor x) {
  return fc2->forward(torch::relu(fc1->forward(x))) * scale;
}

void prepare(torch::Tensor &batch, const torch::Device &device) {
  batch.to(device); // BUG: the result is discarded; batch stays where it was
}
