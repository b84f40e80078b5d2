// RUN: %check_torch_tidy %s torch-device-mismatch %t -- %torch_flags
// RUN: %check_torch_tidy --via plugin --no-compile %s torch-device-mismatch %t.plugin -- %torch_flags
// The same file as a CUDA unit's host side (clang -x cuda --cuda-host-only):
// the same findings and fixes.
// RUN: %if cuda-variants %{ %check_torch_tidy %s torch-device-mismatch %t.cuda -- %cuda_flags %}

// Each source of a device, each op kind: a CPU tensor meets a tensor on a
// device. Fix-its give a factory call the other operand's device when its
// tensor is used only in the op reported.
#include <torch/torch.h>

// --- Device values -------------------------------------------------------

void device_param(torch::Tensor x, torch::Device device) {
  auto a = x.to(device);
  auto b = torch::randn({2, 3});
  auto c = a + b;
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: 'b' is on the CPU (created without a device) but 'a' is on 'device' (moved here); on a GPU machine this op throws 'Expected all tensors to be on the same device'; move it with 'b.to(a.device())' or create it with 'a.options()' [torch-device-mismatch]
  // CHECK-MESSAGES: :[[@LINE-3]]:12: note: 'b' is created here without a device, so it is on the CPU
  // CHECK-MESSAGES: :[[@LINE-5]]:14: note: 'a' is moved to 'device' here
  // CHECK-FIXES: auto b = torch::randn({2, 3}, device);
}

void device_cuda_constant(torch::Tensor x) {
  torch::Device gpu(torch::kCUDA);
  auto a = x.to(gpu);
  auto b = torch::zeros({4});
  auto c = a * b;
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: 'b' is on the CPU (created without a device) but 'a' is on CUDA (moved here);
  // CHECK-FIXES: auto b = torch::zeros({4}, gpu);
}

void device_string(torch::Tensor x) {
  auto a = x.to(torch::Device("cuda:1"));
  auto b = torch::ones({4});
  auto c = a - b;
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: 'b' is on the CPU (created without a device) but 'a' is on CUDA device 1 (moved here);
  // CHECK-FIXES: auto b = torch::ones({4}, torch::Device(torch::kCUDA, 1));
}

void device_if_available(torch::Tensor x) {
  torch::Device device(torch::cuda::is_available() ? torch::kCUDA
                                                   : torch::kCPU);
  auto a = x.to(device);
  auto b = torch::empty({4});
  auto c = a / b;
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: 'b' is on the CPU (created without a device) but 'a' is on the GPU when one is available (moved here);
  // CHECK-FIXES: auto b = torch::empty({4}, device);
}

void device_chosen_by_branch(torch::Tensor x, bool use_gpu) {
  torch::DeviceType device_type;
  if (use_gpu)
    device_type = torch::kCUDA;
  else
    device_type = torch::kCPU;
  torch::Device device(device_type);
  auto a = x.to(device);
  auto b = torch::full({4}, 1.5);
  auto c = a + b;
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: 'b' is on the CPU (created without a device) but 'a' is on 'device' (moved here);
  // CHECK-FIXES: auto b = torch::full({4}, 1.5, device);
}

struct Trainer {
  torch::Device device_;
  torch::Tensor step(torch::Tensor x) {
    auto a = x.to(device_);
    auto noise = torch::rand({8});
    return a + noise;
    // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: 'noise' is on the CPU (created without a device) but 'a' is on 'device_' (moved here);
    // CHECK-FIXES: auto noise = torch::rand({8}, device_);
  }
};

// --- Factories and options -----------------------------------------------

