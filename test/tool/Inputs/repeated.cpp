#include "header.h"
// Identical flagged lines in one function: their fingerprints differ only by
// their index among identical lines.
void twice(torch::Tensor x, torch::Device device) {
  x.to(device);
  x.to(device);
}
void again(torch::Tensor x, torch::Device device) {
  moveInHeader(x, device);
  x.to(device);
}
