// RUN: %check_torch_tidy %s torch-sync-in-loop %t -- %torch_flags

// Tensors the device analysis knows are on the CPU: .item(), .cpu() and
// .to(kCPU) of them wait for no device. Each loop also has a near miss.
#include <torch/script.h>
#include <torch/torch.h>

struct NetImpl : torch::nn::Module {
  NetImpl() : fc(register_module("fc", torch::nn::Linear(784, 10))) {}
  torch::Tensor forward(torch::Tensor x) { return fc(x.view({-1, 784})); }
  torch::nn::Linear fc;
};
TORCH_MODULE(Net);

// A data loader yields CPU batches; real projects move them "to the CPU"
// on every step.
void loader_batches(Net &net, torch::optim::SGD &opt, torch::Device device) {
  auto loader = torch::data::make_data_loader(
      torch::data::datasets::MNIST("data").map(
          torch::data::transforms::Stack<>()),
      64);
  for (auto &batch : *loader) {
    auto data = batch.data.to(torch::kCPU);
    auto target = batch.target.cpu();
    int64_t first = batch.target[0].item<int64_t>();
    opt.zero_grad();
    auto loss = torch::nll_loss(net->forward(data.to(device)),
                                target.to(device));
    loss.backward();
    opt.step();
    float value = loss.item<float>(); // near miss: the loss is not on the CPU
    // CHECK-MESSAGES: :[[@LINE-1]]:24: warning: 'Tensor::item' makes the host wait for the device on every iteration of this training loop
    // CHECK-MESSAGES: :[[@LINE-4]]:10: note: this loop runs a training step: 'backward' is called here
    (void)first;
    (void)value;
  }
}

// Random draws on the CPU, to decide on the host.
void random_draws(Net &net, torch::Tensor x) {
  for (int step = 0; step < 100; ++step) {
    auto out = net->forward(x);
    if (torch::rand(1)[0].item<float>() < 0.1f)
      continue;
    double p = torch::rand({1}).item<double>();
    auto noise = torch::randn({4}).cpu();
    auto picked = torch::randint(10, {1}).to(torch::kCPU);
    float m = out.sum().item<float>(); // near miss: the model's output
    // CHECK-MESSAGES: :[[@LINE-1]]:25: warning: 'Tensor::item' makes the host wait for the device on every iteration of this inference loop
    // CHECK-MESSAGES: :[[@LINE-8]]:21: note: this loop runs the model: 'forward' is called here
    (void)p;
    (void)m;
  }
}

// In a lambda: the lambda body has its own device facts.
void in_lambda(Net &net, torch::Tensor x) {
  auto epoch = [&] {
    for (int step = 0; step < 10; ++step) {
      auto out = net->forward(x);
      float r = torch::rand(1)[0].item<float>();
      float m = out.sum().item<float>(); // near miss
      // CHECK-MESSAGES: :[[@LINE-1]]:27: warning: 'Tensor::item' makes the host wait for the device on every iteration of this inference loop
      // CHECK-MESSAGES: :[[@LINE-4]]:23: note: this loop runs the model: 'forward' is called here
      (void)r;
      (void)m;
    }
  };
  epoch();
}

// A tensor in a struct of a data-loader batch (annotation tensors a loss's
// target builder reads element by element) is on the CPU like the batch.
struct Captions {
  torch::Tensor ids, lengths;
};
using CaptionExample = torch::data::Example<torch::Tensor, Captions>;
struct CaptionSet : torch::data::datasets::Dataset<CaptionSet, CaptionExample> {
  CaptionExample get(size_t) override {
    return {torch::rand({4}), {torch::ones({3}), torch::ones({1})}};
  }
  torch::optional<size_t> size() const override { return 8; }
};
void caption_batches(Net &net, torch::optim::SGD &opt, torch::Device device) {
  auto loader = torch::data::make_data_loader(CaptionSet(), 4);
  for (auto &batch : *loader) {
    for (auto &example : batch) {
      auto loss = net->forward(example.data.to(device)).sum();
      loss.backward();
      opt.step();
      for (int64_t i = 0; i < example.target.ids.size(0); ++i) {
        int64_t id = example.target.ids[i].item<int64_t>();
        int64_t len = example.target.lengths[0].item<int64_t>();
        float l = loss.item<float>();
        // CHECK-MESSAGES: :[[@LINE-1]]:24: warning: 'Tensor::item' makes the host wait
        (void)id;
        (void)len;
        (void)l;
      }
    }
  }
}

