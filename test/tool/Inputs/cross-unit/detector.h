// A detector library and its user in another file: whether the detections
// are on the CPU is known only from the library's own file.
#include <torch/torch.h>
#include <vector>

struct Detector {
  torch::Device device{torch::kCUDA};
  std::vector<torch::Tensor> predict(const torch::Tensor &image);
  void draw(torch::Tensor boxes);
};
