#include "client.h"

int main() {
  torch::Device device(torch::kCUDA);
  Client client(device);
  client.calibrate();
  std::vector<float> frame;
  while (true) {
    client.getFeed(frame, false);
    if (frame.empty())
      break;
  }
  return 0;
}
