// RUN: %check_torch_tidy %s torch-loop-invariant-transfer %t -- %torch_flags
// RUN: %check_torch_tidy --via plugin --no-compile %s torch-loop-invariant-transfer %t.plugin -- %torch_flags
// The same file as a CUDA unit's host side (clang -x cuda --cuda-host-only):
// the same findings and fixes.
// RUN: %if cuda-variants %{ %check_torch_tidy %s torch-loop-invariant-transfer %t.cuda -- %cuda_flags %}

// Transfers in hot loops of tensors that do not change there, and the near
// misses: fresh batches, values assigned or changed in place in the loop,
// tensors already on the target device, module->to, loops that are not hot,
// transfers on some iterations only.
#include <torch/torch.h>
#include <algorithm>
#include <cstring>
#include <vector>

struct NetImpl : torch::nn::Module {
  NetImpl() : fc(register_module("fc", torch::nn::Linear(4, 1))) {}
  torch::Tensor forward(torch::Tensor x) { return fc(x); }
  torch::nn::Linear fc;
};
TORCH_MODULE(Net);

void positives(Net net, torch::optim::SGD &opt, torch::Device device,
               torch::Tensor x, const torch::Tensor &weights) {
  auto target = torch::ones({8, 1});
  auto mask = torch::rand({8, 4});
  for (int step = 0; step < 100; ++step) {
    opt.zero_grad();
    auto out = net->forward(x.to(device) * mask.cuda());
    // CHECK-MESSAGES: :[[@LINE-1]]:31: warning: 'x' does not change in this loop, yet 'to' copies it to 'device' on every iteration; do the transfer once before the loop ('auto x_dev = x.to(device);') and use the copy inside [torch-loop-invariant-transfer]
    // CHECK-MESSAGES: :[[@LINE-4]]:3: note: this training loop repeats the transfer on every iteration
    // CHECK-MESSAGES: :[[@LINE-3]]:49: warning: 'mask' does not change in this loop, yet 'cuda' copies it to CUDA on every iteration
    auto loss = torch::mse_loss(out, target.to(device), /*reduction=*/1);
    // CHECK-MESSAGES: :[[@LINE-1]]:45: warning: 'target' does not change in this loop
    auto w = weights.to(device);
    // CHECK-MESSAGES: :[[@LINE-1]]:22: warning: 'weights' does not change in this loop
    (loss * w.sum()).backward();
    opt.step();
  }
}

// A function template is read through its instantiations: one finding at
// its place in the template; one never instantiated has no devices to read.
template <typename Loader>
void notInstantiated(Net net, Loader &loader, torch::Device device,
                     torch::Tensor bias) {
  for (auto &batch : loader)
    net->forward(batch.data.to(device) + bias.to(device));
}
template <typename Model>
void predictCaptions(Model model, std::vector<torch::Tensor> images,
                     torch::Device device) {
  for (auto &image : images) {
    auto features = model->forward(image.to(device));
    for (int word = 0; word < 3; ++word)
      (void)(features + image.to(device));
    // CHECK-MESSAGES: :[[@LINE-1]]:31: warning: 'image' does not change in this loop, yet 'to' copies it to 'device' on every iteration
    // CHECK-MESSAGES: :[[@LINE-3]]:5: note: this loop, nested in the inference loop, repeats the transfer on every iteration
  }
}
template void predictCaptions<Net>(Net, std::vector<torch::Tensor>,
                                   torch::Device);
template void predictCaptions<torch::nn::Linear>(torch::nn::Linear,
                                                 std::vector<torch::Tensor>,
                                                 torch::Device);

void nested(Net net, torch::Device device, torch::Tensor x,
            torch::Tensor scale) {
  for (int epoch = 0; epoch < 3; ++epoch) {
    for (int i = 0; i < 10; ++i) {
      auto y = net->forward(x.to(device));
      // CHECK-MESSAGES: :[[@LINE-1]]:31: warning: 'x' does not change in this loop
      // CHECK-MESSAGES: :[[@LINE-3]]:5: note: this inference loop repeats the transfer on every iteration
      for (int k = 0; k < 2; ++k)
        y = y * scale.to(device);
      // CHECK-MESSAGES: :[[@LINE-1]]:23: warning: 'scale' does not change in this loop
    }
  }
}

