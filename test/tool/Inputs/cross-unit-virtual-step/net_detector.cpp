#include "detector.h"
#include <iostream>

NetDetector::NetDetector(torch::Device device)
    : net(4, 2), device(device), input(torch::ones({1, 4}, device)) {
  net->to(device);
}

void NetDetector::process() {
  torch::Tensor pred = net->forward(input);
  if (device == torch::kCPU) {
    scores = pred.to(torch::kCPU); // the CPU build: nothing to wait for
  } else if (device == torch::kCUDA) {
    scores = pred.to(torch::kFloat).to(torch::kCPU);
  }
  if (!device.is_cuda())
    std::cout << pred.sum().item<float>() << "\n"; // the CPU build again
}

void NetDetector::report() { std::cout << "frame done\n"; }
