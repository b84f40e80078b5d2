// RUN: %check_torch_tidy %s torch-sync-in-loop %t -- %torch_flags

// Loops that are hot by where they are (HotLoops.h): in forward(), in a
// function called once per step, over a tensor's elements; and blocking
// copies from the device into CPU tensors. Each rule has its near misses.
#include <torch/torch.h>

// A loop in forward() runs on every call of the model.
struct PyramidImpl : torch::nn::Module {
  PyramidImpl() : head(register_module("head", torch::nn::Linear(8, 8))) {}
  torch::Tensor forward(std::vector<torch::Tensor> levels) {
    torch::Tensor out = torch::zeros({1});
    for (auto &level : levels) {
      if (!level.any().item<bool>())
        // CHECK-MESSAGES: :[[@LINE-1]]:24: warning: 'Tensor::item' makes the host wait for the device on every iteration of this loop in 'PyramidImpl::forward'; accumulate on the device
        // CHECK-MESSAGES: :[[@LINE-5]]:17: note: 'PyramidImpl::forward' runs on every call of the module
        continue;
      out = out + head(level).sum();
    }
    return out;
  }
  torch::nn::Linear head;
};
TORCH_MODULE(Pyramid);

// A helper that a training loop calls: its loop runs once per step. The
// call in the training loop is not reported as well.
double grad_norms(torch::nn::Module &model) {
  double total = 0;
  for (const auto &p : model.parameters())
    total += p.grad().norm().item<double>();
  // CHECK-MESSAGES: :[[@LINE-1]]:30: warning: 'Tensor::item' makes the host wait for the device on every iteration of this loop in 'grad_norms'
  // CHECK-MESSAGES: :[[@LINE+12]]:16: note: 'grad_norms' is called here on every iteration of a training loop
  return total;
}

// Its callee, two calls from the loop.
double weight_sum(torch::nn::Module &model) { return grad_norms(model); }

void train(Pyramid &net, torch::nn::Linear &fc, torch::optim::SGD &opt,
           std::vector<torch::Tensor> xs) {
  for (int step = 0; step < 100; ++step) {
    auto loss = net->forward(xs);
    loss.backward();
    double n = grad_norms(*fc);
    opt.step();
    (void)n;
  }
  double once = weight_sum(*fc); // near miss: after the loop
  (void)once;
}

// A helper called only once: its loop is not hot.
void summarize(const std::vector<torch::Tensor> &losses) {
  for (const auto &l : losses)
    std::printf("%f\n", l.item<float>());
}

// Greedy NMS: a loop over a tensor's elements reads an index per kept box.
std::vector<int64_t> nms(torch::Tensor boxes, torch::Tensor scores, float thr) {
  std::vector<int64_t> keep;
  auto order = std::get<1>(scores.sort(0, true));
  while (order.numel() > 0) {
    int64_t i = order[0].item<int64_t>();
    // CHECK-MESSAGES: :[[@LINE-1]]:26: warning: 'Tensor::item' makes the host wait for the device on every iteration of this loop over 'order'
    // CHECK-MESSAGES: :[[@LINE-3]]:16: note: this loop runs once per element of 'order'
    keep.push_back(i);
    auto iou = (boxes - boxes[i]).abs().sum(1);
    order = order.index({iou.index({order}) > thr});
    // CHECK-MESSAGES: :[[@LINE-1]]:19: warning: 'Tensor::index' with a boolean mask makes the host wait {{.*}} because its output size depends on the data
  }
  return keep;
}

// Decoding detections: the bound comes from a local.
void decode(torch::Tensor dets) {
  const int64_t n = dets.size(0);
  for (int64_t i = 0; i < n; ++i) {
    float score = dets[i][4].item<float>();
    // CHECK-MESSAGES: :[[@LINE-1]]:30: warning: 'Tensor::item' makes the host wait for the device on every iteration of this loop over 'dets'
    (void)score;
  }
  // Near misses: the same loop over a CPU copy, and a loop over a vector.
  auto cpu = dets.to(torch::kCPU);
  for (int64_t i = 0; i < cpu.size(0); ++i)
    std::printf("%f\n", cpu[i][4].item<float>());
  std::vector<float> v(4);
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = dets[0][i].item<float>();
}

