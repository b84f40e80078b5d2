// Both checks match `net->fc = ...` after the optimizer is built; only
// torch-stale-optimizer reports it. Alone, torch-unregistered-member does.
// RUN: %check_torch_tidy %s torch-stale-optimizer,torch-unregistered-member %t -- %torch_flags
// RUN: %check_torch_tidy --via plugin --no-compile %s torch-stale-optimizer,torch-unregistered-member %t.plugin -- %torch_flags
// RUN: %check_torch_tidy --prefix UNREG %s torch-unregistered-member %t.unreg -- %torch_flags

#include <torch/torch.h>

struct NetImpl : torch::nn::Module {
  NetImpl() { fc = register_module("fc", torch::nn::Linear(4, 1)); }
  torch::Tensor forward(torch::Tensor x) { return fc(x); }
  torch::nn::Linear fc{nullptr};
};
TORCH_MODULE(Net);

void train(torch::Tensor x) {
  Net net;
  net->fc = torch::nn::Linear(4, 2);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'net->fc' is assigned a new module that is not registered; {{.*}} [torch-unregistered-member]
  // CHECK-MESSAGES-UNREG: :[[@LINE-2]]:3: warning: 'net->fc' is assigned a new module that is not registered; {{.*}} [torch-unregistered-member]
  // CHECK-FIXES: net->fc = net->replace_module("fc", torch::nn::Linear(4, 2));
  // CHECK-FIXES-UNREG: net->fc = net->replace_module("fc", torch::nn::Linear(4, 2));
  torch::optim::SGD opt(net->parameters(), 0.1);
  net->fc = torch::nn::Linear(4, 1);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'net->fc' is replaced after optimizer 'opt' was built from the parameters of 'net'; {{.*}} [torch-stale-optimizer]
  // CHECK-MESSAGES: :[[@LINE-3]]:21: note: optimizer 'opt' built from 'net->parameters()' here
  // CHECK-MESSAGES: :[[@LINE+6]]:3: note: 'opt.step()' runs here
  // CHECK-MESSAGES-UNREG: :[[@LINE-4]]:3: warning: 'net->fc' is assigned a new module that is not registered; {{.*}} [torch-unregistered-member]
  // CHECK-FIXES: {{^  }}net->fc = torch::nn::Linear(4, 1);
  // CHECK-FIXES-UNREG: net->fc = net->replace_module("fc", torch::nn::Linear(4, 1));
  opt.zero_grad();
  net(x).sum().backward();
  opt.step();
}
