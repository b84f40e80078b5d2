#include <torch/torch.h>
#include "loop.tpp"
int main() {
  torch::nn::Linear net(4, 1);
  net->to(torch::kCUDA);
  torch::optim::SGD opt(net->parameters(), 0.1);
  trainLoop(net, opt, torch::rand({2, 4}, torch::kCUDA));
}
