// Near misses: every result is used, or the call works in place.
// RUN: %check_torch_tidy %s torch-discarded-to %t -- %torch_flags
// RUN: %check_torch_tidy --via plugin --no-compile %s torch-discarded-to %t.plugin -- %torch_flags

#include <torch/torch.h>
#include <torch/script.h>

struct NetImpl : torch::nn::Module {
  NetImpl() { fc = register_module("fc", torch::nn::Linear(4, 2)); }
  torch::Tensor forward(torch::Tensor x) { return fc->forward(x); }
  torch::nn::Linear fc{nullptr};
};
TORCH_MODULE(Net);

struct Converter {
  Converter to(torch::Device) const { return *this; }
  void cuda() {}
};

torch::Tensor consume(torch::Tensor t) { return t; }

torch::Tensor used(torch::Tensor x, torch::Device device, std::shared_ptr<NetImpl> net,
                   torch::jit::Module &scripted, Converter conv) {
  x = x.to(device);                       // assigned
  auto y = x.cuda();                      // initialises a variable
  consume(x.to(device));                  // passed on
  torch::Tensor z = x.to(device) + y;     // used in an expression
  x.to(device).sum().item<float>();       // chained into something that uses it
  (void)x.to(device);                     // explicitly discarded
  static_cast<void>(x.cpu());             // explicitly discarded
  x.add_(1);                              // in place on the variable itself
  torch::nn::Linear linear(4, 2);
  linear->to(device);                     // Module::to works in place (holder)
  linear->to(torch::kFloat64);
  net->to(device);                        // through a shared_ptr
  NetImpl &ref = *net;
  ref.to(device);                         // through a reference
  Net holder;
  holder->to(device);
  scripted.to(device);                    // torch::jit::Module::to is void
  conv.to(device);                        // a user class with its own to()
  conv.cuda();
  if (x.to(device).defined())             // used as a condition
    return x.to(device);                  // returned
  return z;
}
