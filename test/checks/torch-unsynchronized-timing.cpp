// RUN: %check_torch_tidy %s torch-unsynchronized-timing %t -- %torch_flags
// RUN: %check_torch_tidy --via plugin --no-compile %s torch-unsynchronized-timing %t.plugin -- %torch_flags
// The same file as a CUDA unit's host side (clang -x cuda --cuda-host-only):
// the same findings and fixes.
// RUN: %if cuda-variants %{ %check_torch_tidy %s torch-unsynchronized-timing %t.cuda -- %cuda_flags %}

// Host clocks around GPU work with nothing waiting for the device before the
// second read, with the fix that synchronizes first; and the near misses:
// timing with a synchronize, item() or a blocking copy before the clock,
// CPU work, intervals with no work, clock reads never subtracted.
#include <torch/script.h>
#include <torch/torch.h>
#include <chrono>
#include <ctime>
#include <deque>
#include <iostream>
#include <sys/time.h>

using Clock = std::chrono::steady_clock;

struct NetImpl : torch::nn::Module {
  NetImpl() : fc(register_module("fc", torch::nn::Linear(64, 64))) {}
  torch::Tensor forward(torch::Tensor x) { return fc(x); }
  torch::nn::Linear fc;
};
TORCH_MODULE(Net);

double chronoTiming(Net net, torch::Device device) {
  net->to(device);
  auto x = torch::randn({64, 64}, torch::device(device));
  auto start = Clock::now();
  auto y = net->forward(x);
  auto end = Clock::now();
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: the device may still be running the timed work when this clock is read: the interval measures kernel launches, not the work; call 'torch::cuda::synchronize()' before reading the clock [torch-unsynchronized-timing]
  // CHECK-MESSAGES: :[[@LINE-4]]:16: note: the interval starts here
  // CHECK-MESSAGES: :[[@LINE-4]]:17: note: work queued here on 'device' may still be running
  // CHECK-FIXES: {{^}}  torch::cuda::synchronize();{{$}}
  // CHECK-FIXES-NEXT: {{^}}  auto end = Clock::now();{{$}}
  return std::chrono::duration<double>(end - start).count();
}

double loopTiming(torch::Tensor a) {
  auto g = a.cuda();
  auto t0 = std::chrono::high_resolution_clock::now();
  for (int i = 0; i < 100; ++i)
    g = torch::matmul(g, g);
  double ms = std::chrono::duration<double, std::milli>(
                  std::chrono::high_resolution_clock::now() - t0)
                  .count();
  // CHECK-MESSAGES: :[[@LINE-2]]:19: warning: the device may still be running the timed work
  // CHECK-FIXES: {{^}}  torch::cuda::synchronize();{{$}}
  // CHECK-FIXES-NEXT: {{^}}  double ms = std::chrono::duration<double, std::milli>({{$}}
  return ms;
}

double cClock(torch::Tensor a, torch::Device device) {
  auto g = a.to(device);
  clock_t begin = clock();
  auto h = (g * 2).relu_();
  clock_t finish = clock();
  // CHECK-MESSAGES: :[[@LINE-1]]:20: warning: the device may still be running the timed work
  // CHECK-FIXES: {{^}}  torch::cuda::synchronize();{{$}}
  // CHECK-FIXES-NEXT: {{^}}  clock_t finish = clock();{{$}}
  return double(finish - begin) / CLOCKS_PER_SEC;
}

long timeOfDay(torch::Tensor a) {
  auto g = a.cuda();
  timeval t1, t2;
  gettimeofday(&t1, nullptr);
  g.add_(1);
  gettimeofday(&t2, nullptr);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: the device may still be running the timed work
  // CHECK-FIXES: {{^}}  torch::cuda::synchronize();{{$}}
  // CHECK-FIXES-NEXT: {{^}}  gettimeofday(&t2, nullptr);{{$}}
  return (t2.tv_sec - t1.tv_sec) * 1000000 + (t2.tv_usec - t1.tv_usec);
}

// Near misses.
double synchronized(Net net, torch::Device device, torch::Tensor a) {
  net->to(device);
  auto x = a.to(device);
  auto start = Clock::now();
  auto y = net->forward(x);
  torch::cuda::synchronize();
  auto end = Clock::now();
  auto t0 = Clock::now();
  auto z = net->forward(y);
  float v = z.sum().item<float>();        // waits for z
  auto t1 = Clock::now();
  auto t2 = Clock::now();
  auto w = net->forward(z).to(torch::kCPU); // a blocking download
  auto t3 = Clock::now();
  std::cout << v << w.sizes() << std::endl;
  return std::chrono::duration<double>((end - start) + (t1 - t0) + (t3 - t2))
      .count();
}

