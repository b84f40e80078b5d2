#include "client.h"

int main() {
  torch::Device device(torch::kCUDA);
  Client client(device);
  client.calibrate();
  std::vector<float> frame;
  int frames = 0;
  while (true) {
    client.getFeed(frame, false);
    if (++frames % 1000 == 0)
      client.snapshot(frames);
    if (frame.empty())
      break;
  }
  return 0;
}