void factories(torch::Device d, torch::Tensor x) {
  auto g = x.to(d);
  auto r1 = g + torch::randint(10, {4});
  // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: 'torch::randint(10, {4})' is on the CPU (created without a device) but 'g' is on 'd'
  // CHECK-FIXES: auto r1 = g + torch::randint(10, {4}, d);
  auto r2 = g + torch::randperm(4);
  // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: 'torch::randperm(4)' is on the CPU
  // CHECK-FIXES: auto r2 = g + torch::randperm(4, d);
  auto r3 = g + torch::arange(4);
  // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: 'torch::arange(4)' is on the CPU
  // CHECK-FIXES: auto r3 = g + torch::arange(4, d);
  auto r4 = g + torch::linspace(0, 1, 4);
  // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: 'torch::linspace(0, 1, 4)' is on the CPU
  // CHECK-FIXES: auto r4 = g + torch::linspace(0, 1, 4, d);
  auto r5 = g + torch::logspace(0, 1, 4); // no fix-it: `base` comes first
  // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: 'torch::logspace(0, 1, 4)' is on the CPU
  // CHECK-FIXES: auto r5 = g + torch::logspace(0, 1, 4); // no fix-it
  auto r6 = g + torch::eye(4);
  // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: 'torch::eye(4)' is on the CPU
  // CHECK-FIXES: auto r6 = g + torch::eye(4, d);
  auto r7 = g + torch::tensor({1.0, 2.0, 3.0, 4.0});
  // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: 'torch::tensor({1.0, 2.0, 3.0, 4.0})' is on the CPU
  // CHECK-FIXES: auto r7 = g + torch::tensor({1.0, 2.0, 3.0, 4.0}, d);
  auto r8 = g + at::zeros({4});
  // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: 'at::zeros({4})' is on the CPU
  // CHECK-FIXES: auto r8 = g + at::zeros({4}, d);
  auto r9 = g + torch::zeros({4}, torch::kLong); // options written: no fix-it
  // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: 'torch::zeros({4}, torch::kLong)' is on the CPU (created without a device)
  // CHECK-FIXES: auto r9 = g + torch::zeros({4}, torch::kLong); // options
  auto half = torch::dtype(torch::kHalf);
  auto r10 = g + torch::zeros({4}, half);
  // CHECK-MESSAGES: :[[@LINE-1]]:16: warning: 'torch::zeros({4}, half)' is on the CPU (created without a device)
  float data[4] = {1, 2, 3, 4};
  auto r11 = g + torch::from_blob(data, {4});
  // CHECK-MESSAGES: :[[@LINE-1]]:16: warning: 'torch::from_blob(data, {4})' is on the CPU (created without a device)
  // CHECK-FIXES: auto r11 = g + torch::from_blob(data, {4});
  auto host = torch::ones({4});
  auto r12 = g + torch::zeros_like(host);
  // CHECK-MESSAGES: :[[@LINE-1]]:16: warning: 'torch::zeros_like(host)' is on the CPU (created without a device)
  // CHECK-MESSAGES: :[[@LINE-3]]:15: note: the device of 'torch::zeros_like(host)' comes from here: created without a device, so on the CPU
  // CHECK-FIXES: auto host = torch::ones({4});
}

void created_on_a_device(torch::Tensor x, torch::Device d) {
  auto host = torch::randn({4});
  auto a = torch::zeros({4}, torch::device(d));
  auto b = a + host;
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: 'host' is on the CPU (created without a device) but 'a' is on 'd' (created on it)
  // CHECK-MESSAGES: :[[@LINE-3]]:12: note: 'a' is created on 'd' here
  // CHECK-FIXES: auto host = torch::randn({4}, d);
  auto c = torch::ones({4}, torch::TensorOptions().dtype(torch::kFloat).device(d));
  auto e = torch::ones({4}) + c;
  // CHECK-MESSAGES: :[[@LINE-1]]:29: warning: 'torch::ones({4})' is on the CPU (created without a device) but 'c' is on 'd' (created on it)
  // CHECK-FIXES: auto e = torch::ones({4}, d) + c;
  auto opts = x.to(d).options();
  auto f = torch::empty({4}, opts);
  auto g = f.mul(torch::ones({4}));
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: 'torch::ones({4})' is on the CPU (created without a device) but 'f' is on 'd'
  // CHECK-FIXES: auto g = f.mul(torch::ones({4}, d));
  auto h = torch::randn_like(f);
  auto i = h.sub(torch::ones({4}));
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: 'torch::ones({4})' is on the CPU (created without a device) but 'h' is on 'd'
  // CHECK-FIXES: auto i = h.sub(torch::ones({4}, d));
  auto j = torch::scalar_tensor(2.0, d) + torch::ones({4});
  // CHECK-MESSAGES: :[[@LINE-1]]:41: warning: 'torch::ones({4})' is on the CPU (created without a device) but 'torch::scalar_tensor(2.0, d)' is on 'd'
  // CHECK-FIXES: auto j = torch::scalar_tensor(2.0, d) + torch::ones({4}, d);
}

