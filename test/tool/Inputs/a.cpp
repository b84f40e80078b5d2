#include "header.h"
void useA(torch::Tensor x, torch::Device device) {
  x.to(device);
}
