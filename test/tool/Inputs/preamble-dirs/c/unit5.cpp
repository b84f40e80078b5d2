#include <torch/torch.h>

int shadowed() { return SHADOWED_TORCH_DATA; }
void run5(torch::Device device) {
  torch::Tensor t = torch::zeros({2}).cuda();
  t.cpu();
}
