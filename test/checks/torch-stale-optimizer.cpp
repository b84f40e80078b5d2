// RUN: %check_torch_tidy %s torch-stale-optimizer %t -- %torch_flags
// RUN: %check_torch_tidy --via plugin --no-compile %s torch-stale-optimizer %t.plugin -- %torch_flags
// The same file as a CUDA unit's host side (clang -x cuda --cuda-host-only):
// the same findings and fixes.
// RUN: %if cuda-variants %{ %check_torch_tidy %s torch-stale-optimizer %t.cuda -- %cuda_flags %}

#include <torch/torch.h>

struct NetImpl : torch::nn::Cloneable<NetImpl> {
  NetImpl() { reset(); }
  void reset() override {
    fc = register_module("fc", torch::nn::Linear(4, 1));
    scale = register_parameter("scale", torch::ones({1}));
  }
  torch::Tensor forward(torch::Tensor x) { return fc(x) * scale; }
  torch::nn::Linear fc{nullptr};
  torch::Tensor scale;
};
TORCH_MODULE(Net);

torch::Tensor lossOf(torch::Tensor y) { return y.pow(2).mean(); }

void holderReassigned(torch::Tensor x) {
  Net net;
  torch::optim::SGD opt(net->parameters(), 0.1);
  net = Net();
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'net' is replaced after optimizer 'opt' was built from its parameters; 'opt.step()' keeps updating the old tensors, so the new model never trains [torch-stale-optimizer]
  // CHECK-MESSAGES: :[[@LINE-3]]:21: note: optimizer 'opt' built from 'net->parameters()' here
  // CHECK-MESSAGES: :[[@LINE+3]]:3: note: 'opt.step()' runs here
  opt.zero_grad();
  lossOf(net(x)).backward();
  opt.step();
}

void sharedPtrReassigned(torch::Tensor x) {
  auto net = std::make_shared<NetImpl>();
  auto opt = std::make_unique<torch::optim::Adam>(net->parameters());
  net = std::make_shared<NetImpl>();
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'net' is replaced after optimizer 'opt' was built from its parameters; 'opt->step()' keeps updating the old tensors
  // CHECK-MESSAGES: :[[@LINE-3]]:14: note: optimizer 'opt' built from 'net->parameters()' here
  // CHECK-MESSAGES: :[[@LINE+2]]:3: note: 'opt->step()' runs here
  lossOf(net->forward(x)).backward();
  opt->step();
}

void replaceModule(torch::Tensor x) {
  Net net;
  torch::optim::AdamW opt(net->parameters(), torch::optim::AdamWOptions(1e-3));
  net->fc = net->replace_module("fc", torch::nn::Linear(4, 1));
  // CHECK-MESSAGES: :[[@LINE-1]]:18: warning: a submodule of 'net' is replaced after optimizer 'opt' was built from its parameters; 'opt.step()' keeps updating the old submodule's tensors, so the new one never trains
  // CHECK-MESSAGES: :[[@LINE-3]]:23: note: optimizer 'opt' built from 'net->parameters()' here
  // CHECK-MESSAGES: :[[@LINE+2]]:3: note: 'opt.step()' runs here
  lossOf(net(x)).backward();
  opt.step();
}

void memberReassigned(torch::Tensor x) {
  Net net;
  torch::optim::RMSprop opt(net->parameters(), torch::optim::RMSpropOptions(0.01));
  net->fc = torch::nn::Linear(4, 1);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'net->fc' is replaced after optimizer 'opt' was built from the parameters of 'net'; 'opt.step()' keeps updating the old tensors, and forward() uses a layer that is neither registered nor optimized
  // CHECK-MESSAGES: :[[@LINE-3]]:25: note: optimizer 'opt' built from 'net->parameters()' here
  // CHECK-MESSAGES: :[[@LINE+2]]:3: note: 'opt.step()' runs here
  lossOf(net(x)).backward();
  opt.step();
  net->scale = torch::full({1}, 2.0);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'net->scale' is replaced after optimizer 'opt' was built from the parameters of 'net'; 'opt.step()' keeps updating the old tensors, and forward() uses a tensor that is neither registered nor optimized
  // CHECK-MESSAGES: :[[@LINE-9]]:25: note: optimizer 'opt' built from
  // CHECK-MESSAGES: :[[@LINE+2]]:3: note: 'opt.step()' runs here
  lossOf(net(x)).backward();
  opt.step();
}

void cloneTrained(torch::Tensor x) {
  Net net;
  torch::optim::Adagrad opt(net->parameters(), torch::optim::AdagradOptions(0.1));
  auto copy = std::dynamic_pointer_cast<NetImpl>(net->clone());
  // CHECK-MESSAGES: :[[@LINE-1]]:55: warning: 'copy' is a clone of 'net' trained in its place, but optimizer 'opt' was built from the parameters of 'net'; 'opt.step()' updates the original's tensors, never the clone's, so the clone never trains
  // CHECK-MESSAGES: :[[@LINE+4]]:10: note: 'copy' is run forward here
  // CHECK-MESSAGES: :[[@LINE-4]]:25: note: optimizer 'opt' built from 'net->parameters()' here
  // CHECK-MESSAGES: :[[@LINE+3]]:3: note: 'opt.step()' runs here
  opt.zero_grad();
  lossOf(copy->forward(x)).backward();
  opt.step();
}