// --- Conversions ---------------------------------------------------------

void conversions(torch::Tensor x, torch::Tensor other, torch::Device d) {
  auto on = other.to(d);
  auto a = x.to(on);
  auto b = torch::ones({4});
  auto c = a + b;
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: 'b' is on the CPU (created without a device) but 'a' is on 'd' (moved here)
  // CHECK-FIXES: auto b = torch::ones({4}, d);
  auto e = x.to(on.device());
  auto f = e + torch::ones({4});
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: 'torch::ones({4})' is on the CPU (created without a device) but 'e' is on 'd'
  // CHECK-FIXES: auto f = e + torch::ones({4}, d);
  auto g = x.cuda().to(torch::kHalf);
  auto h = g + torch::ones({4});
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: 'torch::ones({4})' is on the CPU (created without a device) but 'g' is on CUDA
  // CHECK-FIXES: auto h = g + torch::ones({4}, torch::kCUDA);
  auto y = torch::randn({2, 2}, d);
  auto back = y.cpu();
  auto i = back + y.relu();
  // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: 'back' is on the CPU (moved here) but 'y.relu()' is on 'd' (created on it); {{.*}}; move it with 'back.to(d)' [torch-device-mismatch]
  // CHECK-MESSAGES: :[[@LINE-3]]:17: note: 'back' is moved to the CPU here
  // CHECK-MESSAGES: :[[@LINE-5]]:12: note: the device of 'y.relu()' comes from here: created on 'd'
  auto k = y.to(torch::kCPU);
  auto l = k + y;
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: 'k' is on the CPU (moved here) but 'y' is on 'd'
  auto m = x.to(torch::TensorOptions().device(torch::kCUDA));
  auto n = m + torch::ones({4});
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: 'torch::ones({4})' is on the CPU (created without a device) but 'm' is on CUDA
  // CHECK-FIXES: auto n = m + torch::ones({4}, torch::kCUDA);
  auto p = torch::ones({4}).type_as(m);
  auto q = p + torch::ones({4});
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: 'torch::ones({4})' is on the CPU (created without a device) but 'p' is on CUDA
  // CHECK-FIXES: auto q = p + torch::ones({4}, torch::kCUDA);
}

// --- Op results ------------------------------------------------------------

void op_results(torch::Tensor x, torch::Device d) {
  auto a = x.to(d);
  auto b = (a * 2 + 1).relu();
  auto host = torch::ones({4});
  auto c = b + host;
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: 'host' is on the CPU (created without a device) but 'b' is on 'd' (moved here)
  // CHECK-MESSAGES: :[[@LINE-3]]:15: note: 'host' is created here without a device, so it is on the CPU
  // CHECK-MESSAGES: :[[@LINE-6]]:14: note: the device of 'b' comes from here: moved to 'd'
  // CHECK-FIXES: auto host = torch::ones({4});{{$}}
  auto cpu_sum = host.exp() * 3;
  auto e = a.matmul(cpu_sum);
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: 'cpu_sum' is on the CPU (created without a device) but 'a' is on 'd'
  // CHECK-MESSAGES: :[[@LINE-9]]:15: note: the device of 'cpu_sum' comes from here: created without a device, so on the CPU
}

// --- Ops ---------------------------------------------------------------------