// A per-scale loop that computes a loss is named for what it is.
float multi_scale(torch::nn::MSELoss &criterion, std::vector<torch::Tensor> p,
                  std::vector<torch::Tensor> t) {
  float total = 0;
  for (size_t s = 0; s < p.size(); ++s)
    total += criterion(p[s], t[s]).item<float>();
  // CHECK-MESSAGES: :[[@LINE-1]]:36: warning: 'Tensor::item' makes the host wait for the device on every iteration of this loss-computing loop
  // CHECK-MESSAGES: :[[@LINE-2]]:14: note: this loop computes a loss: the loss module is called here
  return total;
}

// Copies from the device into a CPU buffer wait for the device.
void collect(torch::nn::Linear &model, torch::Tensor x, torch::Device device) {
  model->to(device);
  auto probs = torch::zeros({100, 10});
  auto labels = torch::zeros({100}, torch::kLong);
  auto on_device = torch::zeros({100, 10}, device);
  for (int64_t i = 0; i < 100; ++i) {
    auto out = model->forward(x.to(device));
    probs[i] = out[0];
    // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: assigning a tensor into a view copies a tensor on 'device' into a CPU tensor, which makes the host wait for the device on every iteration of this inference loop; collect the results on the device and copy them to the host once after the loop
    // CHECK-MESSAGES: :[[@LINE-3]]:23: note: this loop runs the model: 'forward' is called here
    probs.index_put_({i}, out[0]);
    // CHECK-MESSAGES: :[[@LINE-1]]:11: warning: 'Tensor::index_put_' copies a tensor on 'device' into a CPU tensor
    probs.select(0, i).copy_(out[0]);
    // CHECK-MESSAGES: :[[@LINE-1]]:24: warning: 'Tensor::copy_' copies a tensor on 'device' into a CPU tensor
    // Near misses: non-blocking, into a device tensor, from a CPU tensor,
    // and rebinding a variable.
    probs.select(0, i).copy_(out[0], /*non_blocking=*/true);
    on_device[i] = out[0];
    labels[i] = torch::ones({}, torch::kLong);
    auto last = out;
    last = out;
    (void)last;
  }
}

// A helper handed the model's parameters (gradient clipping) cannot move
// the model: the step's outputs stay on its device, and copying them into
// a CPU buffer per task still waits.
float clipGrads(std::vector<torch::Tensor> params, float max_norm);
void perTaskBuffer(torch::nn::Linear &model, torch::optim::SGD &opt,
                   std::vector<torch::Tensor> batches, torch::Device device) {
  model->to(device);
  torch::Tensor per_task = torch::zeros({4, 10});
  for (auto &b : batches) {
    opt.zero_grad();
    auto y = model->forward(b.to(device));
    y.sum().backward();
    clipGrads(model->parameters(), 1.0f);
    opt.step();
    for (int64_t t = 0; t < 4; ++t)
      per_task.index_put_({t}, y.detach()[0]);
    // CHECK-MESSAGES: :[[@LINE-1]]:16: warning: 'Tensor::index_put_' copies a tensor on 'device' into a CPU tensor, which makes the host wait for the device on every iteration of this training loop
    // CHECK-MESSAGES: :[[@LINE-6]]:13: note: this loop runs a training step
  }
}

// A loop that runs its step through a helper of the user's is hot; a loop
// that calls a function whose step runs in that function's own loop runs
// once per epoch.
float train_step(torch::nn::Linear &model, torch::optim::SGD &opt,
                 torch::Tensor x) {
  opt.zero_grad();
  auto loss = model(x).sum();
  loss.backward();
  opt.step();
  return loss.item<float>();
}
void train_epoch(torch::nn::Linear &model, torch::optim::SGD &opt,
                 std::vector<torch::Tensor> &xs) {
  for (auto &x : xs) {
    auto loss = model(x).sum();
    loss.backward();
    opt.step();
  }
}
void via_helper(torch::nn::Linear &model, torch::optim::SGD &opt,
                std::vector<torch::Tensor> &xs) {
  for (int step = 0; step < 100; ++step) {
    float l = train_step(model, opt, xs[0]);
    // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: 'train_step' makes the host wait for the device on every iteration of this training loop: it calls 'Tensor::item' inside
    // CHECK-MESSAGES: :[[@LINE-2]]:15: note: this loop runs a training step: 'train_step' calls 'backward'
    (void)l;
  }
  for (int epoch = 0; epoch < 10; ++epoch) {
    train_epoch(model, opt, xs);
    std::printf("%f\n", xs[0].sum().item<float>()); // near miss: per epoch
  }
}