// The wait only on a GPU, as timed inference loops write it; torch-sync-in-loop
// leaves the same waits alone (program::collectTimingWaits).
double synchronizedOnGpu(Net net, torch::Device device, torch::Tensor a) {
  net->to(device);
  auto x = a.to(device);
  double total = 0;
  for (int i = 0; i < 10; ++i) {
    if (!device.is_cpu())
      torch::cuda::synchronize();
    auto start = Clock::now();
    auto y = net->forward(x);
    if (!device.is_cpu())
      torch::cuda::synchronize();
    auto end = Clock::now();
    total += std::chrono::duration<double>(end - start).count();
  }
  return total;
}

// A function of the program that reads its results back to the host waits
// inside (NMS that copies the kept boxes to the CPU); one that only queues
// work does not, and the interval still needs a synchronize.
torch::Tensor keptBoxes(torch::Tensor dets) {
  auto keep = dets.select(1, 4) > 0.5;
  return dets.index({keep}).cpu();
}
torch::Tensor scaled(torch::Tensor dets) { return dets * 2; }
double waitingHelper(Net net, torch::Device device, torch::Tensor a) {
  net->to(device);
  auto x = a.to(device);
  auto start = Clock::now();
  auto boxes = keptBoxes(net->forward(x));
  auto end = Clock::now();
  return std::chrono::duration<double>(end - start).count() + boxes.size(0);
}
double queueingHelper(Net net, torch::Device device, torch::Tensor a) {
  net->to(device);
  auto x = a.to(device);
  auto queued = Clock::now();
  auto s = scaled(net->forward(x));
  auto done = Clock::now();
  // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: the device may still be running the timed work
  // CHECK-FIXES: {{^}}  auto s = scaled(net->forward(x));{{$}}
  // CHECK-FIXES-NEXT: {{^}}  torch::cuda::synchronize();{{$}}
  // CHECK-FIXES-NEXT: {{^}}  auto done = Clock::now();{{$}}
  return std::chrono::duration<double>(done - queued).count() + s.size(0);
}

double cpuWork(Net net, torch::Tensor a) {
  auto x = torch::randn({64, 64});
  auto start = Clock::now();
  auto y = net->forward(x) + a;            // devices unknown or the CPU
  auto end = Clock::now();
  return std::chrono::duration<double>(end - start).count();
}

void helperSynchronizes(torch::Tensor g);
double helper(torch::Tensor a) {
  auto g = a.cuda();
  auto start = Clock::now();
  g.mul_(2);
  helperSynchronizes(g);                  // may wait: not known
  auto end = Clock::now();
  return std::chrono::duration<double>(end - start).count();
}

void notSubtracted(torch::Tensor a) {
  auto g = a.cuda();
  auto started = Clock::now();
  g.mul_(2);
  auto logged = std::chrono::system_clock::now(); // a timestamp
  std::cout << logged.time_since_epoch().count()
            << started.time_since_epoch().count() << std::endl;
}

double noWorkInInterval(torch::Tensor a) {
  auto g = a.cuda() * 2;
  auto start = Clock::now();
  int n = 3;
  auto end = Clock::now();
  return std::chrono::duration<double>(end - start).count() + n + g.dim();
}

// A TorchScript module runs where its inputs are: its forward() returns an
// IValue, and the work it queues is on the input's device.
struct Detector {
  std::shared_ptr<torch::jit::script::Module> module_;
  torch::Device *device_;
  double detect(torch::Tensor image);
};

double Detector::detect(torch::Tensor image) {
  image = image.to(*device_);
  auto start = Clock::now();
  torch::Tensor out = module_->forward({image}).toTensor().squeeze(0);
  auto end = Clock::now();
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: the device may still be running the timed work
  // CHECK-MESSAGES: :[[@LINE-4]]:16: note: the interval starts here
  // CHECK-MESSAGES: :[[@LINE-4]]:32: note: work queued here on 'device_' may still be running
  // CHECK-FIXES: {{^}}  torch::cuda::synchronize();{{$}}
  // CHECK-FIXES-NEXT: {{^}}  auto end = Clock::now();{{$}}
  return std::chrono::duration<double>(end - start).count() + out.dim();
}

double scriptedOnTheHost(torch::jit::script::Module &module) {
  auto x = torch::ones({2, 3});           // the CPU: nothing to wait for
  auto start = Clock::now();
  auto y = module.forward({x});
  auto end = Clock::now();
  return std::chrono::duration<double>(end - start).count();
}

