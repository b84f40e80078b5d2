// An inference client whose frame loop is in main.cpp: getFeed() reads a
// frame and runs the model through runInference(), both in client.cpp.
#include <torch/script.h>
#include <torch/torch.h>

struct Client {
  explicit Client(torch::Device device);
  void getFeed(std::vector<float> &frame, bool debug);
  void runInference(const std::vector<float> &frame);
  void dump(const torch::Tensor &x);
  void calibrate();
  void read(std::vector<float> &frame);
  void snapshot(int frame);

  torch::jit::script::Module model;
  torch::Device device;
  torch::Tensor result;
};
