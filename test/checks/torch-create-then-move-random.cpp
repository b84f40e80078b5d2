// RUN: %check_torch_tidy %s torch-create-then-move %t -- %torch_flags
// RUN: %check_torch_tidy --prefix NOTES %s torch-create-then-move %t.notes \
// RUN:   --tidy-arg=--fix-notes -- %torch_flags
// RUN: %check_torch_tidy --prefix OFF %s torch-create-then-move %t.off \
// RUN:   --tidy-arg=--config-file=%S/Inputs/create-then-move-no-random.yaml \
// RUN:   -- %torch_flags

// Random factories moved right away, as data augmentation writes them. The
// transfer is as wasted as for zeros, but created on the device the values
// come from the device's generator: a seeded run draws different numbers.
// So the fix-it sits on the note: --fix leaves the code, --fix-notes (and
// an editor's quick fix) applies it. ReportRandomFactories: false silences
// them; other factories are reported either way.
#include <torch/torch.h>

torch::Tensor augment(torch::Tensor data_in, double p) {
  auto mask = torch::rand({data_in.size(0)}).to(data_in.device()) < p;
  // CHECK-MESSAGES: :[[@LINE-1]]:46: warning: 'torch::rand' allocates and fills this tensor on the CPU, then 'to' copies it to 'data_in.device()'; pass torch::device(data_in.device()) to the factory to create it there [torch-create-then-move]
  // CHECK-MESSAGES: :[[@LINE-2]]:46: note: created on the device, the values come from its random generator, not the CPU's: a seeded run draws different numbers
  // CHECK-FIXES: auto mask = torch::rand({data_in.size(0)}).to(data_in.device()) < p;
  // CHECK-MESSAGES-NOTES: :[[@LINE-4]]:46: warning: 'torch::rand' allocates
  // CHECK-MESSAGES-NOTES: :[[@LINE-5]]:46: note: created on the device
  // CHECK-FIXES-NOTES: auto mask = torch::rand({data_in.size(0)}, torch::device(data_in.device())) < p;
  auto noise = torch::randn({4}).cuda();
  // CHECK-MESSAGES: :[[@LINE-1]]:34: warning: 'torch::randn' allocates
  // CHECK-MESSAGES: :[[@LINE-2]]:34: note: created on the device
  // CHECK-FIXES: auto noise = torch::randn({4}).cuda();
  // CHECK-MESSAGES-NOTES: :[[@LINE-4]]:34: warning: 'torch::randn' allocates
  // CHECK-MESSAGES-NOTES: :[[@LINE-5]]:34: note: created on the device
  // CHECK-FIXES-NOTES: auto noise = torch::randn({4}, torch::device(torch::kCUDA));
  auto zeros = torch::zeros({4}).to(data_in.device());
  // CHECK-MESSAGES: :[[@LINE-1]]:34: warning: 'torch::zeros' allocates
  // CHECK-FIXES: auto zeros = torch::zeros({4}, torch::device(data_in.device()));
  // CHECK-MESSAGES-NOTES: :[[@LINE-3]]:34: warning: 'torch::zeros' allocates
  // CHECK-FIXES-NOTES: auto zeros = torch::zeros({4}, torch::device(data_in.device()));
  // CHECK-MESSAGES-OFF: :[[@LINE-5]]:34: warning: 'torch::zeros' allocates
  // CHECK-FIXES-OFF: auto zeros = torch::zeros({4}, torch::device(data_in.device()));
  return data_in * mask + noise.sum() + zeros;
}

// A random fill in place before the move draws from the CPU's generator
// too: the same note, the same fix on it.
torch::Tensor sample(torch::Tensor mean, torch::Tensor scale) {
  auto eps = torch::empty({4}).normal_().to(mean.device());
  // CHECK-MESSAGES: :[[@LINE-1]]:42: warning: 'torch::empty' allocates this tensor on the CPU, then 'to' copies it to 'mean.device()'
  // CHECK-MESSAGES: :[[@LINE-2]]:42: note: created on the device
  // CHECK-FIXES: auto eps = torch::empty({4}).normal_().to(mean.device());
  // CHECK-MESSAGES-NOTES: :[[@LINE-4]]:42: warning: 'torch::empty' allocates
  // CHECK-MESSAGES-NOTES: :[[@LINE-5]]:42: note: created on the device
  // CHECK-FIXES-NOTES: auto eps = torch::empty({4}, torch::device(mean.device())).normal_();
  auto mixed = torch::empty({4}).normal_(0.0, 1.0).uniform_(-1, 1).to(mean.device());
  // CHECK-MESSAGES: :[[@LINE-1]]:68: warning: 'torch::empty' allocates
  // CHECK-MESSAGES: :[[@LINE-2]]:68: note: created on the device
  // CHECK-MESSAGES-NOTES: :[[@LINE-3]]:68: warning: 'torch::empty' allocates
  // CHECK-MESSAGES-NOTES: :[[@LINE-4]]:68: note: created on the device
  // CHECK-FIXES-NOTES: auto mixed = torch::empty({4}, torch::device(mean.device())).normal_(0.0, 1.0).uniform_(-1, 1);
  // A fill drawn from a tensor's values is a near miss: that tensor may be
  // anywhere.
  auto drawn = torch::empty({4}).bernoulli_(scale).to(mean.device());
  return mean + eps + mixed + drawn;
}