// Shape-dependent ops and printing on a CPU copy wait for nothing either;
// on the device tensor they do.
void nms_on_host(Net &net, torch::Tensor x, torch::Device device) {
  for (int frame = 0; frame < 10; ++frame) {
    auto dets = net->forward(x.to(device));
    auto host = dets.cpu();
    // CHECK-MESSAGES: :[[@LINE-1]]:22: warning: 'Tensor::cpu' makes the host wait
    auto keep = torch::nonzero(host.select(1, 0) > 0.5);
    std::cout << host << std::endl;
    auto on_device = torch::nonzero(dets.select(1, 0) > 0.5);
    // CHECK-MESSAGES: :[[@LINE-1]]:22: warning: 'at::nonzero' makes the host wait
    (void)keep, (void)on_device;
  }
}

// A tensor placed by a switch, to the CPU in one configuration and to a
// device in the other: the CPU branch runs where there is no device to wait
// for. A copy to the CPU beside anything else is still a wait.
void placed(Net &net, torch::Tensor x, torch::Tensor cov, bool cpu_only,
            bool keep_host_copy, torch::optim::SGD &opt) {
  for (int step = 0; step < 10; ++step) {
    auto out = net->forward(x.cuda());
    torch::Tensor c = cov.expand_as(out);
    if (cpu_only) {
      c = c.to(torch::kCPU);
    } else {
      c = c.to(torch::Device(torch::kCUDA, 0));
    }
    torch::Tensor h = out * 2;
    if (keep_host_copy)
      h = h.to(torch::kCPU);
    // CHECK-MESSAGES: :[[@LINE-1]]:13: warning: 'Tensor::to' toward the CPU makes the host wait
    else
      h = h.to(torch::kHalf);
    auto loss = (out * c).sum() + h.sum().to(torch::kFloat).cuda();
    opt.zero_grad();
    loss.backward();
    opt.step();
  }
}

// A module held by a std::shared_ptr, used through `->` (which libstdc++
// declares in a base class of shared_ptr): made here, it is on the CPU;
// moved, on the device it was moved to.
struct RegressionImpl : torch::nn::Module {
  RegressionImpl(int in, int out)
      : fc(register_module("fc", torch::nn::Linear(in, out))) {}
  torch::Tensor forward(torch::Tensor x) { return fc(x); }
  torch::nn::Linear fc;
};

void shared_modules(torch::Device device) {
  auto on_host = std::make_shared<RegressionImpl>(5, 10);
  auto moved = std::make_shared<RegressionImpl>(5, 10);
  moved->to(device);
  torch::optim::SGD opt(on_host->parameters(), 0.01);
  for (int epoch = 0; epoch < 100; ++epoch) {
    auto loss = on_host->forward(torch::randn({10, 5})).pow(2).mean();
    opt.zero_grad();
    loss.backward();
    opt.step();
    std::cout << loss.item<float>() << std::endl; // near miss: the CPU
    auto out = moved->forward(torch::randn({10, 5}, device)).sum();
    std::cout << out.item<float>() << std::endl;
    // CHECK-MESSAGES: :[[@LINE-1]]:22: warning: 'Tensor::item' makes the host wait
  }
}

// A module whose constructor is given a device creates its state there
// (round 34's reward normalizer): its output is on that device. Given the
// CPU, on the CPU.
struct NormalizerImpl : torch::nn::Module {
  NormalizerImpl(float gamma, torch::Device device)
      : mean(register_buffer("mean", torch::zeros({1}, device))),
        gamma(gamma) {}
  torch::Tensor forward(torch::Tensor r) { return (r - mean) * gamma; }
  torch::Tensor mean;
  float gamma;
};

