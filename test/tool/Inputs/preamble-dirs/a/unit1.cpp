#include "model_a.h"

double train(NetA &net, torch::optim::SGD &opt, torch::Device device) {
  double total = 0;
  for (int step = 0; step < 10; ++step) {
    torch::Tensor x = torch::randn({4, 8}).to(device);
    opt.zero_grad();
    torch::Tensor loss = net.forward(x).pow(2).mean();
    loss.backward();
    opt.step();
    total += loss.item<double>();
  }
  return total;
}
