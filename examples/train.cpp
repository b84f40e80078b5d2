// Trains a small regressor on synthetic data. Run torch-tidy over it:
//   scripts/demo.sh
#include "model.h"
#include <iostream>
#include <vector>

int main() {
  torch::manual_seed(0);
  torch::Device device(torch::cuda::is_available() ? torch::kCUDA : torch::kCPU);

  Regressor model(8, 16);
  torch::optim::SGD optimizer(model->parameters(), /*lr=*/0.01);
  model->to(device); // fine: Module::to keeps the optimizer's tensors

  // BUG: a fresh model after the optimizer was built; it never trains.
  model = Regressor(8, 16); model->to(device);

  torch::Tensor inputs = torch::randn({64, 8});
  torch::Tensor targets = inputs.sum(1, /*keepdim=*/true);
  prepare(inputs, device);
  targets.to(device); // BUG: discarded again

  std::vector<torch::Tensor> history;
  torch::Tensor running = torch::zeros({1}); // BUG: on the CPU, the loss is not
  for (int step = 0; step < 100; ++step) {
    optimizer.zero_grad();
    torch::Tensor loss = torch::mse_loss(model->forward(inputs), targets);
    loss.backward();
    optimizer.step();

    history.push_back(loss); // BUG: keeps every step's autograd graph alive
    running += loss;         // BUG: same, through an accumulator
    std::cout << "step " << step << " loss " << loss.item<float>() << "\n"; // BUG: syncs every step
    if (step % 10 == 0)
      std::cout << "checkpoint loss " << loss.item<float>() << "\n"; // fine: periodic
  }
  std::cout << "mean loss " << (running / 100).item<float>() << "\n";
  return 0;
}
