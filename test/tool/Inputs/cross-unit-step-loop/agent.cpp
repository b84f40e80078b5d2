#include "agent.h"

Agent::Agent(torch::Device device)
    : net(torch::nn::Linear(4, 1)), opt(net->parameters(), 0.1),
      device(device) {
  net->to(device);
}

torch::Tensor Agent::act(const torch::Tensor &obs) {
  torch::NoGradGuard no_grad;
  return torch::tanh(net->forward(obs.to(device)));
}

// A training step.
void Agent::learn(const torch::Tensor &batch) {
  torch::Tensor loss = net->forward(batch.to(device)).pow(2).mean();
  opt.zero_grad();
  loss.backward();
  opt.step();
}

// No step: a loop that calls only this is not a step loop.
torch::Tensor Agent::scale(const torch::Tensor &x) { return x.to(device) * 2; }
