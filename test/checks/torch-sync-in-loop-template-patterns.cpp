// RUN: %check_torch_tidy %s torch-sync-in-loop %t -- %torch_flags

// A class template that no code here instantiates (its program's main() is
// elsewhere, or does not compile): its loops are read in the pattern. A
// model of a type parameter runs through `model->forward(x)`, and a chain
// of calls that starts at a torch::Tensor is a tensor's, even when a
// dependent argument leaves it unresolved.
#include <torch/torch.h>

template <typename ModelType> struct Evaluator {
  torch::Device device{torch::kCUDA};

  template <typename Loader> float test(ModelType &model, Loader &loader) {
    torch::NoGradGuard no_grad;
    float correct = 0;
    for (auto &batch : loader) {
      auto data = batch.data.to(device);
      auto target = batch.target.to(device);
      torch::Tensor output = model->forward(data);
      torch::Tensor prediction = output.argmax(1);
      correct += prediction.eq(target).sum().item().toFloat();
      // CHECK-MESSAGES: :[[@LINE-1]]:46: warning: 'Tensor::item' makes the host wait for the device on every iteration of this inference loop
      // CHECK-MESSAGES: :[[@LINE-4]]:30: note: this loop runs the model: 'forward' is called here
      torch::Tensor on_host = prediction.to(torch::kCPU);
      // CHECK-MESSAGES: :[[@LINE-1]]:42: warning: 'Tensor::to' toward the CPU makes the host wait
      // Near miss: a chain that starts at a value of a dependent type.
      correct += batch.target.sum().item().toFloat();
    }
    return correct;
  }
};

// A search over a game type (MuZero's MCTS): the network's outputs come
// from calls that a dependent argument leaves unresolved, so their values
// have dependent types. The call names one method of the program's module
// (`recurrent_inference`), which runs the model; `x.template item<float>()`
// is a tensor's read whatever x's type; a helper that one candidate names
// (`expand`) runs once per simulation, and its reads with it.
struct Output {
  torch::Tensor value, policy;
};

struct NetworkImpl : torch::nn::Module {
  NetworkImpl() : fc(register_module("fc", torch::nn::Linear(4, 4))) {}
  Output recurrent_inference(torch::Tensor state) {
    torch::Tensor y = fc(state);
    return {y.sum(), y};
  }
  torch::nn::Linear fc;
};
TORCH_MODULE(Network);

inline float expand(Output &output, int actions) {
  float prior = output.value.item<float>();
  for (int a = 0; a < actions; ++a)
    prior += output.policy[0][a].item<float>();
  // CHECK-MESSAGES: :[[@LINE-1]]:34: warning: 'Tensor::item' makes the host wait for the device on every iteration of this loop in 'expand'
  // CHECK-MESSAGES: :[[@LINE+10]]:16: note: 'expand' is called here on every iteration of an inference loop
  return prior;
}

template <typename Game> struct Search {
  Network network;
  float run(Game &game, int simulations) {
    float total = 0;
    for (int i = 0; i < simulations; ++i) {
      auto output = network->recurrent_inference(game.state());
      total += expand(output, Game::kActions);
      // CHECK-MESSAGES: :[[@LINE-1]]:16: warning: 'expand' makes the host wait for the device on every iteration of this inference loop: it calls 'Tensor::item' inside
      // CHECK-MESSAGES: :[[@LINE-16]]:30: note: the host waits here
      // CHECK-MESSAGES: :[[@LINE-4]]:21: note: this loop runs the model: 'recurrent_inference' is called here
      total += output.value.template item<float>();
      // CHECK-MESSAGES: :[[@LINE-1]]:38: warning: 'Tensor::item' makes the host wait for the device on every iteration of this inference loop
      // CHECK-MESSAGES: :[[@LINE-7]]:21: note: this loop runs the model: 'recurrent_inference' is called here
    }
    // Near miss: once, after the search.
    return total + network->recurrent_inference(game.state())
                       .value.template item<float>();
  }
};