void nearMisses(Net net, torch::optim::SGD &opt, torch::Device device,
                std::vector<torch::Tensor> &inputs, torch::Tensor x,
                torch::Tensor y, torch::Tensor z, torch::Tensor u,
                torch::Tensor v) {
  auto onDevice = torch::zeros({4}, torch::device(device));
  auto half = torch::zeros({4});
  torch::Tensor cache;
  for (size_t i = 0; i < inputs.size(); ++i) {
    auto in = inputs[i].to(device);        // a fresh input each step
    auto batch = torch::randn({2, 4});
    auto b = batch.to(device);             // declared in the loop
    x = x * 0.5;
    auto xs = x.to(device);                // x changes in the loop
    y.mul_(0.9);
    auto ys = y.to(device);                // changed in place
    z[0].fill_(1);
    auto zs = z.to(device);                // changed through a view
    auto same = onDevice.to(device);       // already there
    auto h = half.to(torch::kHalf);        // a dtype change, no transfer
    if (i == 0)
      cache = u.to(device);                // on the first step only
    if (i % 10 == 0)
      net->forward(v.to(device));          // under a logging interval
    net->to(device);                       // a module moves in place
    net->forward(in + b + xs + ys + zs + same + h + cache).sum().backward();
    opt.step();
  }
  // Not a hot loop: no step, forward or backward.
  for (int i = 0; i < 3; ++i)
    inputs.push_back(x.to(device));
}

// A host staging buffer refilled through its data pointer on every step.
void refilled(Net net, torch::Device device, const std::vector<float> &src) {
  auto staging = torch::zeros({4});
  auto pinned = torch::zeros({4});
  for (int i = 0; i < 3; ++i) {
    std::memcpy(staging.data_ptr<float>(), src.data(), 4 * sizeof(float));
    std::copy(src.begin(), src.begin() + 4, pinned.data_ptr<float>());
    net->forward(staging.to(device) + pinned.to(device));
  }
}

void movedAway(Net net, torch::Device device, torch::Tensor x) {
  for (int i = 0; i < 3; ++i) {
    net->forward(x.to(device));            // x is moved from below
    auto gone = std::move(x);
  }
}

// A loop nested in a hot loop runs all its iterations on every step: a
// tensor that does not change there is copied once per inner iteration.
void captions(Net net, torch::Device device, std::vector<torch::Tensor> images) {
  for (auto &image : images) {
    auto out = net->forward(image.to(device));
    for (int word = 0; word < 5; ++word) {
      auto blended = image.to(device) * 0.5 + out;
      // CHECK-MESSAGES: :[[@LINE-1]]:28: warning: 'image' does not change in this loop, yet 'to' copies it to 'device' on every iteration
      // CHECK-MESSAGES: :[[@LINE-3]]:5: note: this loop, nested in the inference loop, repeats the transfer on every iteration
      (void)blended;
    }
  }
  // Near miss: a loop that is not in a hot loop.
  auto first = images.front();
  for (int word = 0; word < 5; ++word)
    (void)first.to(device);
}

// A member only the constructor sets, moved on every call of forward() or
// operator(): register it as a buffer (a module) or keep a device copy.
struct YoloLayerImpl : torch::nn::Module {
  YoloLayerImpl() : anchors(torch::tensor({10.f, 13.f, 16.f, 30.f})) {}
  torch::Tensor forward(torch::Tensor x) {
    auto a = anchors.to(x.device());
    // CHECK-MESSAGES: :[[@LINE-1]]:22: warning: 'anchors' is set only when the module is constructed, yet 'to' copies it to the module's device on every call of 'forward'; register it with register_buffer so that 'module->to(device)' moves it once [torch-loop-invariant-transfer]
    // CHECK-MESSAGES: :[[@LINE+6]]:17: note: the member is declared here
    auto k = kernel.to(torch::kCUDA);
    // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: 'kernel' is set only when the module is constructed, yet 'to' copies it to CUDA on every call of 'forward'
    // CHECK-MESSAGES: :[[@LINE+4]]:17: note: the member is declared here
    return x * a.sum() + k.sum();
  }
  torch::Tensor anchors;
  torch::Tensor kernel = torch::ones({3, 3}) / 9;
};
TORCH_MODULE(YoloLayer);