void ops(torch::Tensor x, torch::Device d) {
  auto g = x.to(d);
  auto h = torch::randn({4, 4});
  // CHECK-FIXES: auto h = torch::randn({4, 4});{{$}}
  auto lt = g < h;
  // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: 'h' is on the CPU
  auto eq = g == h;
  // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: 'h' is on the CPU
  g += h;
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'h' is on the CPU
  auto mm = torch::mm(g, h);
  // CHECK-MESSAGES: :[[@LINE-1]]:20: warning: 'h' is on the CPU
  auto mat = torch::matmul(h, g);
  // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: 'h' is on the CPU (created without a device) but 'g' is on 'd'
  auto cat = torch::cat({g, h});
  // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: 'h' is on the CPU
  auto st = torch::stack({h, g}, 0);
  // CHECK-MESSAGES: :[[@LINE-1]]:20: warning: 'h' is on the CPU
  auto w = torch::where(g > 0, g, h);
  // CHECK-MESSAGES: :[[@LINE-1]]:19: warning: 'h' is on the CPU (created without a device) but 'g' is on 'd' (moved here)
  auto add = at::add(g, h);
  // CHECK-MESSAGES: :[[@LINE-1]]:18: warning: 'h' is on the CPU
  auto mse = torch::mse_loss(g, h);
  // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: 'h' is on the CPU
  namespace F = torch::nn::functional;
  auto l1 = F::l1_loss(g, h);
  // CHECK-MESSAGES: :[[@LINE-1]]:16: warning: 'h' is on the CPU
  auto lin = F::linear(g, h);
  // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: 'h' is on the CPU
  torch::nn::MSELoss criterion;
  auto crit = criterion(g, h);
  // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: 'h' is on the CPU (created without a device) but 'g' is on 'd'
}

// --- Data-loader batches and modules ---------------------------------------

struct NetImpl : torch::nn::Module {
  NetImpl() : fc(register_module("fc", torch::nn::Linear(4, 2))) {
    bias_ = register_parameter("bias", torch::zeros({2}));
  }
  torch::Tensor forward(torch::Tensor x) {
    auto noise = torch::randn({4});
    // CHECK-FIXES: auto noise = torch::randn({4}, x.device());
    auto h = fc(x + noise);
    // CHECK-MESSAGES: :[[@LINE-1]]:19: warning: 'noise' is on the CPU (created without a device) but 'x' is on the module's device (an argument of forward())
    // CHECK-MESSAGES: :[[@LINE-4]]:18: note: 'noise' is created here without a device, so it is on the CPU
    // CHECK-MESSAGES: :[[@LINE-6]]:39: note: the tensor arguments of forward() are on the module's device
    auto out = h + bias_;
    auto mask = torch::ones({2});
    // CHECK-FIXES: auto mask = torch::ones({2}, x.device());
    return out * mask;
    // CHECK-MESSAGES: :[[@LINE-1]]:16: warning: 'mask' is on the CPU (created without a device) but 'out' is on the module's device (an output of the module)
    // CHECK-MESSAGES: :[[@LINE-9]]:14: note: the device of 'out' comes from here: computed by a module on the module's device
  }

  torch::nn::Linear fc;
  torch::Tensor bias_;
};
TORCH_MODULE(Net);

// The device operand is a call: the advice names the device, not the call.
struct ShiftImpl : torch::nn::Module {
  ShiftImpl() : fc(register_module("fc", torch::nn::Linear(4, 2))) {}
  torch::Tensor forward(torch::Tensor x) {
    auto noise = torch::randn({4, 2});
    // CHECK-FIXES: auto noise = torch::randn({4, 2}, x.device());
    return fc->forward(x) + noise;
    // CHECK-MESSAGES: :[[@LINE-1]]:27: warning: 'noise' is on the CPU (created without a device) but 'fc->forward(x)' is on the module's device (an output of the module); on a GPU machine this op throws 'Expected all tensors to be on the same device'; move it with 'noise.to(x.device())' or create it with the device 'x.device()' [torch-device-mismatch]
    // CHECK-MESSAGES: :[[@LINE-4]]:18: note: 'noise' is created here without a device, so it is on the CPU
    // CHECK-MESSAGES: :[[@LINE-3]]:16: note: 'fc->forward(x)' is computed by a module on the module's device here
  }
  torch::nn::Linear fc;
};

