#include "helpers.h"

int main() {
  torch::Device device(torch::cuda::is_available() ? torch::kCUDA
                                                   : torch::kCPU);
  torch::nn::Linear model(4, 1);
  model->to(device);
  torch::optim::SGD opt(model->parameters(), 0.1);
  LossTracker tracker;
  std::vector<torch::Tensor> epoch;
  for (int step = 0; step < 100; ++step) {
    auto loss = model(torch::rand({4, 4}, device)).sum();
    opt.zero_grad();
    loss.backward();
    double norm = grad_norm(*model);
    tracker.add(loss);
    int64_t words = count_words(torch::randint(0, 9, {8}).cpu());
    opt.step();
    epoch.push_back(loss.detach());
    (void)norm, (void)words;
  }
  report_epoch(epoch);
  return evaluate(model, torch::rand({4, 4}, device)) > 0;
}
