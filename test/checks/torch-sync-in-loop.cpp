// RUN: %check_torch_tidy %s torch-sync-in-loop %t -- %torch_flags
// RUN: %check_torch_tidy --via plugin --no-compile %s torch-sync-in-loop %t.plugin -- %torch_flags
// The same file as a CUDA unit's host side (clang -x cuda --cuda-host-only):
// the same findings and fixes.
// RUN: %if cuda-variants %{ %check_torch_tidy %s torch-sync-in-loop %t.cuda -- %cuda_flags %}

// Every synchronizing operation of the default SyncFunctions, in a loop made
// hot by a backward pass.
#include <torch/torch.h>
#include <chrono>

void reads(torch::Tensor x, torch::Tensor y) {
  for (int step = 0; step < 100; ++step) {
    auto loss = (x * y).sum();
    loss.backward();
    float a = loss.item<float>();
    // CHECK-MESSAGES: :[[@LINE-1]]:20: warning: 'Tensor::item' makes the host wait for the device on every iteration of this training loop; accumulate on the device and read the value once after the loop, or read it under a logging interval [torch-sync-in-loop]
    // CHECK-MESSAGES: :[[@LINE-3]]:10: note: this loop runs a training step: 'backward' is called here
    torch::Scalar s = loss.item();
    // CHECK-MESSAGES: :[[@LINE-1]]:28: warning: 'Tensor::item' makes the host wait
    auto c = loss.cpu();
    // CHECK-MESSAGES: :[[@LINE-1]]:19: warning: 'Tensor::cpu' makes the host wait
    loss.cpu();
    // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: 'Tensor::cpu' makes the host wait
    std::cout << loss << "\n";
    // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: printing a tensor with 'operator<<' makes the host wait for the device on every iteration of this training loop
    std::cout << "loss " << loss.item<double>() << "\n";
    // CHECK-MESSAGES: :[[@LINE-1]]:34: warning: 'Tensor::item' makes the host
    (void)a;
    (void)s;
    (void)c;
  }
}

void to_cpu(torch::Tensor x, torch::Device device) {
  const torch::Device cpu(torch::kCPU);
  for (int step = 0; step < 100; ++step) {
    x.backward();
    auto a = x.to(torch::kCPU);
    // CHECK-MESSAGES: :[[@LINE-1]]:16: warning: 'Tensor::to' toward the CPU makes the host wait for the device on every iteration of this training loop
    auto b = x.to(torch::Device(torch::kCPU));
    // CHECK-MESSAGES: :[[@LINE-1]]:16: warning: 'Tensor::to' toward the CPU
    auto c = x.to(torch::TensorOptions().dtype(torch::kFloat).device(torch::kCPU));
    // CHECK-MESSAGES: :[[@LINE-1]]:16: warning: 'Tensor::to' toward the CPU
    auto d = x.to(torch::device(torch::kCPU).dtype(torch::kHalf));
    // CHECK-MESSAGES: :[[@LINE-1]]:16: warning: 'Tensor::to' toward the CPU
    auto e = x.to(torch::Device("cpu"));
    // CHECK-MESSAGES: :[[@LINE-1]]:16: warning: 'Tensor::to' toward the CPU
    auto f = x.to(torch::kCPU, torch::kFloat);
    // CHECK-MESSAGES: :[[@LINE-1]]:16: warning: 'Tensor::to' toward the CPU
    auto g = x.to(cpu);
    // CHECK-MESSAGES: :[[@LINE-1]]:16: warning: 'Tensor::to' toward the CPU
    float h = x.to(at::kCPU).sum().item<float>();
    // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: 'Tensor::to' toward the CPU
    // (item() of the CPU copy waits for nothing: one warning, not two.)
    // Not toward the CPU, or the result is not used: not flagged here.
    auto i = x.to(torch::kCUDA);
    auto j = x.to(device);
    auto k = x.to(torch::kFloat);
    auto l = x.to(torch::TensorOptions().dtype(torch::kFloat));
    x.to(torch::kCPU);
    (void)x.to(torch::kCPU);
    auto m = x.to(torch::kCPU, /*non_blocking=*/true);
    auto n = x.to(torch::kCPU, torch::kFloat, /*non_blocking=*/false);
    // CHECK-MESSAGES: :[[@LINE-1]]:16: warning: 'Tensor::to' toward the CPU
  }
}

