#include <torch/torch.h>

void broken(torch::Tensor x) {
  x.to(undeclared_device);
}
