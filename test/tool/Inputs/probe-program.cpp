// A small training program for the runtime report: a sync in the training
// loop that torch-tidy reports, one it cannot see (behind a std::function),
// a reported loop that never runs, and a wait inside a helper reported at
// its call.
#include <torch/torch.h>
#include <cstdio>
#include <functional>

static float read_mean(const torch::Tensor &t) { return t.mean().item<float>(); }
static float read_max(const torch::Tensor &t) { return t.max().item<float>(); }

void never_called(torch::nn::Linear &model, torch::optim::SGD &opt,
                  torch::Device device) {
  for (int step = 0; step < 10; ++step) {
    auto loss = model(torch::rand({4, 4}, device)).sum();
    opt.zero_grad();
    loss.backward();
    opt.step();
    std::printf("%f\n", loss.item<float>());
  }
}

int main(int argc, char **argv) {
  torch::Device device(torch::cuda::is_available() ? torch::kCUDA
                                                   : torch::kCPU);
  torch::nn::Linear model(4, 1);
  model->to(device);
  torch::optim::SGD opt(model->parameters(), 0.1);
  std::function<float(const torch::Tensor &)> report = read_mean;
  // A transfer the CPU build can make: 1 KiB to the meta device.
  auto staged = torch::ones({256}).to(torch::Device(torch::kMeta));
  const int steps = argc > 1 ? std::atoi(argv[1]) : 7;
  for (int step = 0; step < steps; ++step) {
    auto loss = model(torch::rand({4, 4}, device)).pow(2).sum();
    opt.zero_grad();
    loss.backward();
    opt.step();
    std::printf("%f\n", loss.item<float>());
    report(loss);
    read_max(loss);
  }
  if (argc > 2)
    never_called(model, opt, device);
  return staged.numel() == 256 ? 0 : 1;
}
