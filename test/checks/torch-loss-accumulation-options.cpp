// RUN: %check_torch_tidy %s torch-loss-accumulation %t -- %torch_flags
// RUN: %check_torch_tidy --prefix CUSTOM %s torch-loss-accumulation %t.custom \
// RUN:   --tidy-arg=--config-file=%S/Inputs/loss-accumulation-push-only.yaml \
// RUN:   -- %torch_flags
// RUN: not %torch-tidy %S/Inputs/empty.cpp --checks=-*,torch-loss-accumulation \
// RUN:   --config="{CheckOptions: {torch-loss-accumulation.ContainerMethods: 'push_back;push back'}}" -- -std=c++17 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BAD-LIST
// BAD-LIST: error: invalid entry 'push back' in option 'torch-loss-accumulation.ContainerMethods'

#include <torch/torch.h>
#include <vector>

void options(torch::nn::Linear model, const std::vector<torch::Tensor> &xs) {
  std::vector<torch::Tensor> losses;
  for (const auto &x : xs) {
    auto loss = torch::mse_loss(model(x), x);
    losses.emplace_back(loss);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'loss' is stored with its autograd graph in 'losses'
    // CHECK-FIXES: losses.emplace_back(loss.detach());
    // CHECK-FIXES-CUSTOM: losses.emplace_back(loss);
    losses.push_back(loss);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'loss' is stored with its autograd graph in 'losses'
    // CHECK-MESSAGES-CUSTOM: :[[@LINE-2]]:5: warning: 'loss' is stored with its autograd graph in 'losses'
    // CHECK-FIXES: losses.push_back(loss.detach());
    // CHECK-FIXES-CUSTOM: losses.push_back(loss.detach());
  }
}
