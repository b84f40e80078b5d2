#include <torch/torch.h>
inline void moveInHeader(torch::Tensor x, torch::Device device) {
  x.to(device);
}
