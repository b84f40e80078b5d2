#include "trainer.h"

int main() {
  auto device = torch::kCPU;
  if (torch::cuda::is_available())
    device = torch::kCUDA;
  device = torch::kCPU; // forced: the program trains on the CPU
  torch::nn::Linear model(4, 1);
  std::vector<torch::Tensor> data{torch::rand({8, 4})};
  return train(model, data, device) > 0 ? 0 : 1;
}
