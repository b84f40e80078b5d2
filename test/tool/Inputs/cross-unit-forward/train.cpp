#include "decoder.h"

int main() {
  torch::Device device(torch::cuda::is_available() ? torch::kCUDA
                                                   : torch::kCPU);
  Decoder decoder;
  decoder->to(device);
  torch::optim::SGD opt(decoder->parameters(), 0.1);
  for (int step = 0; step < 100; ++step) {
    auto features = torch::rand({4, 8}, device);
    auto lengths = torch::tensor({3, 2, 1, 1});
    auto loss = decoder->forward(features, lengths).sum();
    opt.zero_grad();
    loss.backward();
    opt.step();
  }
  return 0;
}
