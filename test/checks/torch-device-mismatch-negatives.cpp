// RUN: %check_torch_tidy %s torch-device-mismatch %t -- %torch_flags

// Mixes ATen allows, and tensors whose device or rank the analysis does not
// know: no warning. Each group ends with a near miss that is reported.
#include <torch/torch.h>
#include <vector>

// 0-dim CPU tensors mix with a tensor on any device (TensorIterator treats
// them as CPU scalars).
void zero_dim(torch::Tensor x, torch::Device d) {
  auto g = x.to(d);
  auto a = g * torch::tensor(3.0);
  auto b = g + torch::scalar_tensor(2.0);
  auto c = g + torch::zeros({});
  auto e = g - torch::rand({4}).sum();
  auto f = g * torch::rand(1)[0];
  auto h = g / torch::ones({4}).mean();
  auto i = g * torch::randn({2, 3}).norm();
  auto s = torch::tensor(2.0);
  g += s;
  auto w = torch::where(g > 0, g, torch::tensor(0.0));
  auto m = g * torch::tensor({3.0}); // near miss: one dimension
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: 'torch::tensor({3.0})' is on the CPU (created without a device) but 'g' is on 'd'
  // CHECK-FIXES: auto m = g * torch::tensor({3.0}, d); // near miss
}

// Scalars are no tensors.
void scalars(torch::Tensor x, torch::Device d) {
  auto g = x.to(d);
  auto a = g * 2.0 + 1;
  auto b = torch::add(g, 1.0);
  auto c = g.clamp(0.0, 1.0);
  torch::Scalar s = 3;
  auto e = g.mul(s);
  auto m = g.mul(torch::ones({4})); // near miss
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: 'torch::ones({4})' is on the CPU
  // CHECK-FIXES: auto m = g.mul(torch::ones({4}, d)); // near miss
}

// Copies and ops that only read the other tensor's shape or dtype.
void copies(torch::Tensor x, torch::Device d) {
  auto g = x.to(d);
  auto host = torch::empty({4});
  host.copy_(g);
  g.copy_(host);
  auto a = host.to(g); // now on g's device
  auto b = a + g;
  auto c = host.expand_as(g);
  auto e = host.view_as(g);
  auto f = host.reshape_as(g);
  auto k = g.new_zeros({4});
  auto l = k + g;
  auto n = torch::empty_like(g) + g;
  auto m = host + g; // near miss (no fix-it: 'host' has other uses)
  // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: 'host' is on the CPU (created without a device) but 'g' is on 'd'
  // CHECK-FIXES: auto host = torch::empty({4});
}

// A tensor on a device indexed with CPU index tensors: ATen moves the
// indices.
void indexing(torch::Tensor x, torch::Device d) {
  auto g = x.to(d);
  auto idx = torch::arange(2);
  auto mask = torch::ones({4}, torch::kBool);
  auto a = g.index({idx});
  auto b = g.index({mask});
  g.index_put_({idx}, 0.0);
  auto c = g.index_select(0, idx);
  auto e = g.masked_fill(mask, 0.0);
  auto m = g + idx; // near miss: arithmetic, not indexing
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: 'idx' is on the CPU
}

void move_to(torch::Tensor &t, torch::Device d);
void inspect(const torch::Tensor &t);

// Devices and ranks the analysis does not know.
void unknown(torch::Tensor x, torch::Tensor y, torch::Device d,
             std::vector<int64_t> sizes, bool cond) {
  auto g = x.to(d);
  auto a = g + y;                  // y: a parameter
  auto b = g + torch::zeros(sizes); // could have no dimension
  auto b2 = g + torch::zeros(y.sizes());
  auto b3 = g + y.to(torch::kCPU);  // y's rank is unknown
  auto t = torch::ones({4});
  if (cond)
    t = t.to(d);
  auto c = g + t; // the CPU on one path, 'd' on the other
  auto u = torch::ones({4});
  move_to(u, d); // may have moved it
  auto e = g + u;
  auto v = torch::ones({4});
  auto moveV = [&] { v = v.to(d); };
  moveV();
  auto f = g + v; // a lambda assigns it
  auto loop = torch::ones({4});
  for (int i = 0; i < 3; ++i) {
    auto s = g + loop; // the CPU at first, 'd' after the first iteration
    loop = loop.to(d);
  }
  auto w = torch::ones({4});
  inspect(w);
  auto m = g + w; // near miss: a const reference cannot move it
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: 'w' is on the CPU
}

