// Unit three.

#include   <torch/torch.h>   // spacing differs, directives do not
#include <vector>

torch::Tensor mix(torch::Tensor x) {
  torch::Tensor cpu = torch::ones({4});
  torch::Tensor gpu = x.cuda();
  return gpu + cpu;
}
