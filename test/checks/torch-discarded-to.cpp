// RUN: %check_torch_tidy %s torch-discarded-to %t -- %torch_flags
// RUN: %check_torch_tidy --via plugin --no-compile %s torch-discarded-to %t.plugin -- %torch_flags
// The same file as a CUDA unit's host side (clang -x cuda --cuda-host-only):
// the same findings and fixes.
// RUN: %if cuda-variants %{ %check_torch_tidy %s torch-discarded-to %t.cuda -- %cuda_flags %}

#include <torch/torch.h>

void variables(torch::Tensor x, torch::Device device) {
  x.to(device);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: result of 'Tensor::to' is discarded; 'x' is unchanged and stays on its original device; assign it: 'x = x.to(...)' [torch-discarded-to]
  // CHECK-FIXES: x = x.to(device);
  x.to(torch::kCUDA);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: result of 'Tensor::to' is discarded; 'x' is unchanged and stays on its original device
  // CHECK-FIXES: x = x.to(torch::kCUDA);
  x.to(torch::kFloat64);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: result of 'Tensor::to' is discarded; 'x' is unchanged and keeps its original dtype; assign it: 'x = x.to(...)'
  // CHECK-FIXES: x = x.to(torch::kFloat64);
  x.to(device, torch::kHalf, /*non_blocking=*/true);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: result of 'Tensor::to' is discarded
  // CHECK-FIXES: x = x.to(device, torch::kHalf, /*non_blocking=*/true);
  x.to(torch::TensorOptions().dtype(torch::kFloat16));
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: result of 'Tensor::to' is discarded; 'x' is unchanged and keeps its original device and dtype
  // CHECK-FIXES: x = x.to(torch::TensorOptions().dtype(torch::kFloat16));
  torch::Tensor other = torch::ones({2});
  x.to(other);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: result of 'Tensor::to' is discarded
  // CHECK-FIXES: x = x.to(other);
  x.cuda();
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: result of 'Tensor::cuda' is discarded; 'x' is unchanged and stays on its original device; assign it: 'x = x.cuda()'
  // CHECK-FIXES: x = x.cuda();
  x.cpu();
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: result of 'Tensor::cpu' is discarded
  // CHECK-FIXES: x = x.cpu();
  x.toType(torch::kFloat);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: result of 'Tensor::toType' is discarded; 'x' is unchanged and keeps its original dtype
  // CHECK-FIXES: x = x.toType(torch::kFloat);
  x.pin_memory();
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: result of 'Tensor::pin_memory' is discarded; 'x' is unchanged and stays in pageable memory
  // CHECK-FIXES: x = x.pin_memory();
  x.type_as(other);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: result of 'Tensor::type_as' is discarded; 'x' is unchanged and keeps its original dtype and device
  // CHECK-FIXES: x = x.type_as(other);
  x.contiguous();
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: result of 'Tensor::contiguous' is discarded; 'x' is unchanged and keeps its original memory layout; assign it: 'x = x.contiguous()'
  // CHECK-FIXES: x = x.contiguous();
  x.detach();
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: result of 'Tensor::detach' is discarded; 'x' is unchanged and keeps its autograd history
  // CHECK-FIXES: x = x.detach();
  x.clone();
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: result of 'Tensor::clone' is discarded; 'x' is unchanged and the copy is lost
  // CHECK-FIXES: x = x.clone();
  (x.to(device));
  // CHECK-MESSAGES: :[[@LINE-1]]:6: warning: result of 'Tensor::to' is discarded
  // CHECK-FIXES: (x = x.to(device));
}

struct Holder {
  torch::Tensor weight;
  std::vector<torch::Tensor> buffers;
  void move(torch::Device device) {
    weight.to(device);
    // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: result of 'Tensor::to' is discarded; 'weight' is unchanged
    // CHECK-FIXES: weight = weight.to(device);
    this->weight.cuda();
    // CHECK-MESSAGES: :[[@LINE-1]]:18: warning: result of 'Tensor::cuda' is discarded; 'this->weight' is unchanged
    // CHECK-FIXES: this->weight = this->weight.cuda();
    buffers[0].to(device);
    // CHECK-MESSAGES: :[[@LINE-1]]:16: warning: result of 'Tensor::to' is discarded; 'buffers[0]' is unchanged
    // CHECK-FIXES: buffers[0] = buffers[0].to(device);
  }
};

