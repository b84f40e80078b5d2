#include "agent.h"

// Reads a CPU tensor: what the program's functions read in the step loop is
// not followed, and the call is not reported.
static float first(const torch::Tensor &t) { return t[0].item<float>(); }

int main() {
  torch::Device device(torch::cuda::is_available() ? torch::kCUDA
                                                   : torch::kCPU);
  Agent agent(device);
  for (int episode = 0; episode < 100; ++episode) {
    bool done = false;
    while (!done) {
      torch::Tensor action = agent.act(torch::rand({1, 4}));
      done = action.item<float>() > 0.5f;
      agent.learn(torch::rand({8, 4}));
      done = done || first(torch::rand({2})) > 2.0f;
    }
  }
  double total = 0;
  for (int i = 0; i < 5; ++i)
    total += agent.scale(torch::rand({1})).item<float>();
  return total > 0;
}
