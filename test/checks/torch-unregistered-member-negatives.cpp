// RUN: %check_torch_tidy %s torch-unregistered-member %t -- %torch_flags
// RUN: %check_torch_tidy --via plugin --no-compile %s torch-unregistered-member %t.plugin -- %torch_flags

#include <torch/torch.h>

// Every registration form.
struct RegisteredImpl : torch::nn::Module {
  RegisteredImpl()
      : fc(register_module("fc", torch::nn::Linear(4, 2))),
        w(register_parameter("w", torch::randn({2}))) {
    head = torch::nn::Linear(2, 1);
    register_module("head", head);
    register_buffer("mask", mask = torch::ones({1}));
    block = register_module("block", std::make_shared<torch::nn::Module>());
    this->bias = this->register_parameter("bias", torch::zeros({1}));
  }
  torch::Tensor forward(torch::Tensor x) {
    // Values computed fresh in forward() are deliberately plain.
    cache = x.relu();
    return head(fc(cache) * w + bias) * mask;
  }
  torch::nn::Linear fc, head{nullptr};
  torch::Tensor w, mask, bias, cache;
  std::shared_ptr<torch::nn::Module> block;
  torch::Tensor inClass = register_buffer("inClass", torch::zeros({1}));
  // Never assigned: left alone.
  torch::nn::Linear unused{nullptr};
  torch::Tensor empty;
};
TORCH_MODULE(Registered);

struct CloneImpl : torch::nn::Cloneable<CloneImpl> {
  explicit CloneImpl(int n) : n(n) { reset(); }
  void reset() override {
    fc = register_module("fc", torch::nn::Linear(n, n));
    scale = register_buffer("scale", torch::ones({n}));
  }
  torch::Tensor forward(torch::Tensor x) { return fc(x) * scale; }
  int n;
  torch::nn::Linear fc{nullptr};
  torch::Tensor scale;
};

// Constructors defined in another file may register anything.
struct ElsewhereImpl : torch::nn::Module {
  ElsewhereImpl();
  void set(torch::Tensor t) { w = t; }
  torch::Tensor w;
};

// Not a module: tensors there are plain values.
struct Batch {
  Batch() { data = torch::zeros({2}); }
  torch::Tensor data;
  std::shared_ptr<torch::nn::Module> model = std::make_shared<torch::nn::Module>();
};

// Members of other kinds are not checked.
struct OtherMembersImpl : torch::nn::Module {
  explicit OtherMembersImpl(torch::Tensor &ext) : ext(ext) {
    list = {torch::ones({1})};
    factor = 2.0;
  }
  torch::Tensor &ext;
  std::vector<torch::Tensor> list;
  double factor;
};

template <typename T> struct TemplateImpl : torch::nn::Module {
  TemplateImpl() { w = torch::ones({1}); }
  torch::Tensor w;
};
TemplateImpl<float> instance;

void replaced(Registered net, torch::Tensor x) {
  // Registered again through replace_module, or reset to null.
  net->fc = net->replace_module("fc", torch::nn::Linear(4, 2));
  net->head = nullptr;
  // Built-in modules register their own members (in LibTorch's sources).
  net->fc->weight = torch::randn({2, 4});
  // In-place updates keep the registered tensor.
  net->w.set_data(x);
  torch::NoGradGuard guard;
  net->mask.copy_(torch::zeros({1}));
}

// A setter that assigns the member and registers the same value under a
// name kept in a constant (a transfer-learning head).
struct BackboneImpl : torch::nn::Module {
  static constexpr char kHead[] = "classifier";
  BackboneImpl() { register_module(kHead, classifier); }
  void replaceClassifier(torch::nn::Sequential &head) {
    classifier = head;
    replace_module(kHead, head);
  }
  torch::nn::Sequential classifier{torch::nn::Linear(4, 2)};
};

// A module subclass used as a plain container of tensors (round 34's replay
// buffer, created on its device): it registers nothing, holds no submodule
// and has no forward(): nothing treats it as a model.
struct ReplayBuffer : torch::nn::Module {
  ReplayBuffer(int64_t n, torch::Device d)
      : observations(torch::zeros({n, 8}, d)), rewards(torch::zeros({n}, d)) {}
  void add(int64_t i, const torch::Tensor &obs, float r) {
    observations[i] = obs;
    rewards[i] = r;
  }
  torch::Tensor observations, rewards;
};

// Near miss: the same members in a class that computes with them.
struct ScaledBuffer : torch::nn::Module {
  ScaledBuffer(int64_t n, torch::Device d)
      : scale(torch::ones({n}, d)) {}
  // CHECK-MESSAGES: :[[@LINE-1]]:9: warning: tensor member 'scale' is never registered
  // CHECK-MESSAGES: :[[@LINE+3]]:17: note: 'scale' is declared here
  // CHECK-FIXES: : scale(register_buffer("scale", torch::ones({n}, d))) {}
  torch::Tensor forward(const torch::Tensor &x) { return x * scale; }
  torch::Tensor scale;
};
