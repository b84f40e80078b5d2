// An agent whose steps are defined in their own file, as in a DQN.
#include <torch/torch.h>

struct Agent {
  explicit Agent(torch::Device device);
  int act(const torch::Tensor &obs);
  void learn(const torch::Tensor &batch);
  void log_episode(const torch::Tensor &reward);
  void fit(int steps);
  void report(const torch::Tensor &score);
  double peek(const torch::Tensor &x);
  void render(const torch::Tensor &obs, bool show);

  torch::nn::Linear net{nullptr};
  torch::optim::SGD opt;
  torch::Device device;
};

// A function object called once per step: a detector's decoding.
struct Decoder {
  torch::Device device;
  std::vector<torch::Tensor>
  operator()(const std::vector<torch::Tensor> &scales) const;
};