void comparisons(torch::Tensor x, torch::Tensor y) {
  while (true) {
    x.backward();
    bool a = x.equal(y);
    // CHECK-MESSAGES: :[[@LINE-1]]:16: warning: 'Tensor::equal' makes the host wait for the device on every iteration of this training loop; accumulate
    bool b = torch::equal(x, y);
    // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: 'at::equal' makes the host wait
    bool c = x.allclose(y);
    // CHECK-MESSAGES: :[[@LINE-1]]:16: warning: 'Tensor::allclose' makes the host wait
    bool d = torch::allclose(x, y, 1e-3);
    // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: 'at::allclose' makes the host wait
    bool e = x.is_nonzero();
    // CHECK-MESSAGES: :[[@LINE-1]]:16: warning: 'Tensor::is_nonzero' makes the host wait
    if (at::is_nonzero(x.sum()))
      // CHECK-MESSAGES: :[[@LINE-1]]:9: warning: 'at::is_nonzero' makes the host wait
      break;
    (void)a, (void)b, (void)c, (void)d, (void)e;
  }
}

void data_dependent(torch::Tensor x, torch::Tensor mask) {
  do {
    x.backward();
    auto a = x.nonzero();
    // CHECK-MESSAGES: :[[@LINE-1]]:16: warning: 'Tensor::nonzero' makes the host wait for the device on every iteration of this training loop, because its output size depends on the data; use a fixed-size form (a mask with torch::where or a multiplication) or move it out of the loop [torch-sync-in-loop]
    auto b = torch::nonzero(x);
    // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: 'at::nonzero' makes the host wait {{.*}} because its output size depends on the data
    auto c = x.masked_select(mask);
    // CHECK-MESSAGES: :[[@LINE-1]]:16: warning: 'Tensor::masked_select' makes the host wait {{.*}} because its output size
    auto d = torch::masked_select(x, mask);
    // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: 'at::masked_select' makes the host wait {{.*}} because its output size
    auto e = torch::_unique(x);
    // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: 'at::_unique' makes the host wait {{.*}} because its output size
    auto f = at::_unique2(x, /*sorted=*/true, /*return_inverse=*/true);
    // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: 'at::_unique2' makes the host wait {{.*}} because its output size
    auto g = torch::unique_dim(x, 0);
    // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: 'at::unique_dim' makes the host wait {{.*}} because its output size
    auto h = torch::unique_consecutive(x);
    // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: 'at::unique_consecutive' makes the host wait {{.*}} because its output size
    auto i = torch::unique_dim_consecutive(x, 0);
    // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: 'at::unique_dim_consecutive' makes the host wait {{.*}} because its output size
    torch::Tensor out = torch::empty({0}, torch::kLong);
    torch::nonzero_out(out, x);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'at::nonzero_out' makes the host wait {{.*}} because its output size
    // Indexing with a boolean mask keeps a data-dependent number of rows.
    using torch::indexing::Slice;
    auto keep = x.select(1, 4) > 0.25;
    auto l = x.index({keep});
    // CHECK-MESSAGES: :[[@LINE-1]]:16: warning: 'Tensor::index' with a boolean mask makes the host wait {{.*}} because its output size depends on the data
    auto m = x.index({Slice(), x.sum(0).gt(0)});
    // CHECK-MESSAGES: :[[@LINE-1]]:16: warning: 'Tensor::index' with a boolean mask makes the host wait
    auto n = x.index({keep[0] & ~torch::isnan(x[0])});
    // CHECK-MESSAGES: :[[@LINE-1]]:16: warning: 'Tensor::index' with a boolean mask makes the host wait
    auto o = x.index({mask.to(torch::kBool)});
    // CHECK-MESSAGES: :[[@LINE-1]]:16: warning: 'Tensor::index' with a boolean mask makes the host wait
    auto both = (x.select(1, 0) > 0) * (x.select(1, 1) == 0);
    auto t = x.index({both});
    // CHECK-MESSAGES: :[[@LINE-1]]:16: warning: 'Tensor::index' with a boolean mask makes the host wait
    auto u = x.index({keep.to(torch::kLong) * 2}); // an index tensor
    auto s = torch::bincount(x.flatten().to(torch::kLong), {}, 10);
    // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: 'at::bincount' makes the host wait {{.*}} because its output size depends on the data
    // Slices, integer indices and index tensors have a fixed size.
    auto p = x.index({Slice(0, 4), 1});
    auto q = x.index({x.argmax(1)});
    auto r = x.index({mask});
    // Fixed-size replacements do not synchronize.
    auto j = torch::where(mask, x, torch::zeros_like(x));
    auto k = x * mask;
  } while (x.defined());
}

// A loop with a clock read before it but none after is not a timed loop.
double not_timed(torch::nn::Linear net, torch::Tensor x, int samples) {
  auto begin = std::chrono::steady_clock::now();
  for (int i = 0; i < samples; ++i) {
    auto out = net->forward(x);
    torch::cuda::synchronize();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'torch::cuda::synchronize' makes the host wait for all queued device work
  }
  return std::chrono::duration<double>(begin.time_since_epoch()).count();
}