void created_on_device(Net &net, torch::optim::SGD &opt,
                       torch::Device device) {
  auto normalizer = std::make_shared<NormalizerImpl>(0.99f, device);
  auto host_normalizer = std::make_shared<NormalizerImpl>(0.99f, torch::kCPU);
  for (int step = 0; step < 100; ++step) {
    auto rewards = normalizer->forward(torch::rand({8}, device));
    float r = rewards.mean().item<float>();
    // CHECK-MESSAGES: :[[@LINE-1]]:30: warning: 'Tensor::item' makes the host wait
    auto host = host_normalizer->forward(torch::rand({8}));
    float h = host.mean().item<float>(); // near miss: the CPU
    auto loss = net->forward(torch::rand({1, 784}, device)).sum() * r * h;
    opt.zero_grad();
    loss.backward();
    opt.step();
  }
}

// A TorchScript module's output is where its inputs are.
void scripted(torch::jit::Module &module, torch::Device device) {
  for (int i = 0; i < 10; i++) {
    torch::Tensor input = torch::rand({1, 3, 8, 8});
    torch::Tensor output = module.forward({input}).toTensor();
    std::cout << output.slice(1, 0, 5) << std::endl; // near miss: the CPU
    torch::Tensor moved = module.forward({input.to(device)}).toTensor();
    std::cout << moved.slice(1, 0, 5) << std::endl;
    // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: printing a tensor with 'operator<<' makes the host wait
  }
}

// ... also when the inputs are pushed into a local vector first.
void scriptedPushed(torch::jit::Module &module, torch::Device device) {
  for (int i = 0; i < 10; i++) {
    torch::Tensor input = torch::rand({1, 3, 8, 8});
    std::vector<torch::jit::IValue> on_host;
    on_host.push_back(input);
    torch::Tensor output = module.forward(on_host).toTensor();
    std::cout << output.slice(1, 0, 5) << std::endl; // near miss: the CPU
    std::vector<torch::jit::IValue> inputs;
    inputs.emplace_back(input.to(device));
    torch::Tensor moved = module.forward(inputs).toTensor();
    std::cout << moved.slice(1, 0, 5) << std::endl;
    // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: printing a tensor with 'operator<<' makes the host wait
  }
}

// ... and the elements of its output tuple, kept in a local IValue first.
void scriptedTuple(torch::jit::Module &module, torch::Device device) {
  for (int i = 0; i < 10; i++) {
    torch::Tensor input = torch::rand({1, 3, 8, 8});
    auto val = module.forward({input});
    torch::Tensor cls = val.toTuple()->elements()[0].toTensor();
    std::cout << cls.slice(1, 0, 5) << std::endl; // near miss: the CPU
    auto moved = module.forward({input.to(device)});
    torch::Tensor reg = moved.toTuple()->elements()[1].toTensor();
    std::cout << reg.slice(1, 0, 5) << std::endl;
    // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: printing a tensor with 'operator<<' makes the host wait
  }
}

// A branch that runs only on the CPU waits for no device: the program tests
// its device (`device == torch::kCPU`, `!device.is_cuda()`,
// `!torch::cuda::is_available()`); the other branch runs with a GPU.
void branchesOnTheDevice(torch::jit::Module &module, torch::Device device,
                         torch::Tensor input) {
  for (int i = 0; i < 10; i++) {
    torch::Tensor out = module.forward({input}).toTensor();
    torch::Tensor pred;
    if (device == torch::kCPU) {
      pred = out.to(at::kCPU); // near miss: the CPU build
    } else if (device == torch::kCUDA) {
      pred = out.to(torch::kFloat).to(at::kCPU);
      // CHECK-MESSAGES: :[[@LINE-1]]:36: warning: 'Tensor::to' toward the CPU makes the host wait for the device on every iteration of this inference loop
      // CHECK-MESSAGES: :[[@LINE-7]]:32: note: this loop runs the model: 'forward' is called here
    }
    if (!device.is_cuda())
      std::cout << out.sum().item<float>() << "\n"; // near miss: the CPU
    else
      std::cout << out.max().item<float>() << "\n";
    // CHECK-MESSAGES: :[[@LINE-1]]:30: warning: 'Tensor::item' makes the host wait for the device on every iteration of this inference loop
    // CHECK-MESSAGES: :[[@LINE-14]]:32: note: this loop runs the model: 'forward' is called here
    if (torch::kCUDA != device.type())
      std::cout << out.min().item<float>() << "\n"; // near miss: the CPU
    if (!torch::cuda::is_available())
      std::cout << out.mean().item<float>() << "\n"; // near miss: the CPU
    if (torch::cuda::is_available())
      std::cout << out.mean().item<float>() << "\n";
    // CHECK-MESSAGES: :[[@LINE-1]]:31: warning: 'Tensor::item' makes the host wait for the device on every iteration of this inference loop
    // CHECK-MESSAGES: :[[@LINE-22]]:32: note: this loop runs the model: 'forward' is called here
  }
}