void loader_batches(torch::Device device) {
  Net net;
  net->to(device);
  auto loader = torch::data::make_data_loader(
      torch::data::datasets::MNIST("data").map(
          torch::data::transforms::Stack<>()),
      64);
  for (auto &batch : *loader) {
    auto out = net->forward(batch.data);
    // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: 'batch.data' is on the CPU (a data-loader batch) but the module 'net' is on 'device'; on a GPU machine its parameters and this input are on different devices and the call throws; move the input to the module's device first: 'batch.data.to(device)'
    // CHECK-MESSAGES: :[[@LINE-3]]:22: note: 'batch.data' comes from this data loader, which yields CPU tensors
    // CHECK-MESSAGES: :[[@LINE-9]]:8: note: the module is moved to 'device' here
    auto loss = torch::nll_loss(out, batch.target);
    // CHECK-MESSAGES: :[[@LINE-1]]:24: warning: 'batch.target' is on the CPU (a data-loader batch) but 'out' is on 'device' (an output of the module)
    auto out2 = net(batch.data);
    // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: 'batch.data' is on the CPU (a data-loader batch) but the module 'net' is on 'device'
  }
}

// A dataset of the program's own: its batches are on the CPU, unless the
// dataset deals with devices (it holds one, or moves its tensors when it
// is built): then they may already be on the GPU (near miss).
struct Ratings : torch::data::datasets::Dataset<Ratings> {
  torch::Tensor pairs = torch::zeros({100, 4}), scores = torch::zeros({100});
  torch::data::Example<> get(size_t i) override { return {pairs[i], scores[i]}; }
  torch::optional<size_t> size() const override { return 100; }
};

struct RatingsOnDevice : torch::data::datasets::Dataset<RatingsOnDevice> {
  RatingsOnDevice(torch::Tensor p, torch::Tensor s, torch::Device device)
      : pairs(p.to(device)), scores(s.to(device)) {}
  torch::data::Example<> get(size_t i) override;
  torch::optional<size_t> size() const override { return pairs.size(0); }
  torch::Tensor pairs, scores;
};

void own_datasets(torch::Device device, torch::Tensor p, torch::Tensor s) {
  Net net;
  net->to(device);
  auto on_host = torch::data::make_data_loader(
      Ratings().map(torch::data::transforms::Stack<>()), 64);
  for (auto &batch : *on_host) {
    auto out = net->forward(batch.data);
    // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: 'batch.data' is on the CPU (a data-loader batch) but the module 'net' is on 'device'
    // CHECK-MESSAGES: :[[@LINE-3]]:22: note: 'batch.data' comes from this data loader, which yields CPU tensors
    // CHECK-MESSAGES: :[[@LINE-7]]:8: note: the module is moved to 'device' here
  }
  auto on_device = torch::data::make_data_loader(
      RatingsOnDevice(p, s, device).map(torch::data::transforms::Stack<>()),
      64);
  for (auto &batch : *on_device) {
    auto out = net->forward(batch.data);
    auto loss = torch::mse_loss(out, batch.target);
  }
}

void module_members(torch::Tensor x) {
  torch::nn::Linear lin(4, 2);
  lin->to(torch::kCUDA);
  auto w = lin->weight + torch::ones({2, 4});
  // CHECK-MESSAGES: :[[@LINE-1]]:24: warning: 'torch::ones({2, 4})' is on the CPU (created without a device) but 'lin->weight' is on CUDA (a tensor of the module)
  // CHECK-MESSAGES: :[[@LINE-2]]:17: note: 'lin->weight' belongs to a module on CUDA
  // CHECK-FIXES: auto w = lin->weight + torch::ones({2, 4}, torch::kCUDA);
  for (auto &p : lin->parameters()) {
    auto q = p * torch::ones({2, 4});
    // CHECK-MESSAGES: :[[@LINE-1]]:16: warning: 'torch::ones({2, 4})' is on the CPU (created without a device) but 'p' is on CUDA (a tensor of the module)
    // CHECK-MESSAGES: :[[@LINE-3]]:18: note: the device of 'p' comes from here: a tensor of a module on CUDA
    // CHECK-FIXES: auto q = p * torch::ones({2, 4}, torch::kCUDA);
  }
}

void module_not_moved(torch::Device device) {
  torch::nn::Linear fc(4, 2);
  auto x = torch::randn({8, 4}, device);
  auto y = fc(x);
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'x' is on 'device' (created on it) but the module 'fc' is on the CPU (created here, modules start on the CPU); on a GPU machine its parameters and this input are on different devices and the call throws; move the module to the input's device first: 'fc->to(device)'
  // CHECK-MESSAGES: :[[@LINE-3]]:12: note: 'x' is created on 'device' here
  // CHECK-MESSAGES: :[[@LINE-5]]:21: note: the module is created here; modules start on the CPU
}