// A branch that leaves the loop runs once per loop, not per iteration.
void nms_last(torch::Tensor order, std::vector<int64_t> &keep) {
  while (order.numel() > 0) {
    if (order.numel() == 1) {
      keep.push_back(order.item<int64_t>()); // near miss: leaves the loop
      break;
    }
    keep.push_back(order[0].item<int64_t>());
    // CHECK-MESSAGES: :[[@LINE-1]]:29: warning: 'Tensor::item' makes the host wait for the device on every iteration of this loop over 'order'
    switch (keep.size() % 2) {
    case 0:
      keep.push_back(order[0].item<int64_t>());
      // CHECK-MESSAGES: :[[@LINE-1]]:31: warning: 'Tensor::item' makes the host
      break;
    default:
      break;
    }
    order = order.slice(0, 1);
  }
}

// In a function called once per step too: the leaving branch runs once per
// call, and the loop's other reads are the ones to fix. A branch that throws
// is an error path.
std::vector<int64_t> nms_per_frame(torch::Tensor order) {
  std::vector<int64_t> keep;
  while (order.numel() > 0) {
    if (order.dim() != 1) {
      std::printf("%ld\n", order.max().item<int64_t>()); // near miss: throws
      throw std::runtime_error("order must be 1-D");
    }
    if (order.numel() == 1) {
      keep.push_back(order.item<int64_t>()); // near miss: leaves the loop
      break;
    }
    keep.push_back(order[0].item<int64_t>());
    // CHECK-MESSAGES: :[[@LINE-1]]:29: warning: 'Tensor::item' makes the host wait
    order = order.slice(0, 1);
  }
  return keep;
}
void detect_frames(torch::nn::Linear detector, std::vector<torch::Tensor> frames) {
  for (auto &frame : frames)
    nms_per_frame(detector->forward(frame).argsort());
}

// RUN: %torch-tidy %S/Inputs/sync-in-loop-cpu-program.cpp --checks=-*,torch-sync-in-loop -- %torch_flags 2>&1 | FileCheck %s --check-prefix=CPU-PROGRAM --allow-empty --implicit-check-not=warning:
// RUN: sed -e 's/return 0;/return torch::cuda::is_available();/' -e 's/randn({8, 4})/randn({8, 4}, torch::kCUDA)/' %S/Inputs/sync-in-loop-cpu-program.cpp > %t.gpu.cpp
// RUN: %torch-tidy %t.gpu.cpp --checks=-*,torch-sync-in-loop -- %torch_flags 2>&1 | FileCheck %s --check-prefix=GPU-PROGRAM
// RUN: sed '/^torch::Tensor next_batch() {/d' %S/Inputs/sync-in-loop-cpu-program.cpp > %t.elsewhere.cpp
// RUN: %torch-tidy %t.elsewhere.cpp --checks=-*,torch-sync-in-loop -- %torch_flags 2>&1 | FileCheck %s --check-prefix=GPU-PROGRAM
// A device named when the program runs may be a GPU; a literal "cpu" is not.
// RUN: sed -e 's/randn({8, 4})/randn({8, 4}).to(torch::Device(std::getenv("DEVICE")))/' %S/Inputs/sync-in-loop-cpu-program.cpp > %t.runtime.cpp
// RUN: %torch-tidy %t.runtime.cpp --checks=-*,torch-sync-in-loop -- %torch_flags 2>&1 | FileCheck %s --check-prefix=GPU-PROGRAM
// RUN: sed -e 's/randn({8, 4})/randn({8, 4}).to(torch::Device("cpu"))/' %S/Inputs/sync-in-loop-cpu-program.cpp > %t.literal.cpp
// RUN: %torch-tidy %t.literal.cpp --checks=-*,torch-sync-in-loop -- %torch_flags 2>&1 | FileCheck %s --check-prefix=CPU-PROGRAM --allow-empty --implicit-check-not=warning:
// Asking whether a GPU is there, or making a device to see that it can be
// made, puts nothing on it; a device that is used does.
// RUN: sed -e 's/return 0;/std::printf("%%d\\n", torch::cuda::is_available()); return 0;/' %S/Inputs/sync-in-loop-cpu-program.cpp > %t.query.cpp
// RUN: %torch-tidy %t.query.cpp --checks=-*,torch-sync-in-loop -- %torch_flags 2>&1 | FileCheck %s --check-prefix=CPU-PROGRAM --allow-empty --implicit-check-not=warning:
// RUN: sed -e 's/^int main() {/int main() { torch::Device probe(torch::kCUDA);/' %S/Inputs/sync-in-loop-cpu-program.cpp > %t.probe.cpp
// RUN: %torch-tidy %t.probe.cpp --checks=-*,torch-sync-in-loop -- %torch_flags 2>&1 | FileCheck %s --check-prefix=CPU-PROGRAM --allow-empty --implicit-check-not=warning:
// RUN: sed -e 's/^torch::Tensor next_batch() { return torch::randn({8, 4}); }/torch::Tensor next_batch() { torch::Device gpu(torch::kCUDA); return torch::randn({8, 4}, gpu); }/' %S/Inputs/sync-in-loop-cpu-program.cpp > %t.used.cpp
// RUN: %torch-tidy %t.used.cpp --checks=-*,torch-sync-in-loop -- %torch_flags 2>&1 | FileCheck %s --check-prefix=GPU-PROGRAM
// CPU-PROGRAM-NOT: warning:
// GPU-PROGRAM: warning: 'Tensor::item' makes the host wait for the device on every iteration of this training loop

