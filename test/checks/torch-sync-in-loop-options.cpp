// RUN: %check_torch_tidy %s torch-sync-in-loop %t -- %torch_flags
// RUN: %check_torch_tidy --prefix CUSTOM %s torch-sync-in-loop %t.custom \
// RUN:   --tidy-arg=--config-file=%S/Inputs/sync-in-loop-custom.yaml \
// RUN:   -- %torch_flags
// RUN: %check_torch_tidy --via plugin --no-compile --prefix CUSTOM %s torch-sync-in-loop %t.plugin \
// RUN:   --tidy-arg=--config-file=%S/Inputs/sync-in-loop-custom.yaml \
// RUN:   -- %torch_flags
// RUN: not %torch-tidy %S/Inputs/empty.cpp --checks=-*,torch-sync-in-loop \
// RUN:   --config='{CheckOptions: {torch-sync-in-loop.AllowInPeriodicGuard: sometimes}}' -- -std=c++17 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BAD-BOOL
// RUN: not %torch-tidy %S/Inputs/empty.cpp --checks=-*,torch-sync-in-loop \
// RUN:   --config="{CheckOptions: {torch-sync-in-loop.SyncFunctions: 'item;cpu()'}}" -- -std=c++17 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BAD-LIST
// BAD-BOOL: error: invalid value 'sometimes' for option 'torch-sync-in-loop.AllowInPeriodicGuard'; expected 'true' or 'false' [clang-tidy-config]
// BAD-LIST: error: invalid entry 'cpu()' in option 'torch-sync-in-loop.SyncFunctions'; expected a ';'-separated list of names

// Default options, then SyncFunctions: 'item;::myproj::wait_all;print' with
// AllowInPeriodicGuard: false and HostBufferCopies: false.
#include <torch/torch.h>

namespace myproj {
void wait_all() {}
} // namespace myproj

void options(torch::Tensor loss, torch::Device device) {
  auto host = torch::zeros({100});
  auto on_device = torch::ones({100}, device);
  for (int step = 0; step < 100; ++step) {
    loss.backward();
    host[step] = on_device[step];
    // CHECK-MESSAGES: :[[@LINE-1]]:16: warning: assigning a tensor into a view copies a tensor on 'device' into a CPU tensor
    float a = loss.item<float>();
    // CHECK-MESSAGES: :[[@LINE-1]]:20: warning: 'Tensor::item' makes the host wait
    // CHECK-MESSAGES-CUSTOM: :[[@LINE-2]]:20: warning: 'Tensor::item' makes the host wait
    auto c = loss.cpu();
    // CHECK-MESSAGES: :[[@LINE-1]]:19: warning: 'Tensor::cpu' makes the host wait
    myproj::wait_all();
    // CHECK-MESSAGES-CUSTOM: :[[@LINE-1]]:5: warning: 'myproj::wait_all' makes the host wait for the device on every iteration of this training loop
    loss.print();
    // CHECK-MESSAGES-CUSTOM: :[[@LINE-1]]:10: warning: 'Tensor::print' makes the host wait
    if (step % 10 == 0)
      std::cout << loss.item<float>() << loss << "\n";
    // CHECK-MESSAGES-CUSTOM: :[[@LINE-1]]:25: warning: 'Tensor::item' makes the host wait
    torch::cuda::synchronize();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'torch::cuda::synchronize' makes the host wait for all queued device work
    (void)a;
    (void)c;
  }
}
