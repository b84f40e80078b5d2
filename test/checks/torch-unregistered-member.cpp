// RUN: %check_torch_tidy %s torch-unregistered-member %t -- %torch_flags
// RUN: %check_torch_tidy --via plugin --no-compile %s torch-unregistered-member %t.plugin -- %torch_flags
// The same file as a CUDA unit's host side (clang -x cuda --cuda-host-only):
// the same findings and fixes.
// RUN: %if cuda-variants %{ %check_torch_tidy %s torch-unregistered-member %t.cuda -- %cuda_flags %}

#include <torch/torch.h>

struct BlockImpl : torch::nn::Module {
  BlockImpl() { lin = register_module("lin", torch::nn::Linear(2, 2)); }
  torch::Tensor forward(torch::Tensor x) { return lin(x); }
  torch::nn::Linear lin{nullptr};
};

struct BodyImpl : torch::nn::Module {
  BodyImpl() {
    w = torch::randn({3});
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: tensor member 'w' is never registered; it is missing from parameters() and buffers(), so an optimizer never sees it and module->to(device) does not move it; register it with register_buffer [torch-unregistered-member]
    // CHECK-MESSAGES: :[[@LINE+22]]:17: note: 'w' is declared here
    // CHECK-FIXES: w = register_buffer("w", torch::randn({3}));
    weight = torch::randn({3}, torch::requires_grad());
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: tensor member 'weight' is never registered; {{.*}} register it with register_parameter
    // CHECK-MESSAGES: :[[@LINE+18]]:20: note: 'weight' is declared here
    // CHECK-FIXES: weight = register_parameter("weight", torch::randn({3}, torch::requires_grad()));
    bias = torch::zeros({3}).requires_grad_();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: tensor member 'bias' is never registered; {{.*}} register it with register_parameter
    // CHECK-MESSAGES: :[[@LINE+14]]:28: note: 'bias' is declared here
    // CHECK-FIXES: bias = register_parameter("bias", torch::zeros({3}).requires_grad_());
    fc = torch::nn::Linear(4, 2);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: submodule 'fc' is never registered; its parameters are missing from parameters(), so an optimizer never updates them, and module->to(device) does not move it; register it with register_module
    // CHECK-MESSAGES: :[[@LINE+11]]:21: note: 'fc' is declared here
    // CHECK-FIXES: fc = register_module("fc", torch::nn::Linear(4, 2));
    block = std::make_shared<BlockImpl>();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: submodule 'block' is never registered
    // CHECK-MESSAGES: :[[@LINE+8]]:30: note: 'block' is declared here
    // CHECK-FIXES: block = register_module("block", std::make_shared<BlockImpl>());
  }
  torch::Tensor forward(torch::Tensor x) {
    return block->forward(fc(x * w * weight + bias));
  }
  torch::Tensor w, weight, bias;
  torch::nn::Linear fc{nullptr};
  std::shared_ptr<BlockImpl> block;
};

struct InitListImpl : torch::nn::Module {
  InitListImpl()
      : fc(torch::nn::Linear(4, 2)), head(2, 1), mask(torch::ones({2})),
  // CHECK-MESSAGES: :[[@LINE-1]]:9: warning: submodule 'fc' is never registered
  // CHECK-MESSAGES: :[[@LINE+11]]:21: note: 'fc' is declared here
  // CHECK-MESSAGES: :[[@LINE-3]]:38: warning: submodule 'head' is never registered
  // CHECK-MESSAGES: :[[@LINE+9]]:25: note: 'head' is declared here
  // CHECK-MESSAGES: :[[@LINE-5]]:50: warning: tensor member 'mask' is never registered; {{.*}} register_buffer
  // CHECK-MESSAGES: :[[@LINE+8]]:17: note: 'mask' is declared here
  // CHECK-FIXES: : fc(register_module("fc", torch::nn::Linear(4, 2))), head(register_module("head", torch::nn::Linear(2, 1))), mask(register_buffer("mask", torch::ones({2}))),
        opts{torch::nn::LinearOptions(1, 1)} {}
  // CHECK-MESSAGES: :[[@LINE-1]]:9: warning: submodule 'opts' is never registered
  // CHECK-MESSAGES: :[[@LINE+5]]:21: note: 'opts' is declared here
  // CHECK-FIXES: opts{register_module("opts", torch::nn::Linear{torch::nn::LinearOptions(1, 1)})} {}
  torch::Tensor forward(torch::Tensor x) { return opts(head(fc(x)) * mask); }
  torch::nn::Linear fc, head;
  torch::Tensor mask;
  torch::nn::Linear opts;
};