struct Decoder {
  torch::Tensor grid = torch::arange(13);
  torch::Tensor operator()(torch::Tensor out) {
    return out + grid.to(out.device());
    // CHECK-MESSAGES: :[[@LINE-1]]:23: warning: 'grid' is set only when the object is constructed, yet 'to' copies it to its target device on every call of 'operator()'; keep a copy on the device and reuse it
    // CHECK-MESSAGES: :[[@LINE-4]]:17: note: the member is declared here
  }
};

// Through a subscript or a view: an element of a vector member built once
// (one anchor set per scale), a row of a tensor member; and a functor
// template, read through its instantiation.
struct MultiScaleImpl : torch::nn::Module {
  MultiScaleImpl(std::vector<std::vector<float>> sets) {
    for (auto &s : sets)
      anchors_wh.push_back(torch::tensor(s));
  }
  torch::Tensor forward(std::vector<torch::Tensor> xs) {
    torch::Tensor out;
    for (size_t i = 0; i < xs.size(); ++i) {
      auto device = xs[i].device();
      auto wh = this->anchors_wh[i].to(device);
      // CHECK-MESSAGES: :[[@LINE-1]]:37: warning: 'anchors_wh' is set only when the module is constructed, yet 'to' copies it to its target device on every call of 'forward'
      out = xs[i] * wh.sum() + grid[0].unsqueeze(0).to(device).sum();
      // CHECK-MESSAGES: :[[@LINE-1]]:53: warning: 'grid' is set only when the module is constructed, yet 'to' copies it
    }
    return out;
  }
  std::vector<torch::Tensor> anchors_wh;
  torch::Tensor grid = torch::rand({3, 4});
};
TORCH_MODULE(MultiScale);

template <typename T> struct Blur {
  explicit Blur(int64_t k) : kernel(torch::ones({1, 1, k, k}) / (k * k)) {}
  torch::Tensor operator()(const torch::Tensor &input) const {
    return torch::conv2d(input, kernel.to(input.device()));
    // CHECK-MESSAGES: :[[@LINE-1]]:40: warning: 'kernel' is set only when the object is constructed, yet 'to' copies it to its target device on every call of 'operator()'; keep a copy on the device and reuse it
  }
  torch::Tensor kernel;
};
torch::Tensor blurred(torch::Tensor x) { return Blur<float>(3)(x); }

// Near misses: a vector member that another method grows; an element
// another method replaces.
struct GrowingImpl : torch::nn::Module {
  torch::Tensor forward(torch::Tensor x) {
    return x + cache[0].to(x.device()) + slots[1].to(x.device());
  }
  void add(torch::Tensor t) { cache.push_back(t); }
  void replace(torch::Tensor t) { slots[1] = t; }
  std::vector<torch::Tensor> cache, slots;
};
TORCH_MODULE(Growing);

// Near misses: a registered buffer moves with module->to(); a member that
// other methods change; a member moved to the CPU.
struct BufferedImpl : torch::nn::Module {
  BufferedImpl() { anchors = register_buffer("anchors", torch::ones({4})); }
  torch::Tensor forward(torch::Tensor x) {
    return x * anchors.to(x.device()).sum() + cache.to(x.device()).sum() +
           host.to(torch::kCPU).sum();
  }
  void update(torch::Tensor c) { cache = c; }
  torch::Tensor anchors, cache, host;
};
TORCH_MODULE(Buffered);
