#include "trainer.h"

int run_on_gpu() {
  torch::Device device(torch::cuda::is_available() ? torch::kCUDA
                                                   : torch::kCPU);
  torch::nn::Linear model(4, 1);
  std::vector<torch::Tensor> data{torch::rand({8, 4})};
  return train(model, data, device) > 0 ? 0 : 1;
}
