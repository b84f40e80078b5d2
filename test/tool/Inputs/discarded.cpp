#include <torch/torch.h>

void move(torch::Tensor x, torch::Device device) {
  x.to(device);
}