// A CPU device kept in a variable: `.to(cpu_device)` of a device tensor
// waits like `.to(torch::kCPU)`, inline and in a helper called per step,
// and reads of the copy wait for nothing (near misses).
struct Priorities {
  void update(torch::Tensor delta_dev) {
    torch::Device cpu_device(torch::kCPU);
    torch::Tensor delta = delta_dev.to(cpu_device);
    for (int64_t i = 0; i < delta.size(0); ++i)
      total += delta[i].item<float>(); // near miss: the CPU copy
  }
  float total = 0;
};

void rollout(Net &net, torch::optim::SGD &opt, Priorities &priorities,
             torch::Device device) {
  torch::Device cpu_device(torch::kCPU);
  net->to(device);
  for (int step = 0; step < 100; ++step) {
    torch::Tensor probs = net->forward(torch::rand({1, 784}, device));
    torch::Tensor host = probs.to(cpu_device);
    // CHECK-MESSAGES: :[[@LINE-1]]:32: warning: 'Tensor::to' toward the CPU makes the host wait for the device on every iteration of this training loop
    // CHECK-MESSAGES: :[[@LINE+7]]:10: note: this loop runs a training step: 'backward' is called here
    float first = host[0][0].item<float>(); // near miss: the CPU copy
    torch::Tensor loss = probs.sum();
    priorities.update(loss.detach());
    // CHECK-MESSAGES: :[[@LINE-1]]:16: warning: 'Priorities::update' makes the host wait for the device on every iteration of this training loop: it calls 'Tensor::to' inside
    // CHECK-MESSAGES: :[[@LINE-20]]:37: note: the host waits here
    // CHECK-MESSAGES: :[[@LINE+1]]:10: note: this loop runs a training step: 'backward' is called here
    loss.backward();
    opt.step();
  }
}

// The same in template code that the unit instantiates: the device analysis
// reads the instantiation.
template <typename Model>
void templatedRollout(Model &net, torch::Device device) {
  torch::Device cpu_device(torch::kCPU);
  for (int step = 0; step < 100; ++step) {
    torch::Tensor probs = net->forward(torch::rand({1, 784}, device));
    torch::Tensor host = probs.to(cpu_device);
    // CHECK-MESSAGES: :[[@LINE-1]]:32: warning: 'Tensor::to' toward the CPU makes the host wait for the device on every iteration of this inference loop
    // CHECK-MESSAGES: :[[@LINE-3]]:32: note: this loop runs the model: 'forward' is called here
    for (int64_t i = 0; i < host.size(1); ++i)
      host[0][i].item<float>(); // near miss: the CPU copy
  }
}
template void templatedRollout<Net>(Net &, torch::Device);

