// Helpers a training program calls once per step, defined in their own file.
#include <torch/torch.h>

double grad_norm(torch::nn::Module &model);
struct LossTracker {
  double total = 0;
  void add(const torch::Tensor &loss);
};
void report_epoch(const std::vector<torch::Tensor> &losses);
double evaluate(torch::nn::Linear &model, const torch::Tensor &x);
int64_t count_words(const torch::Tensor &ids);
