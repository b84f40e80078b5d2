#include "trainer.h"

float train(torch::nn::Linear model, std::vector<torch::Tensor> data,
            torch::Device device) {
  model->to(device);
  torch::optim::SGD opt(model->parameters(), 0.1);
  float total = 0;
  for (auto &x : data) {
    opt.zero_grad();
    auto loss = model->forward(x.to(device)).mean();
    loss.backward();
    opt.step();
    total += loss.item<float>();
  }
  return total;
}
