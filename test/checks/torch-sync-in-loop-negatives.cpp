// RUN: %check_torch_tidy %s torch-sync-in-loop %t -- %torch_flags
// RUN: %check_torch_tidy --via plugin --no-compile %s torch-sync-in-loop %t.plugin -- %torch_flags

// Nothing here is a wait on every training or inference step.
#include <torch/torch.h>
#include <algorithm>
#include <chrono>
#include <vector>

struct NetImpl : torch::nn::Module {
  NetImpl() : fc(register_module("fc", torch::nn::Linear(4, 2))) {}
  torch::Tensor forward(torch::Tensor x) { return fc(x); }
  torch::nn::Linear fc;
};
TORCH_MODULE(Net);

void after_training(Net &net, torch::optim::SGD &opt, torch::Tensor x,
                    torch::Tensor y) {
  torch::Tensor total = torch::zeros({});
  torch::Tensor hits = torch::zeros({}, torch::kLong);
  for (int step = 0; step < 100; ++step) {
    opt.zero_grad();
    auto out = net->forward(x);
    auto loss = torch::mse_loss(out, y);
    loss.backward();
    opt.step();
    total += loss.detach();                // device-side accumulation
    hits += out.argmax(1).eq(y.argmax(1)).sum();
    auto host = x.to(torch::kCUDA);        // not toward the CPU
    x.to(torch::kCPU);                     // result unused
    std::cout << out.sizes() << "\n";      // metadata, no tensor data
    if (step % 50 == 0)
      std::cout << "loss " << loss.item<float>() << "\n";
  }
  // After the loop: once.
  std::cout << total.item<float>() / 100 << " " << hits.item<int64_t>() << "\n";
  // A loop that runs no step: printing a few weights after training.
  for (const auto &p : net->parameters())
    std::cout << p << " " << p.norm().item<float>() << "\n";
}

// Once per epoch: the step runs in the inner loop only.
void epochs(Net &net, torch::optim::SGD &opt, std::vector<torch::Tensor> &xs) {
  for (int epoch = 0; epoch < 10; ++epoch) {
    torch::Tensor epoch_loss = torch::zeros({});
    for (const auto &x : xs) {
      auto loss = net->forward(x).sum();
      loss.backward();
      opt.step();
      epoch_loss += loss.detach();
    }
    std::cout << "epoch " << epoch << ": " << epoch_loss.item<float>() << "\n";
  }
}

// Loop set-up runs once: for-init and the range of a range-for.
void setup(torch::Tensor loss, torch::Tensor x) {
  for (float l = loss.item<float>(); l > 0; l -= 1) {
    loss.backward();
  }
  for (const auto &row : x.cpu().unbind()) {
    row.backward();
  }
}

// Functions of other libraries or classes with torch-like names.
struct Queue {
  int item() const { return 0; }
  void synchronize() {}
  void backward() {}
  void step() {}
};

void lookalikes(Queue &q, std::vector<int> &a, std::vector<int> &b,
                torch::Tensor loss) {
  for (int i = 0; i < 10; ++i) {
    loss.backward();
    bool same = std::equal(a.begin(), a.end(), b.begin());
    q.synchronize();
    int v = q.item();
    (void)same;
    (void)v;
  }
  for (int i = 0; i < 10; ++i) {
    q.backward();
    q.step();
    std::cout << loss.item<float>();
  }
}

// A backward pass in a lambda that the loop does not run.
void lambdas(torch::Tensor loss) {
  for (int i = 0; i < 3; ++i) {
    auto later = [&] { loss.backward(); };
    std::cout << loss.item<float>();
    (void)later;
  }
}

// A synchronize right before or after a clock read makes the timing right:
// it is the measurement, not a stall (real benchmark loops do this).
void timed_inference(Net &net, torch::Tensor x) {
  double total_ms = 0;
  for (int i = 0; i < 100; ++i) {
    torch::cuda::synchronize();
    auto t0 = std::chrono::steady_clock::now();
    auto out = net->forward(x);
    torch::cuda::synchronize();
    auto t1 = std::chrono::steady_clock::now();
    total_ms += std::chrono::duration<double, std::milli>(t1 - t0).count();
    (void)out;
  }
}

// The same, with the wait only on a GPU (torch-unsynchronized-timing's near
// miss): a synchronize under an `if` right before or after a clock read.
void timed_inference_any_device(Net &net, torch::Tensor x,
                                torch::Device device) {
  double total_ms = 0;
  for (int i = 0; i < 100; ++i) {
    if (!device.is_cpu())
      torch::cuda::synchronize();
    auto t0 = std::chrono::high_resolution_clock::now();
    auto out = net->forward(x.to(device));
    if (device.is_cuda()) {
      torch::cuda::synchronize();
    }
    auto t1 = std::chrono::high_resolution_clock::now();
    total_ms += std::chrono::duration<double, std::milli>(t1 - t0).count();
    (void)out;
  }
}