// Nor is one with another loop between it and the end clock.
double timed_with_training(torch::nn::Linear net, torch::Tensor x, int samples) {
  auto begin = std::chrono::steady_clock::now();
  for (int i = 0; i < samples; ++i) {
    auto out = net->forward(x);
    torch::cuda::synchronize();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'torch::cuda::synchronize' makes the host wait for all queued device work
  }
  for (int i = 0; i < samples; ++i)
    net->forward(x).sum().backward();
  auto end = std::chrono::steady_clock::now();
  return std::chrono::duration<double>(end - begin).count();
}

void synchronize(torch::Tensor x, c10::Stream stream) {
  for (int step = 0; step < 10; ++step) {
    x.backward();
    torch::cuda::synchronize();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'torch::cuda::synchronize' makes the host wait for all queued device work on every iteration of this training loop; remove it, or call it only under a timing or logging interval [torch-sync-in-loop]
    stream.synchronize();
    // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'c10::Stream::synchronize' makes the host wait for all queued device work
  }
}

// A branch that only reports is a failure path only as the else of one that
// works: printing in the then-branch, or in both, is a step's work.
void reportingBranches(torch::Tensor x, torch::Tensor y, bool verbose) {
  for (int step = 0; step < 10; ++step) {
    x.backward();
    if (verbose) {
      std::cout << "loss " << y << std::endl;
      // CHECK-MESSAGES: :[[@LINE-1]]:28: warning: printing a tensor with 'operator<<' makes the host wait
    } else {
      y.add_(1);
    }
    if (step > 5)
      std::cout << "late " << y << std::endl;
    // CHECK-MESSAGES: :[[@LINE-1]]:28: warning: printing a tensor with 'operator<<' makes the host wait
    else
      std::cout << "early " << y << std::endl;
    // CHECK-MESSAGES: :[[@LINE-1]]:29: warning: printing a tensor with 'operator<<' makes the host wait
  }
}

// A wait under an `if` is the timing's only next to a clock read, and only
// when the `if` does nothing else.
void conditional_synchronize(torch::Tensor x, torch::Device device) {
  for (int step = 0; step < 10; ++step) {
    x.backward();
    if (!device.is_cpu())
      torch::cuda::synchronize();
    // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: 'torch::cuda::synchronize' makes the host wait for all queued device work on every iteration
    x.add_(1);
    if (device.is_cuda()) {
      torch::cuda::synchronize();
      // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: 'torch::cuda::synchronize' makes the host wait for all queued device work on every iteration
      x.mul_(2);
    }
    auto t = std::chrono::steady_clock::now();
    (void)t;
  }
}

// A read before a clock whose value is used after it, or with a call
// between, is a step's read, not the timing's wait.
void read_then_clock(torch::nn::Linear net, torch::Tensor x) {
  for (int step = 0; step < 10; ++step) {
    net->forward(x).sum().backward();
    float loss = x.sum().item<float>();
    // CHECK-MESSAGES: :[[@LINE-1]]:26: warning: 'Tensor::item' makes the host wait
    auto t = std::chrono::steady_clock::now();
    std::printf("%f %f\n", loss, t.time_since_epoch().count() * 1e-9);
    float first = x[0].item<float>();
    // CHECK-MESSAGES: :[[@LINE-1]]:24: warning: 'Tensor::item' makes the host wait
    std::printf("%f\n", first);
    auto t2 = std::chrono::steady_clock::now();
    (void)t2;
  }
}

// An equality with a value the loop does not count with is an ordinary
// branch; so is one on the counter of a loop nested inside.
void equality_branches(torch::nn::Linear net, torch::Tensor x, int mode) {
  for (int step = 0; step < 10; ++step) {
    auto loss = net->forward(x).sum();
    loss.backward();
    if (mode == 0)
      std::printf("%f\n", loss.item<float>());
    // CHECK-MESSAGES: :[[@LINE-1]]:32: warning: 'Tensor::item' makes the host wait
    for (int k = 0; k < 2; ++k)
      if (k == 0)
        std::printf("%f\n", loss.item<float>());
    // CHECK-MESSAGES: :[[@LINE-1]]:34: warning: 'Tensor::item' makes the host wait
  }
}

// Calls in the loop condition run on every iteration too. In a chain, the
// copy to the CPU is the wait; reading the CPU copy is not.
void chains(torch::Tensor loss) {
  while (loss.item<float>() > 0.01f) {
    // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: 'Tensor::item' makes the host wait
    loss.backward();
    double v = loss.cpu().item<double>();
    // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: 'Tensor::cpu' makes
    // (item() of the CPU copy waits for nothing.)
    (void)v;
  }
}

