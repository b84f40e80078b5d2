// RUN: %check_torch_tidy %s torch-stale-optimizer %t -- %torch_flags
// RUN: %check_torch_tidy --via plugin --no-compile %s torch-stale-optimizer %t.plugin -- %torch_flags

#include <torch/torch.h>

struct NetImpl : torch::nn::Cloneable<NetImpl> {
  NetImpl() { reset(); }
  void reset() override {
    fc = register_module("fc", torch::nn::Linear(4, 1));
    mask = register_buffer("mask", torch::ones({1}));
  }
  torch::Tensor forward(torch::Tensor x) { return fc(x) * mask; }
  torch::nn::Linear fc{nullptr};
  torch::Tensor mask;
  torch::Tensor cache;
};
TORCH_MODULE(Net);

torch::Tensor lossOf(torch::Tensor y) { return y.pow(2).mean(); }

// Module::to keeps parameter identity (set_data).
void moveAfterOptimizer(torch::Tensor x, torch::Device device) {
  Net net;
  torch::optim::SGD opt(net->parameters(), 0.1);
  net->to(device);
  lossOf(net(x.to(device))).backward();
  opt.step();
}

// torch::load copies into the existing tensors.
void loadAfterOptimizer(torch::Tensor x) {
  Net net;
  torch::optim::SGD opt(net->parameters(), 0.1);
  torch::load(net, "net.pt");
  lossOf(net(x)).backward();
  opt.step();
}

void replacedBeforeOptimizer(torch::Tensor x) {
  Net net;
  net = Net();
  net->fc = net->replace_module("fc", torch::nn::Linear(4, 1));
  torch::optim::SGD opt(net->parameters(), 0.1);
  lossOf(net(x)).backward();
  opt.step();
}

void optimizerRebuilt(torch::Tensor x) {
  auto net = std::make_shared<NetImpl>();
  auto opt = std::make_unique<torch::optim::SGD>(net->parameters(), 0.1);
  std::unique_ptr<torch::optim::Adam> adam(
      new torch::optim::Adam(net->parameters()));
  net = std::make_shared<NetImpl>();
  opt = std::make_unique<torch::optim::SGD>(net->parameters(), 0.1);
  adam.reset(new torch::optim::Adam(net->parameters()));
  lossOf(net->forward(x)).backward();
  opt->step();
  adam->step();
}

void newOptimizerForNewModel(torch::Tensor x) {
  Net net;
  torch::optim::SGD opt(net->parameters(), 0.1);
  opt.step();
  net = Net();
  torch::optim::SGD opt2(net->parameters(), 0.1);
  lossOf(net(x)).backward();
  opt2.step();
}

void noStepAfterReplacement(torch::Tensor x) {
  Net net;
  torch::optim::SGD opt(net->parameters(), 0.1);
  lossOf(net(x)).backward();
  opt.step();
  net = Net();
  net(x);
}

void cloneForEvaluation(torch::Tensor x) {
  Net net;
  torch::optim::SGD opt(net->parameters(), 0.1);
  for (int epoch = 0; epoch < 3; ++epoch) {
    opt.zero_grad();
    lossOf(net(x)).backward();
    opt.step();
  }
  auto frozen = std::dynamic_pointer_cast<NetImpl>(net->clone());
  torch::NoGradGuard no_grad;
  frozen->forward(x);
}

void bestSnapshotInLoop(torch::Tensor x) {
  Net net;
  torch::optim::SGD opt(net->parameters(), 0.1);
  std::shared_ptr<NetImpl> best;
  for (int epoch = 0; epoch < 3; ++epoch) {
    opt.zero_grad();
    lossOf(net(x)).backward();
    opt.step();
    best = std::dynamic_pointer_cast<NetImpl>(net->clone());
    best->forward(x);
  }
}

void otherModelReplaced(torch::Tensor x) {
  Net net, other;
  torch::optim::SGD opt(net->parameters(), 0.1);
  other = Net();
  lossOf(net(x)).backward();
  opt.step();
}

void bufferOrPlainMemberReassigned(torch::Tensor x) {
  Net net;
  torch::optim::SGD opt(net->parameters(), 0.1);
  net->mask = torch::zeros({1});
  net->cache = x;
  lossOf(net(x)).backward();
  opt.step();
}

void optimizerOnSubmoduleOnly(torch::Tensor x, torch::nn::Linear head) {
  Net net;
  torch::optim::SGD opt(net->fc->parameters(), 0.1);
  lossOf(net(x)).backward();
  opt.step();
}

template <typename Model> void generic(torch::Tensor x) {
  Model net;
  torch::optim::SGD opt(net->parameters(), 0.1);
  net = Model();
  lossOf(net(x)).backward();
  opt.step();
}