// A method of the user's own module that yields tensors runs the model,
// wherever it is defined: an RL agent's act() in a rollout loop.
struct ActOutput {
  torch::Tensor action, value;
};
struct AgentImpl : torch::nn::Module {
  ActOutput act(const torch::Tensor &obs);
  void describe() const;
};
void rollout(std::shared_ptr<AgentImpl> agent, torch::Tensor obs) {
  for (int step = 0; step < 128; ++step) {
    ActOutput out = agent->act(obs);
    auto action = out.action.cpu();
    // CHECK-MESSAGES: :[[@LINE-1]]:30: warning: 'Tensor::cpu' makes the host wait for the device on every iteration of this inference loop
    // CHECK-MESSAGES: :[[@LINE-3]]:28: note: this loop runs the model: 'act' is called here
    obs = action;
  }
  for (int step = 0; step < 3; ++step) {
    agent->describe(); // near miss: yields no tensor, runs no model
    std::printf("%f\n", obs.sum().item<float>());
  }
}

// An update loop that runs the model once per update (a bootstrap value)
// around its training loop runs once per update, not per step.
void ppo_update(std::shared_ptr<AgentImpl> agent, torch::optim::Adam &opt,
                torch::Tensor obs) {
  for (int update = 0; update < 10; ++update) {
    ActOutput next = agent->act(obs);
    for (int epoch = 0; epoch < 4; ++epoch) {
      auto loss = next.value.pow(2).mean();
      opt.zero_grad();
      loss.backward();
      opt.step();
    }
    std::printf("%f\n", next.value.mean().item<float>()); // near miss
  }
}

// An off-policy agent's environment-step loop (round 34's TD3): it acts
// with the model on every step and trains in a nested loop only once
// enough steps are stored. It runs once per step.
void td3_steps(std::shared_ptr<AgentImpl> agent, torch::optim::Adam &opt,
               torch::Tensor obs, int learning_starts) {
  for (int step = 0; step < 1000; ++step) {
    ActOutput next = agent->act(obs);
    float reward = next.value.mean().item<float>();
    // CHECK-MESSAGES: :[[@LINE-1]]:38: warning: 'Tensor::item' makes the host wait for the device on every iteration of this inference loop
    if (step >= learning_starts) {
      for (int update = 0; update < 2; ++update) {
        auto loss = agent->act(obs).value.pow(2).mean() * reward;
        opt.zero_grad();
        loss.backward();
        opt.step();
      }
    }
  }
}

