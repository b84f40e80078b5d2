#include "detector.h"

int main() {
  Detector det;
  for (int frame = 0; frame < 100; ++frame) {
    std::vector<torch::Tensor> found = det.predict(torch::rand({1, 3, 8, 8}));
    det.draw(found[0]);
    for (int64_t i = 0; i < found[0].size(0); ++i)
      std::printf("%f\n", found[0][i][2].item<float>());
  }
  return 0;
}