// Hidden syncs: clip_grad_norm_ reads its result with item(), and helpers
// of the user's that do (two calls deep). The call in the loop is reported,
// with a note at the wait inside. Helpers without a sync stay quiet.
struct Tracker {
  double total = 0;
  void add(const torch::Tensor &loss) { total += loss.item<double>(); }
};
void logLoss(Tracker &t, const torch::Tensor &loss) { t.add(loss); }
torch::Tensor scaled(const torch::Tensor &loss) { return loss * 2; }

void hidden(torch::nn::Linear model, torch::optim::SGD &opt, torch::Tensor x,
            Tracker &tracker) {
  for (int step = 0; step < 10; ++step) {
    auto loss = scaled(model(x).sum());
    loss.backward();
    torch::nn::utils::clip_grad_norm_(model->parameters(), 1.0);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'torch::nn::utils::clip_grad_norm_' makes the host wait for the device on every iteration of this training loop: it calls 'Tensor::item' inside; call it only under a logging interval, or keep the value on the device [torch-sync-in-loop]
    // CHECK-MESSAGES: clip_grad.h:{{[0-9]+}}:{{[0-9]+}}: note: the host waits here
    opt.step();
    logLoss(tracker, loss);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'logLoss' makes the host wait for the device on every iteration of this training loop: it calls 'Tensor::item' inside
    // CHECK-MESSAGES: :[[@LINE-16]]:55: note: the host waits here
  }
}

// A module method other than forward(), called on the device batch in the
// training loop, is a helper like any other: its wait counts. forward()
// itself is the loop's marker and is left out.
struct AugmentImpl : torch::nn::Module {
  torch::Tensor jitter(torch::Tensor images) {
    double scale = images.abs().max().item<double>();
    return images / scale;
  }
  torch::Tensor forward(torch::Tensor images) {
    return images / images.abs().max().item<double>();
  }
};
TORCH_MODULE(Augment);

void augmented(torch::nn::Linear model, torch::optim::SGD &opt, Augment aug,
               torch::Tensor x) {
  for (int step = 0; step < 10; ++step) {
    auto batch = aug->jitter(x.to(torch::kCUDA));
    // CHECK-MESSAGES: :[[@LINE-1]]:23: warning: 'AugmentImpl::jitter' makes the host wait for the device on every iteration of this training loop: it calls 'Tensor::item' inside
    // CHECK-MESSAGES: :[[@LINE-14]]:39: note: the host waits here
    auto loss = model(aug->forward(batch)).sum();
    loss.backward();
    opt.step();
  }
}

// A program's own trainer in namespace torch (as yncxcw/torch-cpp-trainer
// writes it) is the program's code, not LibTorch's.
namespace torch::trainers {
struct Trainer {
  torch::nn::Linear model{nullptr};
  std::unique_ptr<torch::optim::Optimizer> optimizer;
  void train(std::vector<torch::Tensor> &batches) {
    for (auto &batch : batches) {
      torch::Tensor loss = model(batch.to(torch::kCUDA)).sum();
      optimizer->zero_grad();
      loss.backward();
      optimizer->step();
      std::cout << "loss " << loss.item() << std::endl;
      // CHECK-MESSAGES: :[[@LINE-1]]:36: warning: 'Tensor::item' makes the host wait for the device on every iteration of this training loop
    }
  }
};
} // namespace torch::trainers

// Near miss: code in ATen's namespace is LibTorch's wherever it is written
// (an ATen kernel file); it is not reported.
namespace at::native {
void trainLikeAten(torch::nn::Linear model, torch::optim::SGD &opt,
                   std::vector<torch::Tensor> &batches) {
  for (auto &batch : batches) {
    torch::Tensor loss = model(batch.to(torch::kCUDA)).sum();
    loss.backward();
    opt.step();
    std::cout << loss.item() << std::endl;
  }
}
} // namespace at::native

// Indexing with a tensor reads the index with item() (libtorch-SSD's NMS:
// `x1[i]` with `i` a 0-dim CUDA tensor).
void indexWithTensor(torch::nn::Linear model, torch::optim::SGD &opt,
                     torch::Tensor x) {
  auto order = torch::argsort(x.to(torch::kCUDA));
  auto host = torch::arange(4);
  for (int step = 0; step < 10; ++step) {
    auto loss = model(x).sum();
    loss.backward();
    opt.step();
    auto first = x[order[0]];
    // CHECK-MESSAGES: :[[@LINE-1]]:18: warning: 'Tensor::operator[]' with a tensor index (it reads the index with 'item') makes the host wait for the device on every iteration of this training loop
    auto second = x[host[1]]; // a CPU index: nothing to wait for
    auto third = x[2];        // an integer index
  }
}