// A latency benchmark: a loop between two clock reads that waits for each
// sample. Its waits are the measurement.
double latency_ms(Net &net, torch::Tensor x, int samples) {
  auto begin = std::chrono::steady_clock::now();
  for (int i = 0; i < samples; ++i) {
    auto out = net->forward(x);
    torch::cuda::synchronize();
  }
  auto end = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::milli>(end - begin).count() /
         samples;
}

// The same benchmark with straight-line code between the clocks and the
// loop: a stream set up before it, the last sample drained after it.
double drained_latency_ms(Net &net, torch::Tensor x, int samples,
                          c10::Stream stream) {
  auto begin = std::chrono::steady_clock::now();
  torch::Tensor out;
  for (int i = 0; i < samples; ++i) {
    if (i > 0)
      stream.synchronize();
    out = net->forward(x);
  }
  stream.synchronize();
  double last = out.sum().item<double>();
  auto end = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::milli>(end - begin).count() /
             samples +
         0 * last;
}

// A read of the output made only to wait for it, right before the end clock
// (only call-free statements between, the value not read after): the
// timing's wait, in the loop and in a helper each iteration calls.
double first_element_ms(Net &net, torch::Tensor x) {
  auto begin = std::chrono::steady_clock::now();
  auto out = net->forward(x);
  float first = out[0][0].item<float>();
  first += 1.0f;
  auto end = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::milli>(end - begin).count();
}
void benchmark_batches(Net &net) {
  for (int64_t batch = 1; batch <= 64; batch *= 2) {
    std::printf("%f\n", first_element_ms(net, torch::rand({batch, 4}).cuda()));
    auto t0 = std::chrono::steady_clock::now();
    auto out = net->forward(torch::rand({batch, 4}).cuda());
    out.sum().item<float>();
    auto t1 = std::chrono::steady_clock::now();
    std::printf("%f\n", std::chrono::duration<double>(t1 - t0).count());
  }
}

// A branch on the loop's counter equal to a constant runs once per run of
// the loop: the first batch's loss, once per epoch.
void first_batch_loss(Net &net, torch::Tensor x, int batches) {
  for (int epoch = 0; epoch < 3; ++epoch) {
    for (int i = 0; i < batches; ++i) {
      auto loss = net->forward(x).sum();
      loss.backward();
      if (i == 0)
        std::printf("%f\n", loss.item<float>());
    }
    int step = 0;
    for (int b = 0; b < batches; ++b) {
      auto loss = net->forward(x).sum();
      loss.backward();
      if (1 == step)
        std::printf("%f\n", loss.item<float>());
      step += 1;
    }
  }
}

// LibTorch's own module methods (parameters(), named_buffers()) run no
// model, whether its headers come with -isystem or -I (the libtorch-2.6
// header set includes them with -I).
void report_norms(Net &net, torch::Device device) {
  net->to(device);
  for (int i = 0; i < 3; ++i) {
    auto params = net->parameters();
    std::cout << params[0].norm().item<float>() << std::endl;
    for (const auto &b : net->named_buffers())
      std::cout << b.value().sum().item<float>();
  }
}

// The else of a test on the data that only reports is its failure path
// ("out of bounds"), not a step's work.
void build_targets(Net &net, torch::optim::SGD &opt, torch::Tensor targets,
                   torch::Tensor grid) {
  for (int step = 0; step < 10; ++step) {
    auto loss = net->forward(targets).sum();
    loss.backward();
    opt.step();
    for (int64_t i = 0; i < targets.size(0); ++i) {
      if (grid.size(0) > i) {
        grid[i] = 1;
      } else {
        std::cout << targets[i] << std::endl;
        std::cout << "Step out of boundary;" << std::endl;
      }
    }
  }
}

// A PPO update loop (round 34): each iteration collects a rollout, whose
// bootstrap value runs the model once, then trains in update()'s own
// minibatch loop. The loop runs once per update, not once per step. Near
// miss: without the training call, the same loop is an inference loop.
struct PPOTrainer {
  Net net;
  torch::optim::SGD opt{net->parameters(), 0.1};
  torch::Tensor obs = torch::rand({4, 784}, torch::kCUDA);
  float bootstrap() { return net->forward(obs).mean().item<float>(); }
  void update() {
    for (int epoch = 0; epoch < 4; ++epoch) {
      opt.zero_grad();
      net->forward(obs).sum().backward();
      opt.step();
    }
  }
  void train() {
    net->to(torch::kCUDA);
    for (int u = 0; u < 100; ++u) {
      float v = bootstrap();
      update();
      (void)v;
    }
  }
  void evaluate() {
    net->to(torch::kCUDA);
    for (int u = 0; u < 100; ++u) {
      float v = bootstrap(); // near miss
      // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: 'PPOTrainer::bootstrap' makes the host wait for the device on every iteration of this inference loop
      // CHECK-MESSAGES: :[[@LINE-21]]:55: note: the host waits here
      // CHECK-MESSAGES: :[[@LINE-3]]:17: note: this loop runs the model: 'PPOTrainer::bootstrap' calls it
      (void)v;
    }
  }
};
