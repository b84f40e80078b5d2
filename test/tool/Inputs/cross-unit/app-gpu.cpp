#include "detector.h"

// The same library, also given detections still on the GPU.
int main() {
  Detector det;
  torch::Tensor gpu = torch::rand({4, 6}, torch::kCUDA);
  det.draw(gpu);
  return 0;
}