// A tensor with no elements passed to forward() marks "none" (the module
// tests numel()); one with elements is an input.
struct MaskedNetImpl : torch::nn::Module {
  MaskedNetImpl() { fc = register_module("fc", torch::nn::Linear(4, 2)); }
  torch::Tensor forward(torch::Tensor x, torch::Tensor valid_lens) {
    return valid_lens.numel() == 0 ? fc(x) : fc(x) * valid_lens;
  }
  torch::nn::Linear fc{nullptr};
};
TORCH_MODULE(MaskedNet);

void empty_marker(torch::Device device) {
  MaskedNet net;
  net->to(device);
  auto x = torch::randn({8, 4}, device);
  auto a = net->forward(x, torch::empty(0));
  auto b = net->forward(x, torch::zeros({0}));
  auto c = net->forward(x, torch::ones({8, 1}));
  // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: 'torch::ones({8, 1})' is on the CPU (created without a device) but the module 'net' is on 'device'
  // CHECK-MESSAGES: :[[@LINE-2]]:28: note: 'torch::ones({8, 1})' is created here without a device, so it is on the CPU
  // CHECK-MESSAGES: :[[@LINE-7]]:8: note: the module is moved to 'device' here
}

// --- Flow ----------------------------------------------------------------------

void flow(torch::Tensor x, torch::Device d, bool cond) {
  torch::Tensor t = torch::ones({4});
  if (cond)
    t = t * 2;
  // CHECK-FIXES: torch::Tensor t = torch::ones({4});{{$}}
  auto a = x.to(d) + t; // CPU on both paths
  // CHECK-MESSAGES: :[[@LINE-1]]:20: warning: 't' is on the CPU (created without a device) but 'x.to(d)' is on 'd'
  for (int i = 0; i < 3; ++i) {
    auto b = torch::zeros({4});
    auto c = b + x.cuda(); // a fresh CPU tensor on every iteration
    // CHECK-MESSAGES: :[[@LINE-1]]:16: warning: 'b' is on the CPU (created without a device) but 'x.cuda()' is on CUDA
    // CHECK-FIXES: auto b = torch::zeros({4}, torch::kCUDA);
  }
}

// --- Modules held by a plain class --------------------------------------------

// A class that is not a module but holds two (a GAN's generator and
// discriminator): each field's device is kept like a local module's.
struct Gan {
  Net gen;
  Net dis;
};

void gan_step(bool resume) {
  Gan net;
  torch::Device de = torch::kCPU;
  if (torch::cuda::is_available())
    de = torch::kCUDA;
  if (resume)
    torch::load(net.gen, "gen.pt");
  net.gen->to(de);
  net.dis->to(de);
  auto noise = torch::randn({8, 4});
  auto fake = net.gen->forward(noise);
  // CHECK-MESSAGES: :[[@LINE-1]]:24: warning: 'noise' is on the CPU (created without a device) but the module 'net.gen' is on 'de'
  auto labels = torch::zeros({8, 2});
  auto loss = torch::mse_loss(net.dis->forward(fake), labels);
  // CHECK-MESSAGES: :[[@LINE-1]]:22: warning: 'labels' is on the CPU (created without a device) but 'net.dis->forward(fake)' is on 'de'
}

void reload(Gan &gan);
void gan_handed_over(torch::Device de) {
  Gan net;
  net.gen->to(de);
  reload(net); // may move or replace its modules
  auto fake = net.gen->forward(torch::randn({8, 4}));
}

void two_gans(torch::Device de) {
  Gan net;
  Gan other;
  other.dis->to(de);
  auto own = net.dis->forward(torch::randn({8, 4})); // not the one moved
}

// A module held by a std::shared_ptr and moved through `->`.
void shared_module(torch::Device de) {
  auto net = std::make_shared<NetImpl>();
  net->to(de);
  auto input = torch::randn({8, 4});
  auto out = net->forward(input);
  // CHECK-MESSAGES: :[[@LINE-1]]:19: warning: 'input' is on the CPU (created without a device) but the module 'net' is on 'de'
}