// A branch on a flag that defaults to off and that no call here turns on
// never runs: a debug path in a target builder called once per step.
struct Coder {
  torch::Tensor build_target(torch::Tensor boxes, bool debug = false);
  torch::Tensor encode(torch::Tensor boxes, bool verbose = false);
};
torch::Tensor Coder::build_target(torch::Tensor boxes, bool debug) {
  auto target = torch::zeros_like(boxes);
  for (int64_t i = 0; i < boxes.size(0); ++i) {
    if (debug) {
      std::printf("%f\n", boxes[i][0].item<float>()); // near miss: off
    } else {
      float best = boxes[i].max().item<float>();
      // CHECK-MESSAGES: :[[@LINE-1]]:35: warning: 'Tensor::item' makes the host wait for the device on every iteration of this loop in 'Coder::build_target'
      target[i] += best;
    }
  }
  return target;
}
torch::Tensor Coder::encode(torch::Tensor boxes, bool verbose) {
  auto codes = torch::zeros_like(boxes);
  for (int64_t i = 0; i < boxes.size(0); ++i) {
    if (verbose)
      std::printf("%f\n", boxes[i][0].item<float>());
    // CHECK-MESSAGES: :[[@LINE-1]]:39: warning: 'Tensor::item' makes the host wait for the device on every iteration of this loop in 'Coder::encode'
    codes[i] = boxes[i] * 2;
  }
  return codes;
}
void train_with_targets(Coder &coder, torch::Tensor w, torch::Device device,
                        torch::optim::SGD &opt) {
  for (int step = 0; step < 100; ++step) {
    auto boxes = torch::rand({8, 4}, device);
    auto loss = (w * coder.build_target(boxes)).sum() +
                coder.encode(boxes, /*verbose=*/step > 10).sum();
    opt.zero_grad();
    loss.backward();
    opt.step();
  }
}

// A tensor parameter that defaults to none and that no call here passes
// (round 34's `explore(obs, dones = {})`): a test of it that reads it
// never runs. Passed, it does.
struct Explorer {
  torch::nn::Linear net{4, 2};
  torch::Tensor noise = torch::zeros({2});
  torch::Tensor explore(torch::Tensor obs, torch::Tensor dones = {});
  torch::Tensor rescale(torch::Tensor obs, torch::Tensor dones = {});
};
torch::Tensor Explorer::explore(torch::Tensor obs, torch::Tensor dones) {
  for (int64_t i = 0; i < obs.size(0); ++i)
    if (dones.defined() && dones[i].item<float>() > 0) // near miss: none
      noise[i] = 0;
  return net->forward(obs) + noise;
}
torch::Tensor Explorer::rescale(torch::Tensor obs, torch::Tensor dones) {
  for (int64_t i = 0; i < obs.size(0); ++i)
    if (dones.defined() && dones[i].item<float>() > 0)
    // CHECK-MESSAGES: :[[@LINE-1]]:37: warning: 'Tensor::item' makes the host wait for the device on every iteration of this loop in 'Explorer::rescale'
      noise[i] = 1;
  return obs * noise;
}
void explore_steps(Explorer &agent, torch::Device device) {
  for (int step = 0; step < 100; ++step) {
    auto obs = torch::rand({2, 4}, device);
    auto act = agent.explore(obs);
    auto scaled = agent.rescale(obs, torch::ones({2}, device));
    (void)act, (void)scaled;
  }
}

// A method of the model that runs its own training loop (style transfer's
// optimise()): a loop around it runs once per scale, and reads there are
// not per step. The reads inside its loop are.
struct CanvasImpl : torch::nn::Module {
  CanvasImpl() : conv(register_module("conv", torch::nn::Conv2d(3, 3, 3))) {}
  torch::Tensor optimise(torch::Tensor &canvas) {
    canvas.set_requires_grad(true);
    torch::optim::Adam optim(std::vector<torch::Tensor>{canvas});
    for (int i = 0; i < 100; ++i) {
      optim.zero_grad();
      torch::Tensor loss = conv(canvas).pow(2).mean();
      std::cout << loss.item<float>() << "\n";
      // CHECK-MESSAGES: :[[@LINE-1]]:25: warning: 'Tensor::item' makes the host wait for the device on every iteration of this training loop
      // CHECK-MESSAGES: :[[@LINE+1]]:12: note: this loop runs a training step: 'backward' is called here
      loss.backward();
      optim.step();
    }
    return canvas;
  }
  torch::nn::Conv2d conv;
};
TORCH_MODULE(Canvas);

void multiscale(Canvas &model, torch::Device device) {
  model->to(device);
  torch::Tensor canvas = torch::rand({1, 3, 32, 32}, device);
  for (int scale = 0; scale < 4; ++scale) {
    model->optimise(canvas);
    torch::Tensor image = canvas.cpu(); // near miss: once per scale
    std::cout << image.sizes() << "\n";
  }
}
