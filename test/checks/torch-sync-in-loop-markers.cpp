// RUN: %check_torch_tidy %s torch-sync-in-loop %t -- %torch_flags
// RUN: %check_torch_tidy --via plugin --no-compile %s torch-sync-in-loop %t.plugin -- %torch_flags

// Each kind of hot marker, each kind of loop, nested loops and the periodic
// guards.
#include <torch/torch.h>
#include <torch/script.h>

struct NetImpl : torch::nn::Module {
  NetImpl() : fc(register_module("fc", torch::nn::Linear(4, 2))) {}
  torch::Tensor forward(torch::Tensor x) { return fc(x); }
  torch::nn::Linear fc;
};
TORCH_MODULE(Net);

void autograd_free_functions(torch::Tensor x, torch::Tensor loss) {
  for (int i = 0; i < 10; ++i) {
    torch::autograd::backward({loss});
    std::cout << loss.item<float>();
    // CHECK-MESSAGES: :[[@LINE-1]]:23: warning: 'Tensor::item' makes the host wait for the device on every iteration of this training loop
    // CHECK-MESSAGES: :[[@LINE-3]]:5: note: this loop runs a training step: 'torch::autograd::backward' is called here
  }
  for (int i = 0; i < 10; ++i) {
    auto g = torch::autograd::grad({loss}, {x});
    std::cout << g[0].sum().item<float>();
    // CHECK-MESSAGES: :[[@LINE-1]]:29: warning: 'Tensor::item' makes the host wait
    // CHECK-MESSAGES: :[[@LINE-3]]:14: note: this loop runs a training step: 'torch::autograd::grad' is called here
  }
}

void optimizers(Net &net, torch::Tensor x, torch::Tensor y) {
  torch::optim::SGD sgd(net->parameters(), 0.1);
  std::unique_ptr<torch::optim::Optimizer> adam =
      std::make_unique<torch::optim::Adam>(net->parameters());
  for (int i = 0; i < 10; ++i) {
    sgd.step();
    std::cout << x.sum().item<float>();
    // CHECK-MESSAGES: :[[@LINE-1]]:26: warning: 'Tensor::item' makes the host wait for the device on every iteration of this training loop
    // CHECK-MESSAGES: :[[@LINE-3]]:9: note: this loop runs a training step: 'step' is called here
  }
  int i = 0;
  while (i++ < 10) {
    adam->zero_grad();
    std::cout << y.sum().item<float>();
    // CHECK-MESSAGES: :[[@LINE-1]]:26: warning: 'Tensor::item'
    // CHECK-MESSAGES: :[[@LINE-3]]:11: note: this loop runs a training step: 'zero_grad' is called here
  }
}

