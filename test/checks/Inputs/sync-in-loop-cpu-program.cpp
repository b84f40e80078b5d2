// A whole program that never names a GPU: its tensors stay on the CPU.
#include <torch/torch.h>

torch::Tensor next_batch(); // its device is not known where it is called

int main() {
  for (int step = 0; step < 10; ++step) {
    auto loss = next_batch().pow(2).sum();
    loss.backward();
    std::printf("%f\n", loss.item<float>());
  }
  return 0;
}

torch::Tensor next_batch() { return torch::randn({8, 4}); }
