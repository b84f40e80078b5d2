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
