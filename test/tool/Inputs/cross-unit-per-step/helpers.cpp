#include "helpers.h"

double grad_norm(torch::nn::Module &model) {
  double total = 0;
  for (const auto &p : model.parameters())
    total += p.grad().norm().item<double>();
  return total;
}

void LossTracker::add(const torch::Tensor &loss) {
  total += loss.item<double>();
}

// Called once per epoch: not a step.
void report_epoch(const std::vector<torch::Tensor> &losses) {
  for (const auto &l : losses)
    std::printf("%f\n", l.item<double>());
}

// An inference loop of its own: hot wherever it is called from.
double evaluate(torch::nn::Linear &model, const torch::Tensor &x) {
  double sum = 0;
  for (int i = 0; i < 10; ++i)
    sum += model->forward(x).sum().item<double>();
  return sum;
}

// Called once per step, but with a CPU copy: its reads wait for nothing.
int64_t count_words(const torch::Tensor &ids) {
  int64_t n = 0;
  for (int64_t i = 0; i < 8; ++i)
    n += ids[i].item<int64_t>() > 0;
  return n;
}
