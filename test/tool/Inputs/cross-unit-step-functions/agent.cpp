#include "agent.h"

Agent::Agent(torch::Device device)
    : net(torch::nn::Linear(4, 2)), opt(net->parameters(), 0.1),
      device(device) {
  net->to(device);
}

// Runs the model: a loop in another file that calls it runs once per step.
// Both branches of its last `if` return, as the function ends: the read
// runs on most calls.
int Agent::act(const torch::Tensor &obs) {
  if (std::rand() < RAND_MAX / 10)
    return std::rand() % 2;
  else {
    torch::NoGradGuard no_grad;
    return net->forward(obs.to(device)).argmax(1).item<int>();
  }
}

// A training step. Its early return runs once, not per step.
void Agent::learn(const torch::Tensor &batch) {
  if (batch.size(0) == 0) {
    std::printf("empty batch %f\n", batch.to(device).sum().item<float>());
    return;
  }
  torch::Tensor loss = net->forward(batch.to(device)).pow(2).mean();
  opt.zero_grad();
  loss.backward();
  torch::nn::utils::clip_grad_norm_(net->parameters(), 1.0);
  opt.step();
}

// Called once per episode, beside the step loop.
void Agent::log_episode(const torch::Tensor &reward) {
  std::printf("%f\n", reward.to(device).sum().item<float>());
}

// Trains in a loop of its own: a loop that calls it is not a step loop.
void Agent::fit(int steps) {
  for (int i = 0; i < steps; ++i) {
    torch::Tensor loss = net->forward(torch::rand({8, 4}, device)).sum();
    opt.zero_grad();
    loss.backward();
    opt.step();
  }
}

void Agent::report(const torch::Tensor &score) {
  std::printf("%f\n", score.to(device).item<float>());
}

// Reads a value; only a loop with no step in it calls it.
double Agent::peek(const torch::Tensor &x) {
  return x.to(device).sum().item<double>();
}

// Called once per step with show = false: the branch on the flag is the
// callers' to decide.
void Agent::render(const torch::Tensor &obs, bool show) {
  if (show)
    std::printf("%f\n", net->forward(obs.to(device)).sum().item<float>());
}

// Runs once per step through main.cpp's decode(...): its loop over the
// scales selects with a data-dependent size each time.
std::vector<torch::Tensor>
Decoder::operator()(const std::vector<torch::Tensor> &scales) const {
  std::vector<torch::Tensor> kept;
  for (size_t i = 0; i < scales.size(); ++i) {
    auto s = scales[i].to(device);
    kept.push_back(s.masked_select(s > 0.5));
  }
  return kept;
}