double scriptedThenRead(torch::jit::script::Module &module,
                        torch::Device device) {
  auto x = torch::ones({2, 3}, device);
  auto start = Clock::now();
  auto y = module.forward({x}).toTensor().cpu(); // the copy waits
  auto end = Clock::now();
  return std::chrono::duration<double>(end - start).count() + y.dim();
}

double scriptedThroughAVector(torch::jit::script::Module &module,
                              torch::Device device) {
  std::vector<torch::jit::IValue> inputs;
  inputs.push_back(torch::ones({2, 3}).to(device));
  auto start = Clock::now();
  auto y = module.forward(inputs).toTensor();
  auto end = Clock::now();
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: the device may still be running the timed work
  // CHECK-MESSAGES: :[[@LINE-4]]:16: note: the interval starts here
  // CHECK-MESSAGES: :[[@LINE-4]]:19: note: work queued here on 'device' may still be running
  // CHECK-FIXES: {{^}}  torch::cuda::synchronize();{{$}}
  // CHECK-FIXES-NEXT: {{^}}  auto end = Clock::now();{{$}}
  return std::chrono::duration<double>(end - start).count() + y.dim();
}

// The input held by an IValue local first (round 35's ResNet benchmark).
double scriptedThroughAnIValue(torch::jit::script::Module &module) {
  torch::jit::IValue input = torch::ones({2, 3}).cuda();
  std::vector<torch::jit::IValue> inputs;
  inputs.push_back(input);
  auto start = Clock::now();
  for (int i = 0; i < 10; ++i)
    auto y = module.forward(inputs).toTensor();
  auto end = Clock::now();
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: the device may still be running the timed work
  // CHECK-MESSAGES: :[[@LINE-5]]:16: note: the interval starts here
  // CHECK-MESSAGES: :[[@LINE-4]]:21: note: work queued here on CUDA may still be running
  // CHECK-FIXES: {{^}}  torch::cuda::synchronize();{{$}}
  // CHECK-FIXES-NEXT: {{^}}  auto end = Clock::now();{{$}}
  return std::chrono::duration<double>(end - start).count();
}

double scriptedThroughAHostIValue(torch::jit::script::Module &module) {
  torch::jit::IValue input = torch::ones({2, 3});
  std::vector<torch::jit::IValue> inputs;
  inputs.push_back(input);
  auto start = Clock::now();
  auto y = module.forward(inputs).toTensor();
  auto end = Clock::now();
  return std::chrono::duration<double>(end - start).count() + y.dim();
}

double scriptedThroughAHostVector(torch::jit::script::Module &module) {
  std::vector<torch::jit::IValue> inputs;
  inputs.push_back(torch::ones({2, 3}));  // the CPU
  auto start = Clock::now();
  auto y = module.forward(inputs).toTensor();
  auto end = Clock::now();
  return std::chrono::duration<double>(end - start).count() + y.dim();
}

// A function template (a training loop over any data loader) is read
// through its instantiations: one finding, at the template's line, however
// many there are.
template <typename Loader>
double timedTemplate(Net net, Loader &loader, torch::Device device) {
  net->to(device);
  double total = 0;
  for (auto &batch : loader) {
    auto x = batch.to(device);
    auto start = Clock::now();
    auto y = net->forward(x);
    auto end = Clock::now();
    // CHECK-MESSAGES: :[[@LINE-1]]:16: warning: the device may still be running the timed work
    // CHECK-MESSAGES: :[[@LINE-4]]:18: note: the interval starts here
    // CHECK-MESSAGES: :[[@LINE-4]]:19: note: work queued here on 'device' may still be running
    // CHECK-FIXES: {{^}}    torch::cuda::synchronize();{{$}}
    // CHECK-FIXES-NEXT: {{^}}    auto end = Clock::now();{{$}}
    total += std::chrono::duration<double>(end - start).count() + y.dim();
  }
  return total;
}

template <typename Loader>
double timedTemplateSynchronized(Net net, Loader &loader,
                                 torch::Device device) {
  net->to(device);
  double total = 0;
  for (auto &batch : loader) {
    auto start = Clock::now();
    auto y = net->forward(batch.to(device));
    torch::cuda::synchronize();
    auto end = Clock::now();
    total += std::chrono::duration<double>(end - start).count() + y.dim();
  }
  return total;
}

double runTemplates(Net net, torch::Device device) {
  std::vector<torch::Tensor> v{torch::ones({4, 64})};
  std::deque<torch::Tensor> d{torch::ones({4, 64})};
  return timedTemplate(net, v, device) + timedTemplate(net, d, device) +
         timedTemplateSynchronized(net, v, device);
}
