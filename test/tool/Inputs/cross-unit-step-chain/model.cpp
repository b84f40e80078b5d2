#include "model.h"

torch::Tensor Extractor::predict(const torch::Tensor &image) {
  torch::NoGradGuard no_grad;
  return net->forward(image);
}