// Cloneable modules initialise in reset(), which the constructor calls.
struct CloneNetImpl : torch::nn::Cloneable<CloneNetImpl> {
  CloneNetImpl() { reset(); }
  void reset() override {
    fc = register_module("fc", torch::nn::Linear(4, 2));
    proj = torch::nn::Linear(2, 2);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: submodule 'proj' is never registered
    // CHECK-MESSAGES: :[[@LINE+4]]:34: note: 'proj' is declared here
    // CHECK-FIXES: proj = register_module("proj", torch::nn::Linear(2, 2));
  }
  torch::Tensor forward(torch::Tensor x) { return proj(fc(x)); }
  torch::nn::Linear fc{nullptr}, proj{nullptr};
};

// Assigned outside the constructor: reported, not rewritten.
struct LateImpl : torch::nn::Module {
  void init() { scale = torch::ones({1}); }
  // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: tensor member 'scale' is never registered
  // CHECK-MESSAGES: :[[@LINE+2]]:17: note: 'scale' is declared here
  torch::Tensor forward(torch::Tensor x) { return x * scale; }
  torch::Tensor scale;
  torch::Tensor offset = torch::zeros({1});
  // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: tensor member 'offset' is never registered
  // CHECK-MESSAGES: :[[@LINE-2]]:17: note: 'offset' is declared here
};

// A registered member later reassigned without registering the new object.
struct HeadNetImpl : torch::nn::Module {
  HeadNetImpl() {
    fc = register_module("fc", torch::nn::Linear(4, 2));
    scale = register_parameter("scale", torch::ones({1}));
    mean = register_buffer("mean", torch::zeros({2}));
  }
  void setHead(int n) {
    fc = torch::nn::Linear(4, n);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'fc' is assigned a new module that is not registered; parameters() still returns the old module's tensors, so an optimizer never sees the new one and module->to(device) does not move it
    // CHECK-FIXES: fc = replace_module("fc", torch::nn::Linear(4, n));
  }
  torch::Tensor forward(torch::Tensor x) { return fc(x) * scale + mean; }
  torch::nn::Linear fc{nullptr};
  torch::Tensor scale, mean;
};
TORCH_MODULE(HeadNet);

void fineTune(torch::Device device) {
  HeadNet net;
  net->fc = torch::nn::Linear(4, 10);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'net->fc' is assigned a new module that is not registered
  // CHECK-FIXES: net->fc = net->replace_module("fc", torch::nn::Linear(4, 10));
  net->scale = torch::full({1}, 2.0);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'net->scale' is assigned a new tensor that is not registered; parameters() still returns the old one, so an optimizer never sees the new one and module->to(device) does not move it
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: to keep the registered tensor, update it in place: 'net->scale.set_data(...)'
  net->mean = torch::ones({2});
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'net->mean' is assigned a new tensor that is not registered; buffers() still returns the old one, so module->to(device) does not move the new one
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: to keep the registered tensor
  net->to(device);
  torch::optim::SGD opt(net->parameters(), 0.1);
}

// Loading weights through a helper that copies in place and hands back the
// tensor it was given keeps the registered tensor: no finding. A helper
// that hands back a new tensor, or rebinds its parameter, is reported.
torch::Tensor assign(torch::Tensor left, const torch::Tensor &right) {
  {
    torch::NoGradGuard g;
    left.copy_(right);
  }
  return left;
}
torch::Tensor fresh(torch::Tensor left, const torch::Tensor &right) {
  return right.clone().view_as(left);
}
torch::Tensor rebinds(torch::Tensor left, const torch::Tensor &right) {
  left = right.clone();
  return left;
}
void loadWeights(HeadNet &net, const torch::Tensor &w) {
  net->scale = assign(net->scale, w);
  net->mean = net->mean.copy_(w);
  net->scale = fresh(net->scale, w);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'net->scale' is assigned a new tensor that is not registered
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: to keep the registered tensor
  net->scale = rebinds(net->scale, w);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'net->scale' is assigned a new tensor that is not registered
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: to keep the registered tensor
  net->mean = assign(net->scale, w);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'net->mean' is assigned a new tensor that is not registered
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: to keep the registered tensor
  auto assignLocal = [](torch::Tensor left, const torch::Tensor &right) {
    torch::NoGradGuard g;
    left.copy_(right);
    return left;
  };
  net->scale = assignLocal(net->scale, w);
  auto copyOf = [](torch::Tensor left) { return left.clone(); };
  net->scale = copyOf(net->scale);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'net->scale' is assigned a new tensor that is not registered
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: to keep the registered tensor
}

