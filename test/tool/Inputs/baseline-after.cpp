#include <torch/torch.h>
// Unrelated edits above the known finding shift its line.
int helper(int a) {
  return a + 1;
}

void known(torch::Tensor x, torch::Device device) {
  x.to(device);
}

void added(torch::Tensor y, torch::Device device) {
  y.to(device);
}
