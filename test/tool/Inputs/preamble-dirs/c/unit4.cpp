#include <torch/torch.h>

void run(torch::Device device) {
  torch::Tensor t = torch::zeros({2}).to(device);
  t.to(device);
}
