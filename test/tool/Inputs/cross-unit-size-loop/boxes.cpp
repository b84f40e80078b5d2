#include "boxes.h"

// A loop over the rows of a parameter: a device wait per row only if a
// caller passes a tensor on a device.
std::vector<int> box_corners(torch::Tensor boxes) {
  std::vector<int> corners;
  for (int i = 0; i < boxes.size(0); i++)
    corners.push_back(boxes[i][0].item<int>());
  return corners;
}

// A training loop: reported when the device is not known, called or not.
float loss_per_box(torch::Tensor boxes, torch::nn::Linear model,
                   torch::Device device) {
  float total = 0;
  for (int epoch = 0; epoch < 10; epoch++) {
    auto loss = model->forward(boxes.to(device)).mean();
    loss.backward();
    total += loss.item<float>();
  }
  return total;
}
