#include "sample.h"

int main() {
  torch::Device device(torch::cuda::is_available() ? torch::kCUDA : torch::kCPU);
  torch::nn::Linear model(192, 1);
  model->to(device);
  torch::optim::SGD opt(model->parameters(), 0.1);
  for (int step = 0; step < 100; ++step) {
    Sample s = load_sample(step);
    float fx = s.intrinsics[0][0].item<float>();
    auto loss = model->forward(s.image.to(device).flatten()).sum() * fx;
    opt.zero_grad();
    loss.backward();
    opt.step();
  }
  return 0;
}
