#include "boxes.h"

int draw_detections(torch::Tensor image) {
  auto boxes = image.to(torch::kCUDA).reshape({-1, 4});
  return box_corners(boxes).size();
}
