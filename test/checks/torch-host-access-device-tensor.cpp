// RUN: %check_torch_tidy %s torch-host-access-device-tensor %t -- %torch_flags
// RUN: %check_torch_tidy --via plugin --no-compile %s torch-host-access-device-tensor %t.plugin -- %torch_flags
// The same file as a CUDA unit's host side (clang -x cuda --cuda-host-only):
// the same findings and fixes.
// RUN: %if cuda-variants %{ %check_torch_tidy %s torch-host-access-device-tensor %t.cuda -- %cuda_flags %}

// Host code reading the memory of a tensor on a device, and the reads that
// are fine: CPU tensors, copies made with .cpu() / .to(kCPU), item(), and
// pointers handed to other functions (kernel launchers).
#include <torch/torch.h>
#include <algorithm>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

void accessors(torch::Tensor x, torch::Device device) {
  auto g = x.to(device);
  auto a = g.accessor<float, 2>();
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: 'g' is on 'device' (moved here); 'accessor' lets host code index its memory, which on a GPU machine crashes or reads garbage; copy it to the host first ('auto host = g.cpu();') and take the accessor of that copy [torch-host-access-device-tensor]
  // CHECK-MESSAGES: :[[@LINE-3]]:14: note: 'g' is moved to 'device' here
  auto host = g.cpu();
  auto b = host.accessor<float, 2>(); // a CPU copy
  auto c = x.accessor<float, 2>();    // device unknown
  auto ones = torch::ones({2, 2});
  auto e = ones.accessor<float, 2>();
}

void pointers(torch::Tensor x) {
  auto g = x.cuda();
  float *p = g.data_ptr<float>();
  // CHECK-MESSAGES: :[[@LINE-1]]:16: warning: 'g' is on CUDA (moved here); 'data_ptr' returns a device address that host code reads, which on a GPU machine crashes or reads garbage; copy it to the host first ('auto host = g.cpu();') and read that copy's data [torch-host-access-device-tensor]
  // CHECK-MESSAGES: :[[@LINE+2]]:13: note: the pointer is dereferenced on the host here
  // CHECK-MESSAGES: :[[@LINE-4]]:14: note: 'g' is moved to CUDA here
  float v = p[0];
  float w = *g.data_ptr<float>();
  // CHECK-MESSAGES: :[[@LINE-1]]:16: warning: 'g' is on CUDA (moved here); 'data_ptr' returns
  // CHECK-MESSAGES: :[[@LINE-2]]:13: note: the pointer is dereferenced on the host here
  float u = g.data<float>()[1];
  // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: 'g' is on CUDA (moved here); 'data' returns
  const float *q = static_cast<const float *>(g.data_ptr()) + 2;
  // CHECK-MESSAGES: :[[@LINE-1]]:49: warning: 'g' is on CUDA (moved here); 'data_ptr' returns
  std::cout << *q;
  // CHECK-MESSAGES: :[[@LINE-1]]:16: note: the pointer is dereferenced on the host here
}

struct Point {
  float x, y;
};

void consumers(torch::Tensor t, torch::Device device) {
  auto g = t.to(device);
  std::vector<float> out(4);
  std::memcpy(out.data(), g.data_ptr<float>(), 4 * sizeof(float));
  // CHECK-MESSAGES: :[[@LINE-1]]:29: warning: 'g' is on 'device' (moved here); 'data_ptr' returns
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: the pointer is handed to 'memcpy' here, which reads it on the host
  const float *p = g.data_ptr<float>();
  // CHECK-MESSAGES: :[[@LINE-1]]:22: warning: 'g' is on 'device'
  std::vector<float> copy(p, p + 4);
  // CHECK-MESSAGES: :[[@LINE-1]]:22: note: the pointer is handed to 'std::vector' here, which reads it on the host
  auto *r = g.data_ptr<float>();
  // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: 'g' is on 'device'
  std::copy(r, r + 4, out.begin());
  // CHECK-MESSAGES: :[[@LINE-1]]:3: note: the pointer is handed to 'std::copy' here
  auto bytes = g.to(torch::kUInt8);
  const char *c = static_cast<const char *>(bytes.data_ptr());
  // CHECK-MESSAGES: :[[@LINE-1]]:51: warning: 'bytes' is on 'device' (moved here)
  std::string s(c, 4);
  // CHECK-MESSAGES: :[[@LINE-1]]:15: note: the pointer is handed to 'std::basic_string' here
  auto *pt = reinterpret_cast<Point *>(g.data_ptr<float>());
  // CHECK-MESSAGES: :[[@LINE-1]]:42: warning: 'g' is on 'device'
  float px = pt->x;
  // CHECK-MESSAGES: :[[@LINE-1]]:14: note: the pointer is dereferenced on the host here
}

void launch_kernel(const float *device_ptr, int64_t n);

struct NetImpl : torch::nn::Module {
  torch::Tensor forward(torch::Tensor x) {
    float first = x.data_ptr<float>()[0]; // x is on the module's device
    // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: 'x' is on the module's device (an argument of forward()); 'data_ptr' returns
    return x;
  }
};

// Nothing here reads device memory on the host.
void fine(torch::Tensor x, torch::Device device) {
  auto g = x.to(device);
  launch_kernel(g.data_ptr<float>(), g.numel()); // a kernel launcher
  const float *p = g.data_ptr<float>();
  launch_kernel(p, 4);
  float v = g.item<float>(); // item() copies to the host itself
  auto h = g.to(torch::kCPU);
  float w = h.data_ptr<float>()[0];
  float z = g.cpu().data_ptr<float>()[0];
  std::vector<float> copy(h.data_ptr<float>(), h.data_ptr<float>() + 4);
  float *unused = g.data_ptr<float>(); // never read
  auto cpu = torch::ones({4});
  float c = cpu.data_ptr<float>()[0];
  float y = x.data_ptr<float>()[0]; // device unknown
  std::cout << g.data_ptr<float>() << "\n"; // prints the address
  auto m = g.data_ptr<float>()[0]; // near miss
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: 'g' is on 'device' (moved here); 'data_ptr' returns
}

template <typename T> T first(torch::Tensor x, torch::Device device) {
  return x.to(device).data_ptr<T>()[0]; // templates are skipped
}
template float first<float>(torch::Tensor, torch::Device);
