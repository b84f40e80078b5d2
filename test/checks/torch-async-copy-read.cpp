// RUN: %check_torch_tidy %s torch-async-copy-read %t -- %torch_flags
// RUN: %check_torch_tidy --via plugin --no-compile %s torch-async-copy-read %t.plugin -- %torch_flags
// The same file as a CUDA unit's host side (clang -x cuda --cuda-host-only):
// the same findings and fixes.
// RUN: %if cuda-variants %{ %check_torch_tidy %s torch-async-copy-read %t.cuda -- %cuda_flags %}

// Host reads of a tensor filled by a non-blocking copy from the device, and
// the near misses: reads after a synchronize or an event wait, uploads,
// blocking copies, metadata, a new value assigned before the read.
#include <torch/torch.h>
#include <iostream>
#include <vector>

float toHost(torch::Tensor x, torch::Device device) {
  auto g = x.to(device) * 2;
  auto h = g.to(torch::kCPU, /*non_blocking=*/true);
  float first = h.data_ptr<float>()[0];
  // CHECK-MESSAGES: :[[@LINE-1]]:19: warning: 'h' is read on the host while the non-blocking copy that fills it may still be running, so the host can see memory the copy has not written yet; wait for the device first ('torch::cuda::synchronize()', or an event recorded after the copy) or make the copy blocking [torch-async-copy-read]
  // CHECK-MESSAGES: :[[@LINE-3]]:14: note: 'h' is filled here by a non-blocking copy from the device
  return first;
}

void intoPinned(torch::Tensor g) {
  auto d = g.cuda();
  auto pinned = torch::empty({4}, torch::TensorOptions().pinned_memory(true));
  pinned.copy_(d, /*non_blocking=*/true);
  std::cout << pinned << std::endl;
  // CHECK-MESSAGES: :[[@LINE-1]]:13: warning: 'pinned' is read on the host while the non-blocking copy
  auto sum = pinned.sum();
  auto acc = pinned.accessor<float, 1>(); // reported once, at the first read
  (void)sum;
  (void)acc;
}

float viaItem(torch::Tensor x) {
  auto g = x.cuda();
  torch::Tensor h;
  h = g.sum().to(torch::kCPU, torch::kFloat, /*non_blocking=*/true);
  auto total = h.item<float>();
  // CHECK-MESSAGES: :[[@LINE-1]]:18: warning: 'h' is read on the host while
  return total;
}

// The copy's result read directly, without a variable.
float direct(torch::Tensor x) {
  auto g = x.cuda();
  auto acc = torch::zeros({4});
  acc.add_(g.to(torch::kCPU, /*non_blocking=*/true));
  // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: the copy's result is read on the host while the non-blocking copy that fills it may still be running
  // CHECK-MESSAGES: :[[@LINE-2]]:14: note: the non-blocking copy from the device is made here
  return g.sum().to(torch::kCPU, true).item<float>();
  // CHECK-MESSAGES: :[[@LINE-1]]:40: warning: the copy's result is read on the host
}

// Near misses.
float synchronized(torch::Tensor x) {
  auto g = x.cuda();
  auto h = g.to(torch::kCPU, /*non_blocking=*/true);
  auto n = h.numel() + h.size(0);          // metadata only
  torch::cuda::synchronize();
  return h.data_ptr<float>()[0] + n;
}

void waitsForHelper(torch::Tensor g);
float helperWaits(torch::Tensor x) {
  auto g = x.cuda();
  auto h = g.to(torch::kCPU, true);
  waitsForHelper(g);                       // may wait
  return h.item<float>();
}

float blockingOrUpload(torch::Tensor x, torch::Device device,
                       std::vector<float> &out) {
  auto g = x.cuda();
  auto h = g.to(torch::kCPU);              // blocking
  auto up = x.to(device, /*non_blocking=*/true); // an upload
  auto back = g.to(torch::kCPU, /*non_blocking=*/false);
  auto fresh = g.to(torch::kCPU, true);
  fresh = torch::zeros({4});               // a new value before the read
  auto onDevice = g.to(torch::kCPU, true).cuda(); // never read on the host
  out.push_back(h.item<float>() + back.item<float>() + fresh.item<float>());
  return up.sum().item<float>() + onDevice.sum().item<float>();
}

float cpuSource(torch::Tensor x) {
  auto c = torch::ones({4});
  auto h = c.to(torch::kCPU, true);        // the CPU to the CPU: no copy
  return h.item<float>();
}