// A LibTorch layer without weights computes where its input is, even one
// built here and never moved (round 16: a local Softmax after a model that
// a GPU branch moves, in an instantiated template).
template <typename Model>
void classifyFiles(Model &net, const std::vector<std::string> &files) {
  bool use_cuda = torch::cuda::is_available();
  torch::nn::Softmax softmax(torch::nn::SoftmaxOptions(1));
  for (const std::string &file : files) {
    torch::Tensor image = torch::rand({1, 784});
    if (use_cuda) {
      net->to(torch::kCUDA);
      image = image.to(torch::kCUDA);
    }
    torch::Tensor output = softmax->forward(net->forward(image)).argmax(1);
    output = output.to(torch::kCPU);
    // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: 'Tensor::to' toward the CPU makes the host wait for the device on every iteration of this inference loop
    // CHECK-MESSAGES: :[[@LINE-3]]:37: note: this loop runs the model: 'forward' is called here
    // Near miss: the CPU copy.
    std::cout << file << " " << output.item<int64_t>() << "\n";
  }
}
template void classifyFiles<Net>(Net &, const std::vector<std::string> &);

// The tensors of a LibTorch op's tuple are on its operands' device
// (std::get<1>(torch::max(out, 1))): on the CPU here, as the batches are.
void cpuTestCase(Net &net) {
  torch::Device device = torch::kCPU;
  net->to(device);
  auto loader = torch::data::make_data_loader(
      torch::data::datasets::MNIST("data").map(
          torch::data::transforms::Stack<>()),
      64);
  int64_t correct = 0;
  for (auto &batch : *loader) {
    auto data = batch.data.to(device);
    auto labels = batch.target.to(device);
    auto predictions = torch::max(net->forward(data), 1);
    auto predicted = std::get<1>(predictions);
    correct += (predicted == labels).sum().item<int64_t>(); // near miss
  }
  std::cout << correct << "\n";
}

// A CPU copy, or the CPU copy plus noise that a function of the program
// returns on the CPU, passed to a helper that reads it per element.
torch::Tensor dirichletNoise(int64_t n) {
  std::vector<float> alpha(n, 0.3f);
  return torch::_sample_dirichlet(torch::tensor(alpha));
}
struct TreeNode {
  double prior_sum = 0;
  void expand(const torch::Tensor &prior, int64_t actions) {
    for (int64_t a = 0; a < actions; ++a)
      prior_sum += prior[a].item<double>(); // near miss: a CPU tensor
  }
};
void simulate(Net &net, TreeNode &node, bool add_noise) {
  torch::Device device(torch::kCUDA);
  net->to(device);
  for (int s = 0; s < 400; ++s) {
    torch::Tensor policy = net->forward(torch::rand({1, 784}, device));
    torch::Tensor prior = policy[0].to(torch::kCPU);
    // CHECK-MESSAGES: :[[@LINE-1]]:37: warning: 'Tensor::to' toward the CPU makes the host wait for the device on every iteration of this inference loop
    // CHECK-MESSAGES: :[[@LINE-3]]:33: note: this loop runs the model: 'forward' is called here
    if (add_noise)
      prior = 0.75 * prior + 0.25 * dirichletNoise(10);
    node.expand(prior, 10);
  }
}

// A device picked by comparing a string the program fixes: `mode` is "cpu"
// and only read, so the program runs on the CPU. Near misses: `mode` set to
// "cuda", or changed after its declaration.
void fixedMode(Net &net) {
  std::string mode = "cpu";
  torch::Device device = (mode == "cuda") ? torch::kCUDA : torch::kCPU;
  net->to(device);
  for (int s = 0; s < 100; ++s) {
    auto out = net->forward(torch::rand({1, 784}, device));
    float best = out.max().item<float>(); // near miss: on the CPU
    std::cout << best << "\n";
  }
}
void fixedCpuName(Net &net) {
  std::string name = "cpu";
  torch::Device device(name);
  net->to(device);
  for (int s = 0; s < 100; ++s) {
    auto out = net->forward(torch::rand({1, 784}, device));
    std::cout << out.max().item<float>() << "\n"; // near miss: on the CPU
  }
}
void fixedCudaMode(Net &net) {
  const std::string mode = "cuda";
  torch::Device device(mode);
  net->to(device);
  for (int s = 0; s < 100; ++s) {
    auto out = net->forward(torch::rand({1, 784}, device));
    float best = out.max().item<float>();
    // CHECK-MESSAGES: :[[@LINE-1]]:28: warning: 'Tensor::item' makes the host wait for the device on every iteration of this inference loop
    // CHECK-MESSAGES: :[[@LINE-3]]:21: note: this loop runs the model: 'forward' is called here
    std::cout << best << "\n";
  }
}
void changedMode(Net &net, int argc) {
  std::string mode = "cpu";
  if (argc > 1)
    mode = "cuda";
  torch::Device device = (mode == "cuda") ? torch::kCUDA : torch::kCPU;
  net->to(device);
  for (int s = 0; s < 100; ++s) {
    auto out = net->forward(torch::rand({1, 784}, device));
    float best = out.max().item<float>();
    // CHECK-MESSAGES: :[[@LINE-1]]:28: warning: 'Tensor::item' makes the host wait for the device on every iteration of this inference loop
    // CHECK-MESSAGES: :[[@LINE-3]]:21: note: this loop runs the model: 'forward' is called here
    std::cout << best << "\n";
  }
}