void pointers_and_elements(torch::Tensor *p, torch::Tensor arr[2],
                           torch::Tensor &ref, torch::Device device) {
  p->to(device);
  // CHECK-MESSAGES: :[[@LINE-1]]:6: warning: result of 'Tensor::to' is discarded; 'p' is unchanged and stays on its original device; assign it: '*p = p->to(...)'
  // CHECK-FIXES: *p = p->to(device);
  arr[1].cuda();
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: result of 'Tensor::cuda' is discarded; 'arr[1]' is unchanged
  // CHECK-FIXES: arr[1] = arr[1].cuda();
  ref.to(device);
  // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: result of 'Tensor::to' is discarded; 'ref' is unchanged
  // CHECK-FIXES: ref = ref.to(device);
}

void control_flow(torch::Tensor x, bool flag, torch::Device device) {
  if (flag)
    x.to(device);
  // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: result of 'Tensor::to' is discarded
  // CHECK-FIXES: x = x.to(device);
  else
    x.cpu();
  // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: result of 'Tensor::cpu' is discarded
  // CHECK-FIXES: x = x.cpu();
  for (int i = 0; i < 2; ++i)
    x.cuda();
  // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: result of 'Tensor::cuda' is discarded
  // CHECK-FIXES: x = x.cuda();
  std::vector<torch::Tensor> batch{x, x};
  for (auto &t : batch) {
    t.to(device);
    // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: result of 'Tensor::to' is discarded; 't' is unchanged
    // CHECK-FIXES: t = t.to(device);
  }
  while (flag) {
    x.detach();
    // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: result of 'Tensor::detach' is discarded
    // CHECK-FIXES: x = x.detach();
    flag = false;
  }
  do
    x.contiguous();
  // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: result of 'Tensor::contiguous' is discarded
  // CHECK-FIXES: x = x.contiguous();
  while (false);
  auto lambda = [&x, device] {
    x.to(device);
    // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: result of 'Tensor::to' is discarded
    // CHECK-FIXES: x = x.to(device);
  };
  lambda();
}

void const_and_temporaries(const torch::Tensor &c, torch::Device device) {
  c.to(device);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: result of 'Tensor::to' is discarded; 'c' is unchanged and stays on its original device [torch-discarded-to]
  // CHECK-MESSAGES: :[[@LINE-3]]:49: note: 'c' cannot be reassigned; store the result in a new variable
  torch::ones({2}).to(device);
  // CHECK-MESSAGES: :[[@LINE-1]]:20: warning: result of 'Tensor::to' is discarded; the returned tensor is destroyed unused [torch-discarded-to]
}

void in_place_on_temporary(torch::Tensor x, torch::Device device) {
  x.to(device).add_(1);
  // CHECK-MESSAGES: :[[@LINE-1]]:16: warning: 'Tensor::add_' modifies the temporary returned by 'Tensor::to'; 'x' is unchanged [torch-discarded-to]
  // CHECK-MESSAGES: :[[@LINE-2]]:5: note: assign the converted tensor first: 'x = x.to(...)', then apply the in-place operation to it
  x.cuda().zero_();
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'Tensor::zero_' modifies the temporary returned by 'Tensor::cuda'; 'x' is unchanged
  // CHECK-MESSAGES: :[[@LINE-2]]:5: note: assign the converted tensor first: 'x = x.cuda()'
  x.to(torch::kDouble).mul_(2).clamp_(0, 1);
  // CHECK-MESSAGES: :[[@LINE-1]]:32: warning: 'Tensor::clamp_' modifies the temporary returned by 'Tensor::to'; 'x' is unchanged
  // CHECK-MESSAGES: :[[@LINE-2]]:5: note: assign the converted tensor first
}

// Lambdas: one written in a function is walked with that function, one at
// namespace scope on its own; each finding is reported once.
void nestedLambdas(torch::Tensor x, torch::Device d) {
  auto f = [&] { [&] { x.to(d); }(); };
  // CHECK-MESSAGES: :[[@LINE-1]]:26: warning: result of 'Tensor::to' is discarded; 'x' is unchanged
  // CHECK-FIXES: auto f = [&] { [&] { x = x.to(d); }(); };
  f();
}
auto atNamespaceScope = [](torch::Tensor x, torch::Device d) {
  x.to(d);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: result of 'Tensor::to' is discarded; 'x' is unchanged
  // CHECK-FIXES: x = x.to(d);
  return x;
};