// A torch::Device variable reassigned: tensors moved to its old value are
// no longer known to be "on" it.
void reassigned(torch::Tensor x, torch::Device d) {
  auto g = x.to(d);
  d = torch::Device(torch::kCPU);
  auto a = g + torch::ones({4});
  auto h = x.to(d);
  auto m = h + torch::ones({4}); // near miss: both on the CPU
  auto cuda = x.cuda();
  auto n = cuda + torch::ones({4}); // near miss: reported
  // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: 'torch::ones({4})' is on the CPU
  // CHECK-FIXES: auto n = cuda + torch::ones({4}, torch::kCUDA); // near miss
}

// Two devices, neither of them the CPU: not this check's business.
void two_gpus(torch::Tensor x) {
  auto a = x.to(torch::Device(torch::kCUDA, 0));
  auto b = x.to(torch::Device(torch::kCUDA, 1));
  auto c = a + b;
}

struct NetImpl : torch::nn::Module {
  NetImpl() : fc(register_module("fc", torch::nn::Linear(4, 2))) {}
  torch::Tensor forward(torch::Tensor x) {
    auto zeros = torch::zeros({4}, x.options());
    auto ones = x.new_ones({4});
    auto like = torch::ones_like(x);
    auto h = x + zeros + ones + like + unregistered_;
    auto y = fc(h);
    auto scale = torch::ones({2}).to(x.device());
    return y * scale;
  }
  torch::nn::Linear fc;
  torch::Tensor unregistered_; // not registered: left where it was created
};
TORCH_MODULE(Net);

struct HelperImpl : torch::nn::Module {
  // Not forward(): the tensor arguments' device is not known.
  torch::Tensor helper(torch::Tensor x) { return x + torch::ones({4}); }
  torch::Tensor forward(torch::Tensor x) {
    return x + torch::ones({4}); // near miss
    // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: 'torch::ones({4})' is on the CPU (created without a device) but 'x' is on the module's device
    // CHECK-FIXES: return x + torch::ones({4}, x.device()); // near miss
  }
};

void train(Net &net);

void modules(Net &param_net, torch::Device d) {
  auto a = param_net->forward(torch::ones({8, 4})); // device unknown
  torch::nn::ReLU relu;
  relu->to(d);
  auto b = relu(torch::ones({4})); // no parameters
  Net passed;
  passed->to(d);
  train(passed); // may move it
  auto c = passed->forward(torch::ones({8, 4}));
  torch::nn::Linear cpu_fc(4, 2);
  auto e = cpu_fc(torch::ones({8, 4})); // the CPU and the CPU
  torch::nn::MSELoss loss; // a loss module compares its inputs
  auto f = loss(torch::ones({4}), torch::ones({4}));
  Net net;
  net->to(d);
  auto m = net->forward(torch::ones({8, 4})); // near miss
  // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: 'torch::ones({8, 4})' is on the CPU (created without a device) but the module 'net' is on 'd'
}

// A checkpoint restores the model's tensors on the device they were saved
// from (round 33): a never-moved model may be on the GPU after torch::load.
void checkpoint(const std::string &path) {
  Net loaded;
  torch::load(loaded, path);
  auto a = loaded->forward(torch::ones({8, 4}).cuda());
  torch::Tensor weights;
  torch::load(weights, path);
  auto b = weights + torch::ones({4}).cuda();
  Net fresh;
  auto c = fresh->forward(torch::ones({8, 4}).cuda()); // near miss
  // CHECK-MESSAGES: :[[@LINE-1]]:19: warning: 'torch::ones({8, 4}).cuda()' is on CUDA (moved here) but the module 'fresh' is on the CPU
}

// Template code is skipped, in its definition and its instances.
template <typename T> T twice(T x, torch::Device d) {
  return x.to(d) + torch::ones({4});
}
template torch::Tensor twice(torch::Tensor, torch::Device);

void not_a_template(torch::Tensor x, torch::Device d) {
  auto m = x.to(d) + torch::ones({4}); // near miss
  // CHECK-MESSAGES: :[[@LINE-1]]:20: warning: 'torch::ones({4})' is on the CPU
  // CHECK-FIXES: auto m = x.to(d) + torch::ones({4}, d); // near miss
}