// A function whose model is placed on `device`, the CPU on every path:
// `.to(device)` is where it computes, and copies nothing off a GPU (near
// misses, also of tensors whose device the analysis does not know).
void cpuTrainer(std::vector<torch::Tensor> features) {
  torch::Device device(torch::kCPU);
  if (!torch::cuda::is_available())
    device = torch::Device(torch::kCPU);
  Net net;
  net->to(device);
  torch::optim::SGD opt(net->parameters(), 0.1);
  for (auto &feat : features) {
    auto emb = net->forward(feat.to(device)).to(device); // near misses
    auto loss = emb.sum().to(device);                    // near miss
    opt.zero_grad();
    loss.backward();
    opt.step();
  }
}

// A function of the program that takes the model by reference and only
// calls its members keeps it where it is; one that moves it does not.
struct PlainNet : torch::nn::Module {
  PlainNet() : fc(register_module("fc", torch::nn::Linear(784, 10))) {}
  torch::Tensor forward(torch::Tensor x) { return fc(x); }
  torch::nn::Linear fc;
};
void prepare(PlainNet &model) { model.train(); }
void toGpu(PlainNet &model) { model.to(torch::kCUDA); }
void keptOnCPU() {
  torch::Device device(torch::kCPU);
  PlainNet model;
  model.to(device);
  prepare(model);
  for (int s = 0; s < 100; ++s) {
    auto out = model.forward(torch::rand({1, 784}));
    std::cout << out.max().item<float>() << "\n"; // near miss: on the CPU
  }
}
void movedByHelper() {
  torch::Device device(torch::kCPU);
  PlainNet model;
  model.to(device);
  toGpu(model);
  for (int s = 0; s < 100; ++s) {
    auto out = model.forward(torch::rand({1, 784}).cuda());
    std::cout << out.max().item<float>() << "\n";
    // CHECK-MESSAGES: :[[@LINE-1]]:28: warning: 'Tensor::item' makes the host wait for the device on every iteration of this inference loop
    // CHECK-MESSAGES: :[[@LINE-3]]:22: note: this loop runs the model: 'forward' is called here
  }
}

// A helper called per step whose only reads are of CPU tensors, or under a
// periodic guard, hides no wait (near misses); one that reads the device's
// output on every call does.
struct EpsilonAgent {
  Net net;
  float epsilon = 0.1f;
  torch::Tensor act(torch::Tensor state, long step) {
    if (torch::rand({1}).item<float>() < epsilon)
      return torch::randint(0, 10, {1, 1});
    torch::Tensor q = net->forward(state).detach();
    if (step % 4000 == 0)
      std::cout << torch::argmax(q, 1, true).item<long>() << "\n";
    return torch::argmax(q, 1, true);
  }
  long greedy(torch::Tensor state) {
    return torch::argmax(net->forward(state), 1).item<long>();
  }
};
void runAgent(EpsilonAgent &agent, torch::optim::SGD &opt) {
  torch::Device device(torch::kCUDA);
  agent.net->to(device);
  for (long step = 0; step < 1000; ++step) {
    auto state = torch::rand({1, 784}, device);
    auto action = agent.act(state, step).to(device); // near miss
    long best = agent.greedy(state);
    // CHECK-MESSAGES: :[[@LINE-1]]:23: warning: 'EpsilonAgent::greedy' makes the host wait for the device on every iteration of this training loop: it calls 'Tensor::item' inside
    // CHECK-MESSAGES: :[[@LINE-11]]:50: note: the host waits here
    // CHECK-MESSAGES: :[[@LINE+2]]:45: note: this loop runs a training step: 'backward' is called here
    opt.zero_grad();
    (action.to(torch::kFloat).sum() * best).backward();
    opt.step();
  }
}

