#include <torch/torch.h>

void suppressed(torch::Tensor x, torch::Device d) {
  x.to(d); // NOLINT
  x.to(d); // NOLINT(torch-discarded-to)
  x.to(d); // NOLINT(bugprone-*)
  // CHECK: nolint.cpp:[[@LINE-1]]:5: warning: result of 'Tensor::to' is discarded
  // NOLINTNEXTLINE(torch-*)
  x.cuda();
  // NOLINTBEGIN(torch-discarded-to)
  x.cpu();
  x.detach();
  // NOLINTEND(torch-discarded-to)
  x.clone();
  // CHECK: nolint.cpp:[[@LINE-1]]:5: warning: result of 'Tensor::clone' is discarded
}
