#include "sample.h"

// Another loader that keeps its samples on the GPU.
Sample load_gpu_sample() {
  Sample s;
  s.image = torch::rand({3, 8, 8}, torch::kCUDA);
  s.intrinsics = torch::eye(3, torch::kCUDA);
  return s;
}
