#include <torch/torch.h>
torch::Tensor clean(torch::Tensor x, torch::Device device) {
  return x.to(device);
}