// No rewrite inside a macro expansion.
#define MAKE_LAYER torch::nn::Linear(4, 2)
struct MacroImpl : torch::nn::Module {
  MacroImpl() { fc = MAKE_LAYER; }
  // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: submodule 'fc' is never registered
  // CHECK-MESSAGES: :[[@LINE+2]]:21: note: 'fc' is declared here
  // CHECK-FIXES: MacroImpl() { fc = MAKE_LAYER; }
  torch::nn::Linear fc{nullptr};
};

// Modules that lose their train/eval behaviour say so; modules with nothing
// to register (pooling, activations, Flatten) stay quiet.
struct ModesImpl : torch::nn::Module {
  ModesImpl() {
    drop = torch::nn::Dropout(0.5);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: submodule 'drop' is never registered, so train() and eval() never reach it: it stays in training mode and keeps dropping activations at evaluation; register it with register_module
    // CHECK-FIXES: drop = register_module("drop", torch::nn::Dropout(0.5));
    bn = torch::nn::BatchNorm1d(4);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: submodule 'bn' is never registered, so train() and eval() never reach it: it keeps normalising with batch statistics at evaluation, its parameters are missing from parameters() and module->to(device) does not move it; register it with register_module
    // CHECK-FIXES: bn = register_module("bn", torch::nn::BatchNorm1d(4));
    act = torch::nn::ReLU();
    pool = torch::nn::MaxPool1d(2);
    flat = torch::nn::Flatten();
  }
  torch::Tensor forward(torch::Tensor x) {
    return flat(pool(act(bn(drop(x))).unsqueeze(1)));
  }
  torch::nn::Dropout drop{nullptr};
  torch::nn::BatchNorm1d bn{nullptr};
  torch::nn::ReLU act{nullptr};
  torch::nn::MaxPool1d pool{nullptr};
  torch::nn::Flatten flat{nullptr};
};

// Near miss: a Sequential member whose modules are appended to a registered
// container (d2l's VGG: `network_->extend(*fc_)`) is reached through it.
struct ExtendedImpl : torch::nn::Module {
  ExtendedImpl()
      : fc_(torch::nn::Linear(8, 4), torch::nn::ReLU(),
            torch::nn::Linear(4, 2)) {
    network_->extend(*fc_);
    register_module("network", network_);
  }
  torch::Tensor forward(torch::Tensor x) { return network_->forward(x); }
  torch::nn::Sequential network_;
  torch::nn::Sequential fc_;
};

// A member assigned a local Sequential: registered when the local is
// (`register_module("shortcut", shortcut)`, a ResNet block), not otherwise.
struct ResidualImpl : torch::nn::Module {
  ResidualImpl(int in, int out) {
    torch::nn::Sequential shortcut(torch::nn::Linear(in, out));
    this->shortcut = shortcut; // near miss
    torch::nn::Sequential skip(torch::nn::Linear(in, out));
    this->skip = skip;
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: submodule 'skip' is never registered
    register_module("shortcut", shortcut);
  }
  torch::nn::Sequential shortcut = nullptr;
  torch::nn::Sequential skip = nullptr;
};

// A ModuleList has no parameters of its own, but holds the modules pushed
// into it: unregistered, they are lost with it.
struct HeadsImpl : torch::nn::Module {
  HeadsImpl() : heads(torch::nn::ModuleList()) {
    // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: submodule 'heads' is never registered
    // CHECK-MESSAGES: :[[@LINE+8]]:25: note: 'heads' is declared here
    // CHECK-FIXES: HeadsImpl() : heads(register_module("heads", torch::nn::ModuleList())) {
    for (int i = 0; i < 4; ++i)
      heads->push_back(torch::nn::Linear(8, 2));
  }
  torch::Tensor forward(torch::Tensor x) {
    return heads[0]->as<torch::nn::Linear>()->forward(x);
  }
  torch::nn::ModuleList heads;
};

// A container left to its default constructor and filled in the
// constructor holds what is pushed into it: unregistered, it is lost. No
// fix-it: the registration is a statement of its own. Registered, it is
// fine.
struct StylesImpl : torch::nn::Module {
  StylesImpl() {
    for (int i = 0; i < 3; ++i)
      blocks->push_back(torch::nn::Linear(8, 8));
    // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: submodule 'blocks' is never registered
    // CHECK-MESSAGES: :[[@LINE+9]]:25: note: 'blocks' is declared here
    kept->push_back(torch::nn::Linear(8, 8));
    register_module("kept", kept);
  }
  torch::Tensor forward(torch::Tensor x) {
    for (const auto &b : *blocks)
      x = b->as<torch::nn::Linear>()->forward(x);
    return kept[0]->as<torch::nn::Linear>()->forward(x);
  }
  torch::nn::ModuleList blocks;
  torch::nn::ModuleList kept;
};