// A sequence grown in a loop with torch::cat stays on its device: the CPU
// token appended at each step is a mix. An in-place fill keeps its tensor's
// device, and a dtype conversion its rank.
torch::Tensor greedy_decode(torch::nn::Linear &model, torch::Tensor memory,
                            int64_t max_len, const torch::Device &device) {
  torch::Tensor ys = torch::ones({1, 1}).toType(torch::kLong).to(device);
  for (int64_t i = 0; i < max_len; i++) {
    torch::Tensor next_word = model->forward(memory).argmax(1);
    ys = torch::cat({ys, torch::ones({1, 1}).toType(torch::kLong).fill_(next_word)}, 0);
    // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: the tensor is on the CPU (created without a device) but 'ys' is on 'device'
  }
  return ys;
}
torch::Tensor greedy_decode_on_device(const torch::Device &device, int n) {
  torch::Tensor ys = torch::ones({1, 1}, device);
  for (int i = 0; i < n; i++) {
    ys = torch::cat({ys, torch::ones({1, 1}, device)}, 0);
    auto score = ys.sum() + torch::tensor(1.0); // 0-dim: allowed
  }
  return ys;
}

// TensorOptions built from a device name: a string member is the device
// the module was given (unknown here), a literal is that device.
struct PositionsImpl : torch::nn::Module {
  explicit PositionsImpl(const std::string &device) : device(device) {
    table = register_module("table", torch::nn::Embedding(16, 4));
  }
  torch::Tensor forward(torch::Tensor x) {
    auto named = table(torch::arange(torch::Scalar(8), torch::TensorOptions(device)));
    auto literal = table(torch::arange(torch::Scalar(8), torch::TensorOptions("cpu")));
    // CHECK-MESSAGES: :[[@LINE-1]]:20: warning: the tensor is on the CPU (created on it) but the module 'table' is on the module's device
    return x + named.sum() + literal.sum();
  }
  const std::string device;
  torch::nn::Embedding table{nullptr};
};

// A view with a shape of its own has that many dimensions: a CPU buffer
// viewed as {1, 1, -1} is no 0-dim scalar, and the moved model's
// parameters meet it. A view as {} is one.
void staged_input(torch::Device device, int n) {
  auto model = torch::nn::Linear(4, 2);
  model->to(device);
  torch::Tensor staging = torch::zeros({1, 4});
  for (int i = 0; i < n; ++i) {
    auto in = staging.detach().view({1, 1, -1});
    auto pred = model->forward(in);
    // CHECK-MESSAGES: :[[@LINE-1]]:24: warning: 'in' is on the CPU (created without a device) but the module 'model' is on 'device'
    auto flat = model->forward(staging.unsqueeze(0));
    // CHECK-MESSAGES: :[[@LINE-1]]:24: warning: 'staging.unsqueeze(0)' is on the CPU
    auto scaled = pred * staging.sum().view({}); // near miss: 0-dim
    (void)flat;
    (void)scaled;
  }
}

// A module that returns a pair: its elements are on the module's device, so
// a CPU target meets them in the loss; a target moved there does not.
struct CriticImpl : torch::nn::Module {
  CriticImpl() { fc = register_module("fc", torch::nn::Linear(4, 2)); }
  std::pair<torch::Tensor, torch::Tensor> forward(torch::Tensor x) {
    auto y = fc(x);
    return {y, y.sum(1)};
  }
  torch::nn::Linear fc{nullptr};
};
TORCH_MODULE(Critic);
void critic_step(torch::Device device, torch::Tensor x) {
  Critic critic;
  critic->to(device);
  auto mse = torch::nn::MSELoss();
  auto fake_label = torch::zeros({8, 2});
  auto out = critic(x.to(device));
  auto out_gan = out.first;
  auto err = mse(out_gan, fake_label);
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: 'fake_label' is on the CPU (created without a device) but 'out_gan' is on 'device'
  auto score = std::get<1>(critic->forward(x.to(device)));
  auto ok = mse(score, torch::zeros({8}, device)); // near miss
  (void)err;
  (void)ok;
}
