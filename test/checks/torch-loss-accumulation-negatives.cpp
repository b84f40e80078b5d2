// Normal patterns: nothing is flagged and nothing is changed.
// RUN: %check_torch_tidy %s torch-loss-accumulation %t -- %torch_flags
// RUN: %check_torch_tidy --via plugin --no-compile %s torch-loss-accumulation %t.plugin -- %torch_flags

#include <torch/torch.h>
#include <map>
#include <string>
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

// Issue 14, from real code: none of these keeps a graph past one step.
void apply_step(torch::Tensor loss, torch::optim::SGD &opt) {
  loss.backward();
  opt.step();
}

// Per-step composition: the total is made afresh in every step, summed over
// the tasks, then handed to a function that calls backward().
void multi_task(torch::nn::Linear heads, torch::optim::SGD &opt,
                const std::vector<torch::Tensor> &tasks, torch::Tensor y) {
  const float weight = 0.5f;
  for (int step = 0; step < 100; ++step) {
    opt.zero_grad();
    torch::Tensor loss = torch::zeros({});
    for (const auto &x : tasks)
      loss += torch::mse_loss(heads->forward(x), y) * weight;
    apply_step(loss, opt);
  }
}

// Per-level outputs collected in forward() and returned for the caller's
// backward().
struct PyramidImpl : torch::nn::Module {
  PyramidImpl() {
    for (int i = 0; i < 3; ++i)
      levels.push_back(register_module("l" + std::to_string(i),
                                       torch::nn::Linear(4, 4)));
  }
  std::vector<torch::Tensor> forward(torch::Tensor x) {
    std::vector<torch::Tensor> outs;
    for (auto &level : levels) {
      x = level->forward(x);
      outs.push_back(x);
    }
    return outs;
  }
  torch::Tensor fused(torch::Tensor x) {
    torch::Tensor sum = torch::zeros({});
    for (const auto &o : forward(x))
      sum = sum + o.mean();
    return sum;
  }
  std::vector<torch::nn::Linear> levels;
};
TORCH_MODULE(Pyramid);

// A per-scale loop in a loss function.
torch::Tensor multi_scale_loss(const std::vector<torch::Tensor> &preds,
                               const std::vector<torch::Tensor> &targets) {
  std::vector<torch::Tensor> per_scale;
  for (size_t s = 0; s < preds.size(); ++s)
    per_scale.push_back(torch::mse_loss(preds[s], targets[s]));
  return torch::stack(per_scale).sum();
}

// Integer tensors carry no graph.
void sampled_ids(torch::nn::Linear model, torch::Tensor x) {
  std::vector<torch::Tensor> ids, samples;
  for (int step = 0; step < 10; ++step) {
    auto logits = model->forward(x);
    ids.push_back(logits.argmax(1));
    samples.push_back(torch::multinomial(logits.softmax(1), 1));
  }
}

// Greedy decoding: the ids grow step by step, taken from a local max tuple.
torch::Tensor greedy(torch::nn::Linear model, torch::Tensor x) {
  torch::Tensor ys = torch::ones({1, 1}, torch::kLong);
  for (int step = 0; step < 10; ++step) {
    auto prob = model->forward(x);
    std::tuple<torch::Tensor, torch::Tensor> best = torch::max(prob, 1);
    torch::Tensor next = std::get<1>(best);
    ys = torch::cat({ys, torch::ones({1, 1}, torch::kLong).fill_(next)}, 0);
  }
  return ys;
}

// A loss that composes one call's terms over the output scales: the locals
// are made and returned in each call, and the caller backward()s their sum
// every step, so no graph outlives a step.
struct YoloLossImpl : torch::nn::Module {
  torch::nn::BCEWithLogitsLoss bce_obj, bce_cls;
  std::tuple<torch::Tensor, torch::Tensor, torch::Tensor>
  forward_scales(const std::vector<torch::Tensor> &preds,
                 const std::vector<torch::Tensor> &targets) {
    auto lbox = torch::zeros({1}, preds[0].options());
    auto lobj = torch::zeros({1}, preds[0].options());
    auto lcls = torch::zeros({1}, preds[0].options());
    std::vector<torch::Tensor> per_scale;
    for (size_t i = 0; i < preds.size(); ++i) {
      auto pi = preds[i];
      lobj += bce_obj(pi.select(-1, 4), targets[i].select(-1, 4));
      lcls = lcls + bce_cls(pi.narrow(-1, 5, 80), targets[i].narrow(-1, 5, 80));
      lbox += (1.0 - pi.narrow(-1, 0, 4)).pow(2).mean();
      per_scale.push_back(lobj);
    }
    return {lbox, lobj, lcls};
  }
};

// A map entry written under the same key every step holds one step's graph
// at a time: nothing accumulates (a training loop's "latest losses" map).
void latest_losses(torch::nn::Linear model, torch::optim::SGD &opt,
                   const std::vector<torch::Tensor> &xs) {
  std::map<std::string, torch::Tensor> latest;
  std::vector<torch::Tensor> slots(2);
  for (const auto &x : xs) {
    auto loss = torch::mse_loss(model(x), x);
    latest["loss"] = loss;
    slots[0] = loss;
    opt.zero_grad();
    loss.backward();
    opt.step();
  }
}

// A container emptied at the top of every iteration holds that iteration's
// values only (a simulator's inputs, rebuilt around its new state).
void rebuilt_inputs(torch::jit::script::Module &module, torch::Tensor cmd) {
  std::vector<torch::jit::IValue> inputs{torch::zeros({1, 4}), cmd};
  for (int step = 0; step < 5000; ++step) {
    torch::Tensor state = module.forward(inputs).toTensor();
    inputs.clear();
    inputs.emplace_back(state);
    inputs.emplace_back(cmd);
  }
}