// A device the enclosing function initialises and never changes is what a
// lambda capturing it sees: the CPU here (the program's "simple enough to
// train on CPUs" choice), so the per-character reads wait for nothing.
// Near misses: a captured device set to CUDA, and one the function changes
// later (unknown in the lambda, as any capture).
void captured_cpu_device(Net &net) {
  torch::Device device(torch::kCPU);
  net->to(device);
  auto sample = [&net, &device](torch::Tensor x) {
    for (int i = 0; i < 20; ++i) {
      auto out = net->forward(x.to(device));
      if (out.argmax().item<int64_t>() == 0) // near miss
        break;
    }
  };
  sample(torch::rand({1, 784}));
}
void captured_cuda_device(Net &net) {
  torch::Device device(torch::kCUDA);
  net->to(device);
  auto sample = [&net, &device](torch::Tensor x) {
    for (int i = 0; i < 20; ++i) {
      auto out = net->forward(x.to(device));
      if (out.argmax().item<int64_t>() == 0)
        break;
      // CHECK-MESSAGES: :[[@LINE-2]]:24: warning: 'Tensor::item' makes the host wait for the device on every iteration of this inference loop
      // CHECK-MESSAGES: :[[@LINE-4]]:23: note: this loop runs the model: 'forward' is called here
    }
  };
  sample(torch::rand({1, 784}));
}
void captured_changed_device(Net &net, bool gpu) {
  torch::Device device(torch::kCPU);
  if (gpu)
    device = torch::Device(torch::kCUDA);
  net->to(device);
  auto sample = [&net, &device](torch::Tensor x) {
    for (int i = 0; i < 20; ++i) {
      auto out = net->forward(x.to(device));
      if (out.argmax().item<int64_t>() == 0)
        break;
      // CHECK-MESSAGES: :[[@LINE-2]]:24: warning: 'Tensor::item' makes the host wait for the device on every iteration of this inference loop
      // CHECK-MESSAGES: :[[@LINE-4]]:23: note: this loop runs the model: 'forward' is called here
    }
  };
  sample(torch::rand({1, 784}));
}

// Tensors assigned through std::tie take the device of the tuple's
// elements: a recurrent module's output and hidden state (on the module's
// device), topk's values and indices (on its input's). A char-RNN sampling
// lambda of a program that keeps its model on the CPU reads CPU indices.
// Near miss: the same loop with the model on CUDA.
struct RnnImpl : torch::nn::Module {
  RnnImpl() : fc(register_module("fc", torch::nn::Linear(10, 10))) {}
  std::tuple<torch::Tensor, torch::Tensor> forward(torch::Tensor x,
                                                   torch::Tensor h) {
    return {fc(x), fc(h)};
  }
  torch::nn::Linear fc;
};
void tie_on_cpu() {
  torch::Device device(torch::kCPU);
  auto rnn = std::make_shared<RnnImpl>();
  rnn->to(device);
  auto sample = [&rnn, &device](torch::Tensor x) {
    torch::Tensor output, hidden = torch::zeros({1, 10}).to(device);
    for (int i = 0; i < 20; ++i) {
      std::tie(output, hidden) = rnn->forward(x.to(device), hidden);
      torch::Tensor topv, topi;
      std::tie(topv, topi) = output.topk(1);
      if (topi[0][0].item<int64_t>() == 0) // near miss
        break;
    }
  };
  sample(torch::rand({1, 10}));
}
void tie_on_cuda() {
  torch::Device device(torch::kCUDA);
  auto rnn = std::make_shared<RnnImpl>();
  rnn->to(device);
  torch::Tensor output, hidden = torch::zeros({1, 10}, device);
  for (int i = 0; i < 20; ++i) {
    std::tie(output, hidden) = rnn->forward(torch::rand({1, 10}, device), hidden);
    torch::Tensor topv, topi;
    std::tie(topv, topi) = output.topk(1);
    if (topi[0][0].item<int64_t>() == 0)
      break;
    // CHECK-MESSAGES: :[[@LINE-2]]:20: warning: 'Tensor::item' makes the host wait for the device on every iteration of this inference loop
    // CHECK-MESSAGES: :[[@LINE-6]]:37: note: this loop runs the model: 'forward' is called here
  }
}

