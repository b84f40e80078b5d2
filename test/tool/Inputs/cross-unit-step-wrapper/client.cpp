#include "client.h"

Client::Client(torch::Device device) : device(device) {
  model = torch::jit::load("model.pt");
  model.to(device);
}

void Client::read(std::vector<float> &frame) { frame.assign(16, 1.0f); }

void Client::getFeed(std::vector<float> &frame, bool debug) {
  read(frame);
  runInference(frame);
  if (debug)
    dump(result);
}

void Client::runInference(const std::vector<float> &frame) {
  auto input = torch::tensor(frame).view({1, 16}).to(device);
  result = model.forward({input}).toTensor().cpu();
}

void Client::dump(const torch::Tensor &x) {
  std::cout << x.to(torch::kCPU) << "\n";
}

void Client::calibrate() {
  auto probe = torch::ones({1, 16}, device);
  std::cout << model.forward({probe}).toTensor().sum().item<float>() << "\n";
}

void Client::snapshot(int frame) {
  calibrate();
  std::cout << frame << " " << result.sum().item<float>() << "\n";
}
