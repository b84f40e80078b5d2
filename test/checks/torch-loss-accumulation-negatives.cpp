// Normal patterns: nothing is flagged and nothing is changed.
// RUN: %check_torch_tidy %s torch-loss-accumulation %t -- %torch_flags
// RUN: %check_torch_tidy --via plugin --no-compile %s torch-loss-accumulation %t.plugin -- %torch_flags

#include <torch/torch.h>
#include <map>
#include <vector>

void plain_values(torch::nn::Linear model, const std::vector<torch::Tensor> &xs) {
  std::vector<float> values;
  std::vector<torch::Tensor> detached;
  std::map<int, double> by_step;
  double total = 0;
  torch::Tensor sum = torch::zeros({});
  int step = 0;
  for (const auto &x : xs) {
    auto loss = torch::mse_loss(model(x), x);
    loss.backward();
    values.push_back(loss.item<float>());
    detached.push_back(loss.detach());
    detached.push_back(loss.cpu().detach());
    detached.push_back(loss.data());
    by_step[step++] = loss.item<double>();
    total += loss.item<double>();
    sum += loss.detach();
    auto plain = loss.detach();
    detached.push_back(plain * 2);
    detached.push_back(torch::zeros_like(loss));
    detached.push_back(model(x).argmax(1));
    detached.push_back(std::get<1>(model(x).max(1)));
  }
}

// Containers created in each iteration die with it.
void per_iteration(torch::nn::Linear model, const std::vector<torch::Tensor> &xs) {
  for (const auto &x : xs) {
    std::vector<torch::Tensor> terms;
    terms.push_back(model(x).sum());
    terms.push_back(torch::mse_loss(model(x), x));
    torch::Tensor step_total = torch::zeros({});
    step_total += terms[0];
  }
  for (std::vector<torch::Tensor> copy : std::vector<std::vector<torch::Tensor>>(2))
    copy.push_back(model(xs[0]));
}

// Evaluation loops under NoGradGuard / InferenceMode keep no graph.
std::vector<torch::Tensor> evaluate(torch::nn::Linear model,
                                    const std::vector<torch::Tensor> &xs) {
  std::vector<torch::Tensor> outputs;
  torch::Tensor total = torch::zeros({});
  torch::NoGradGuard no_grad;
  for (const auto &x : xs) {
    auto out = model(x);
    outputs.push_back(out);
    total += torch::mse_loss(out, x);
  }
  return outputs;
}

std::vector<torch::Tensor> infer(torch::nn::Sequential seq,
                                 const std::vector<torch::Tensor> &xs) {
  std::vector<torch::Tensor> outputs;
  for (const auto &x : xs) {
    c10::InferenceMode guard;
    outputs.push_back(seq->forward(x));
  }
  {
    torch::AutoGradMode disabled(false);
    for (const auto &x : xs)
      outputs.push_back(seq->forward(x));
  }
  return outputs;
}

// Summing loss terms before backward() is how gradients are accumulated.
void backpropagated(torch::nn::Linear model, const std::vector<torch::Tensor> &xs,
                    torch::optim::SGD &opt) {
  torch::Tensor loss = torch::zeros({});
  for (const auto &x : xs)
    loss += torch::mse_loss(model(x), x);
  loss.backward();

  torch::Tensor acc = torch::zeros({});
  for (const auto &x : xs)
    acc = acc + model(x).sum();
  auto mean = acc / static_cast<double>(xs.size());
  torch::autograd::backward({mean});

  std::vector<torch::Tensor> terms;
  for (const auto &x : xs)
    terms.push_back(torch::mse_loss(model(x), x));
  torch::stack(terms).sum().backward();
  opt.step();
}

// The same graph stored on every iteration: nothing accumulates.
void same_graph(torch::nn::Linear model, torch::Tensor x) {
  std::vector<torch::Tensor> copies;
  auto out = model(x);
  for (int i = 0; i < 3; ++i)
    copies.push_back(out);
}

// Tensors that never saw a module or a loss carry no graph.
void no_source(const std::vector<torch::Tensor> &xs) {
  std::vector<torch::Tensor> kept;
  torch::Tensor total = torch::zeros({});
  for (const auto &x : xs) {
    kept.push_back(x * 2);
    total += x.sum();
  }
}
