#include "agent.h"

int main() {
  torch::Device device(torch::cuda::is_available() ? torch::kCUDA
                                                   : torch::kCPU);
  Agent agent(device);
  Decoder decode{device};
  for (int episode = 0; episode < 100; ++episode) {
    for (int step = 0; step < 200; ++step) {
      int action = agent.act(torch::rand({1, 4}));
      agent.learn(torch::rand({8, 4}));
      agent.render(torch::rand({1, 4}), false);
      auto kept = decode({torch::rand({3, 4}), torch::rand({3, 2})});
      (void)action;
    }
    agent.log_episode(torch::rand({1}));
  }
  for (int run = 0; run < 3; ++run) {
    agent.fit(10);
    agent.report(torch::rand({1}));
  }
  double total = 0;
  for (int i = 0; i < 5; ++i)
    total += agent.peek(torch::rand({4}));
  return total > 0;
}
