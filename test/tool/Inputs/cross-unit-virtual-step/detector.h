// An inference program whose per-frame work is a virtual method: the
// frame loop (runner.cpp) calls process() through the base class, and each
// backend defines it in its own file (net_detector.cpp).
#include <torch/torch.h>
#include <vector>

struct Detector {
  virtual ~Detector() = default;
  virtual void process() = 0;
  virtual void report() = 0;
  void run(int frames);
};

struct NetDetector : Detector {
  explicit NetDetector(torch::Device device);
  void process() override;
  void report() override;

  torch::nn::Linear net{nullptr};
  torch::Device device;
  torch::Tensor input, scores;
};