void forwards(Net &net, torch::nn::Linear &linear, torch::nn::Sequential &seq,
              torch::nn::AnyModule &any, torch::jit::Module &scripted,
              torch::Tensor x) {
  for (int i = 0; i < 10; ++i) {
    auto out = net->forward(x);
    std::cout << out.sum().item<float>();
    // CHECK-MESSAGES: :[[@LINE-1]]:28: warning: 'Tensor::item' makes the host wait for the device on every iteration of this inference loop
    // CHECK-MESSAGES: :[[@LINE-3]]:21: note: this loop runs the model: 'forward' is called here
  }
  for (int i = 0; i < 10; ++i) {
    auto out = linear(x);
    std::cout << out.sum().item<float>();
    // CHECK-MESSAGES: :[[@LINE-1]]:28: warning: 'Tensor::item'
    // CHECK-MESSAGES: :[[@LINE-3]]:16: note: this loop runs the model: the module is called here
  }
  for (int i = 0; i < 10; ++i) {
    auto out = seq->forward(x);
    std::cout << out.sum().item<float>();
    // CHECK-MESSAGES: :[[@LINE-1]]:28: warning: 'Tensor::item'
    // CHECK-MESSAGES: :[[@LINE-3]]:21: note: this loop runs the model: 'forward' is called here
  }
  for (int i = 0; i < 10; ++i) {
    auto out = any.forward(x);
    std::cout << out.sum().item<float>();
    // CHECK-MESSAGES: :[[@LINE-1]]:28: warning: 'Tensor::item'
    // CHECK-MESSAGES: :[[@LINE-3]]:20: note: this loop runs the model: 'forward' is called here
  }
  for (int i = 0; i < 10; ++i) {
    auto out = scripted.forward({x}).toTensor();
    std::cout << out.sum().item<float>();
    // CHECK-MESSAGES: :[[@LINE-1]]:28: warning: 'Tensor::item'
    // CHECK-MESSAGES: :[[@LINE-3]]:25: note: this loop runs the model: 'forward' is called here
  }
  // A plain Module subclass called directly.
  NetImpl &impl = *net;
  do {
    auto out = impl.forward(x);
    std::cout << out.sum().item<float>();
    // CHECK-MESSAGES: :[[@LINE-1]]:28: warning: 'Tensor::item'
    // CHECK-MESSAGES: :[[@LINE-3]]:21: note: this loop runs the model: 'forward' is called here
  } while (false);
}

// Iterating over torch::data::make_data_loader's result.
void loaders(Net &net, torch::optim::SGD &opt, torch::Device device) {
  auto loader = torch::data::make_data_loader(
      torch::data::datasets::MNIST("data").map(
          torch::data::transforms::Stack<>()),
      64);
  for (auto &batch : *loader) {
    auto target = batch.target.to(device);
    std::cout << target.sum().item<int64_t>();
    // CHECK-MESSAGES: :[[@LINE-1]]:31: warning: 'Tensor::item' makes the host wait for the device on every iteration of this data-loading loop
    // CHECK-MESSAGES: :[[@LINE-4]]:22: note: this loop fetches a batch from a data loader on every iteration
  }
  // A training loop over a loader: the training step is shown.
  torch::Tensor total = torch::zeros({});
  int64_t batch_idx = 0;
  for (auto &batch : *loader) {
    opt.zero_grad();
    auto loss = torch::nll_loss(net->forward(batch.data), batch.target);
    loss.backward();
    opt.step();
    total += loss.detach(); // stays on the device
    if (batch_idx++ % 10 == 0)
      std::printf("loss %.4f\n", loss.item<float>()); // logging interval
    float now = loss.item<float>();
    // CHECK-MESSAGES: :[[@LINE-1]]:22: warning: 'Tensor::item' makes the host wait for the device on every iteration of this training loop
    // CHECK-MESSAGES: :[[@LINE-7]]:10: note: this loop runs a training step: 'backward' is called here
    (void)now;
  }
  std::cout << total.item<float>() << "\n"; // once, after the loop
}

// The LibTorch MNIST example's shape: a template over the loader type.
template <typename DataLoader>
void train(NetImpl &model, DataLoader &data_loader,
           torch::optim::Optimizer &optimizer) {
  size_t batch_idx = 0;
  for (auto &batch : data_loader) {
    optimizer.zero_grad();
    auto output = model.forward(batch.data);
    auto loss = torch::nll_loss(output, batch.target);
    AT_ASSERT(!std::isnan(loss.template item<float>()));
    // CHECK-MESSAGES: :[[@LINE-1]]:41: warning: 'Tensor::item' makes the host wait for the device on every iteration of this training loop
    loss.backward();
    // CHECK-MESSAGES: :[[@LINE-1]]:10: note: this loop runs a training step: 'backward' is called here
    optimizer.step();
    if (batch_idx++ % 10 == 0)
      std::printf("%.4f\n", loss.template item<float>());
  }
}

void run_train(Net &net, torch::optim::SGD &opt) {
  auto loader = torch::data::make_data_loader(
      torch::data::datasets::MNIST("data").map(
          torch::data::transforms::Stack<>()),
      64);
  train(*net, *loader, opt);
}

