// Not self-contained: NetImpl comes from model.h, which the program includes
// first. Read alone, as its own unit, the model's forward is an error.
#include <torch/torch.h>

struct Evaluator {
  std::shared_ptr<NetImpl> net;
  torch::Device device;

  double error(const torch::Tensor &pred, const torch::Tensor &gt) {
    auto valid = pred.masked_select(gt > 0);
    return valid.abs().mean().item<double>();
  }

  double validate(int samples) {
    torch::NoGradGuard no_grad;
    double total = 0;
    for (int i = 0; i < samples; ++i) {
      auto x = torch::rand({8, 4}).to(device);
      auto pred = net->forward(x);
      total += error(pred, torch::rand({8, 1}, device));
    }
    return total;
  }

  // Given CPU copies, error() waits for nothing; read alone, this header
  // cannot type the first copy and would say it does.
  double compare(torch::nn::Linear &fc, int samples) {
    double total = 0;
    for (int i = 0; i < samples; ++i) {
      auto y = fc->forward(torch::rand({8, 4}).to(device));
      auto pred = net->forward(y);
      total += error(pred.cpu(), y.cpu());
    }
    return total;
  }
};