// A helper given CPU copies (round 29): its waits, and those of the helper
// it calls, read its parameters and wait for nothing at that call. Given
// the device tensors, the same call waits.
torch::Tensor normalize_depth(const torch::Tensor &depth) {
  auto valid = depth.masked_select(depth > 0);
  float lo = valid.min().item<float>();
  return depth - lo;
}
torch::Tensor colormap(const torch::Tensor &gray) { return gray.cpu() * 255; }
torch::Tensor comparison(const torch::Tensor &pred, const torch::Tensor &gt,
                         const torch::Tensor &rgb = torch::Tensor()) {
  auto pred_2d = pred.dim() == 3 ? pred.squeeze(0) : pred;
  return torch::cat({colormap(normalize_depth(pred_2d)), normalize_depth(gt)});
}
void visualize_depth(Net &net) {
  torch::Device device(torch::kCUDA);
  net->to(device);
  torch::NoGradGuard no_grad;
  for (int i = 0; i < 8; ++i) {
    auto gt = torch::rand({784}).to(device);
    auto pred = net->forward(gt);
    auto on_host = comparison(pred.cpu(), gt.cpu());
    // CHECK-MESSAGES: :[[@LINE-1]]:36: warning: 'Tensor::cpu' makes the host wait for the device on every iteration of this inference loop
    // CHECK-MESSAGES: :[[@LINE-3]]:22: note: this loop runs the model: 'forward' is called here
    // CHECK-MESSAGES: :[[@LINE-3]]:46: warning: 'Tensor::cpu' makes the host wait
    // CHECK-MESSAGES: :[[@LINE-5]]:22: note: this loop runs the model: 'forward' is called here
    auto on_device = comparison(pred.cpu(), gt);
    // CHECK-MESSAGES: :[[@LINE-1]]:22: warning: 'comparison' makes the host wait for the device on every iteration of this inference loop: it calls 'Tensor::masked_select' inside
    // CHECK-MESSAGES: :[[@LINE-24]]:22: note: the host waits here
    // CHECK-MESSAGES: :[[@LINE-9]]:22: note: this loop runs the model: 'forward' is called here
    // CHECK-MESSAGES: :[[@LINE-4]]:38: warning: 'Tensor::cpu' makes the host wait
    // CHECK-MESSAGES: :[[@LINE-11]]:22: note: this loop runs the model: 'forward' is called here
  }
}

// A model restored with torch::load is where its checkpoint was saved
// (round 33): its outputs may be on the GPU. A fresh one is on the CPU.
void restored(const std::string &path) {
  Net loaded;
  torch::load(loaded, path);
  Net fresh;
  for (int i = 0; i < 5; ++i) {
    auto restored_out = loaded->forward(torch::rand({1, 784}));
    std::cout << restored_out << std::endl;
    // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: printing a tensor with 'operator<<' makes the host wait for the device on every iteration of this inference loop
    // CHECK-MESSAGES: :[[@LINE-3]]:33: note: this loop runs the model: 'forward' is called here
    auto fresh_out = fresh->forward(torch::rand({1, 784}));
    std::cout << fresh_out << std::endl; // near miss
  }
}