// Evaluation under NoGradGuard is still hot: one wait per batch.
template <typename Loader>
void evaluate(Net &net, Loader &loader) {
  torch::NoGradGuard no_grad;
  int64_t correct = 0;
  torch::Tensor hits = torch::zeros({}, torch::kLong);
  for (const auto &batch : loader) {
    auto pred = net->forward(batch.data).argmax(1);
    correct += pred.eq(batch.target).sum().template item<int64_t>();
    // CHECK-MESSAGES: :[[@LINE-1]]:53: warning: 'Tensor::item' makes the host wait for the device on every iteration of this inference loop
    // CHECK-MESSAGES: :[[@LINE-3]]:22: note: this loop runs the model: 'forward' is called here
    hits += pred.eq(batch.target).sum(); // device-side accumulation
  }
  std::cout << correct << " " << hits.item<int64_t>() << "\n";
}

void run_evaluate(Net &net) {
  auto loader = torch::data::make_data_loader(
      torch::data::datasets::MNIST("data").map(
          torch::data::transforms::Stack<>()),
      64);
  evaluate(net, *loader);
}

void nested(Net &net, torch::Tensor x) {
  for (int epoch = 0; epoch < 10; ++epoch) {
    auto loss = net->forward(x).sum();
    loss.backward();
    // A loop nested in a hot loop is hot too: the outer marker is shown.
    for (const auto &p : net->parameters()) {
      std::cout << p.norm().item<float>();
      // CHECK-MESSAGES: :[[@LINE-1]]:29: warning: 'Tensor::item' makes the host wait for the device on every iteration of this training loop
      // CHECK-MESSAGES: :[[@LINE-5]]:10: note: this loop runs a training step: 'backward' is called here
      int j = 0;
      while (j++ < 2)
        std::cout << p[0].item<float>();
      // CHECK-MESSAGES: :[[@LINE-1]]:27: warning: 'Tensor::item'
      // CHECK-MESSAGES: :[[@LINE-10]]:10: note: this loop runs a training step: 'backward'
    }
    // A nested loop hot by itself shows its own marker.
    for (int micro = 0; micro < 4; ++micro) {
      auto out = net->forward(x);
      std::cout << out.sum().item<float>();
      // CHECK-MESSAGES: :[[@LINE-1]]:30: warning: 'Tensor::item' makes the host wait for the device on every iteration of this inference loop
      // CHECK-MESSAGES: :[[@LINE-3]]:23: note: this loop runs the model: 'forward' is called here
    }
    // A closure defined in the loop runs in it.
    auto report = [&] { return loss.item<double>(); };
    // CHECK-MESSAGES: :[[@LINE-1]]:37: warning: 'Tensor::item'
    report();
  }
}

void guards(torch::Tensor loss, int log_interval) {
  for (int step = 0; step < 1000; ++step) {
    loss.backward();
    if (step % log_interval == 0)
      std::cout << loss.item<float>() << "\n";
    if ((step + 1) % 100 == 0) {
      std::cout << "step " << step << ": " << loss << "\n";
      torch::cuda::synchronize();
    }
    if (step % log_interval == 0 && loss.item<float>() > 1.0f)
      // CHECK-MESSAGES: :[[@LINE-1]]:42: warning: 'Tensor::item' makes the host wait
      std::cout << "high loss\n";
    if (step % log_interval != 0) {
      continue;
    } else if (step > 0) {
      std::cout << loss.item<float>();
      // CHECK-MESSAGES: :[[@LINE-1]]:25: warning: 'Tensor::item' makes the host wait
    }
    if (step > 10)
      std::cout << loss.item<float>();
      // CHECK-MESSAGES: :[[@LINE-1]]:25: warning: 'Tensor::item' makes the host wait
  }
}
