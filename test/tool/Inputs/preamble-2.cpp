/* Unit two: a different comment, the same directives. */
#include <torch/torch.h>
#include <vector>

torch::Tensor noise(torch::Tensor x, torch::Device device) {
  return torch::zeros({3, 4}, torch::kFloat).to(device) + x;
}
