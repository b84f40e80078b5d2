#include "detector.h"

void Detector::run(int frames) {
  for (int i = 0; i < frames; ++i) {
    process();
    report();
  }
}

int main() {
  torch::Device device(torch::cuda::is_available() ? torch::kCUDA
                                                   : torch::kCPU);
  NetDetector detector(device);
  detector.run(100);
}
