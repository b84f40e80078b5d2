// Macros and templates are reported once, at the written store, with a note
// instead of a fix-it.
// RUN: %check_torch_tidy %s torch-loss-accumulation %t -- %torch_flags
// RUN: %check_torch_tidy --via plugin --no-compile %s torch-loss-accumulation %t.plugin -- %torch_flags

#include <torch/torch.h>
#include <vector>

#define RECORD(list, value) list.push_back(value)

void macro(torch::nn::Linear model, const std::vector<torch::Tensor> &xs) {
  std::vector<torch::Tensor> losses;
  for (const auto &x : xs) {
    auto loss = torch::mse_loss(model(x), x);
    RECORD(losses, loss);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'loss' is stored with its autograd graph in 'losses', which outlives this loop
    // CHECK-MESSAGES: :[[@LINE-4]]:3: note: the loop that repeats the store
    // CHECK-MESSAGES: :[[@LINE-3]]:20: note: if only the value is needed, store 'loss.item<float>()' in a container of float
    // CHECK-MESSAGES: :[[@LINE-4]]:5: note: no automatic fix inside a macro expansion
  }
}

template <typename Model>
std::vector<torch::Tensor> collect(Model &model, const std::vector<torch::Tensor> &xs) {
  std::vector<torch::Tensor> outputs;
  for (const auto &x : xs) {
    outputs.push_back(model->forward(x));
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'model->forward(x)' is stored with its autograd graph in 'outputs'
    // CHECK-MESSAGES: :[[@LINE-3]]:3: note: the loop that repeats the store
    // CHECK-MESSAGES: :[[@LINE-3]]:5: note: no automatic fix inside a template
  }
  return outputs;
}

void instantiate(torch::nn::Linear linear, torch::nn::Conv1d conv,
                 const std::vector<torch::Tensor> &xs) {
  collect(linear, xs);
  collect(conv, xs);
}