void cloneWithoutCast(torch::Tensor x) {
  NetImpl net;
  torch::optim::SGD opt(net.parameters(), 0.1);
  auto copy = net.clone();
  // CHECK-MESSAGES: :[[@LINE-1]]:19: warning: 'copy' is a clone of 'net' trained in its place
  // CHECK-MESSAGES: :[[@LINE+3]]:10: note: 'copy' is run forward here
  // CHECK-MESSAGES: :[[@LINE-4]]:21: note: optimizer 'opt' built from 'net.parameters()' here
  // CHECK-MESSAGES: :[[@LINE+2]]:3: note: 'opt.step()' runs here
  lossOf(copy->as<NetImpl>()->forward(x)).backward();
  opt.step();
}

void paramGroups(torch::Tensor x) {
  Net net;
  std::vector<torch::optim::OptimizerParamGroup> groups{
      torch::optim::OptimizerParamGroup(net->fc->parameters())};
  groups.push_back(torch::optim::OptimizerParamGroup({net->scale}));
  torch::optim::SGD opt(groups, torch::optim::SGDOptions(0.1));
  net = Net();
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'net' is replaced after optimizer 'opt' was built from its parameters
  // CHECK-MESSAGES: :[[@LINE-3]]:21: note: optimizer 'opt' built from 'net->fc->parameters()' here
  // CHECK-MESSAGES: :[[@LINE+2]]:3: note: 'opt.step()' runs here
  lossOf(net(x)).backward();
  opt.step();
}

void namedParameters(torch::Tensor x) {
  auto net = std::make_shared<NetImpl>();
  auto params = net->named_parameters().values();
  auto opt = std::make_shared<torch::optim::SGD>(params, 0.1);
  net->replace_module("fc", torch::nn::Linear(4, 1));
  // CHECK-MESSAGES: :[[@LINE-1]]:8: warning: a submodule of 'net' is replaced after optimizer 'opt' was built from its parameters
  // CHECK-MESSAGES: :[[@LINE-3]]:14: note: optimizer 'opt' built from 'net->named_parameters()' here
  // CHECK-MESSAGES: :[[@LINE+2]]:3: note: 'opt->step()' runs here
  lossOf(net->forward(x)).backward();
  opt->step();
}

void lbfgs(torch::Tensor x) {
  Net net;
  torch::optim::LBFGS opt(net->parameters(), torch::optim::LBFGSOptions(1));
  net = Net();
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'net' is replaced after optimizer 'opt' was built from its parameters; 'opt.step()'
  // CHECK-MESSAGES: :[[@LINE-3]]:23: note: optimizer 'opt' built
  // CHECK-MESSAGES: :[[@LINE+1]]:3: note: 'opt.step()' runs here
  opt.step([&] {
    opt.zero_grad();
    auto loss = lossOf(net(x));
    loss.backward();
    return loss;
  });
}

void replacedLateInLoop(torch::Tensor x) {
  Net net;
  torch::optim::SGD opt(net->parameters(), 0.1);
  for (int epoch = 0; epoch < 10; ++epoch) {
    opt.zero_grad();
    lossOf(net(x)).backward();
    opt.step();
    if (epoch == 5)
      net->fc = torch::nn::Linear(4, 1);
    // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: 'net->fc' is replaced after optimizer 'opt' was built
    // CHECK-MESSAGES: :[[@LINE-8]]:21: note: optimizer 'opt' built from 'net->parameters()' here
    // CHECK-MESSAGES: :[[@LINE-5]]:5: note: 'opt.step()' runs here
  }
}

struct Trainer {
  Net model;
  std::unique_ptr<torch::optim::Optimizer> optimizer;
  void run(torch::Tensor x) {
    optimizer = std::make_unique<torch::optim::SGD>(model->parameters(), 0.1);
    model = Net();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'model' is replaced after optimizer 'optimizer' was built from its parameters; 'optimizer->step()'
    // CHECK-MESSAGES: :[[@LINE-3]]:17: note: optimizer 'optimizer' built from 'model->parameters()' here
    // CHECK-MESSAGES: :[[@LINE+2]]:5: note: 'optimizer->step()' runs here
    lossOf(model(x)).backward();
    optimizer->step();
  }
};

// The optimizer used through a function: given by non-const reference or
// pointer, the function may step it. By const reference it can not.
void trainStep(Net &net, torch::optim::SGD &opt, torch::Tensor x) {
  opt.zero_grad();
  lossOf(net(x)).backward();
  opt.step();
}
void report(const torch::optim::SGD &opt);

void throughAFunction(torch::Tensor x) {
  Net net;
  torch::optim::SGD opt(net->parameters(), 0.1);
  net = Net();
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'net' is replaced after optimizer 'opt' was built from its parameters; 'trainStep(...)' keeps updating the old tensors, so the new model never trains
  // CHECK-MESSAGES: :[[@LINE+2]]:5: note: 'trainStep(...)' runs here
  for (int i = 0; i < 3; ++i)
    trainStep(net, opt, x);
}

void onlyInspected(torch::Tensor x) {
  Net net;
  torch::optim::SGD opt(net->parameters(), 0.1);
  net = Net();
  report(opt);
  lossOf(net(x)).backward();
}
