// RUN: %check_torch_tidy %s torch-loss-accumulation %t -- %torch_flags
// RUN: %check_torch_tidy --via plugin --no-compile %s torch-loss-accumulation %t.plugin -- %torch_flags
// The same file as a CUDA unit's host side (clang -x cuda --cuda-host-only):
// the same findings and fixes.
// RUN: %if cuda-variants %{ %check_torch_tidy %s torch-loss-accumulation %t.cuda -- %cuda_flags %}

#include <torch/torch.h>
#include <deque>
#include <list>
#include <map>
#include <queue>
#include <unordered_map>
#include <vector>

struct Net : torch::nn::Module {
  torch::nn::Linear fc{nullptr};
  Net() { fc = register_module("fc", torch::nn::Linear(4, 1)); }
  torch::Tensor forward(torch::Tensor x) { return fc(x); }
};

void containers(Net &net, torch::optim::SGD &opt,
                const std::vector<torch::Tensor> &batches) {
  std::vector<torch::Tensor> losses;
  std::deque<torch::Tensor> window;
  std::list<torch::Tensor> all;
  std::queue<torch::Tensor> pending;
  std::map<int, torch::Tensor> by_step;
  std::unordered_map<int, torch::Tensor> by_id;
  std::vector<std::pair<std::string, torch::Tensor>> named;
  int step = 0;
  for (const auto &x : batches) {
    opt.zero_grad();
    auto loss = torch::mse_loss(net.forward(x), x);
    loss.backward();
    opt.step();
    losses.push_back(loss);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'loss' is stored with its autograd graph in 'losses', which outlives this loop: every step's graph stays in memory; store 'loss.detach()' or 'loss.item<float>()' [torch-loss-accumulation]
    // CHECK-MESSAGES: :[[@LINE-7]]:3: note: the loop that repeats the store
    // CHECK-MESSAGES: :[[@LINE-3]]:22: note: if only the value is needed, store 'loss.item<float>()' in a container of float
    // CHECK-FIXES: losses.push_back(loss.detach());
    losses.emplace_back(loss * 0.5);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'loss * 0.5' is stored with its autograd graph in 'losses', which outlives this loop: every step's graph stays in memory; store '(loss * 0.5).detach()' or '(loss * 0.5).item<float>()'
    // CHECK-FIXES: losses.emplace_back((loss * 0.5).detach());
    window.push_front(loss);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'loss' is stored with its autograd graph in 'window'
    // CHECK-FIXES: window.push_front(loss.detach());
    all.insert(all.end(), loss);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'loss' is stored with its autograd graph in 'all'
    // CHECK-FIXES: all.insert(all.end(), loss.detach());
    pending.push(loss);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'loss' is stored with its autograd graph in 'pending'
    // CHECK-FIXES: pending.push(loss.detach());
    by_step[step] = loss;
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'loss' is stored with its autograd graph in 'by_step'
    // CHECK-FIXES: by_step[step] = loss.detach();
    by_id.emplace(step, loss);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'loss' is stored with its autograd graph in 'by_id'
    // CHECK-FIXES: by_id.emplace(step, loss.detach());
    by_id.insert({step + 1, loss});
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'loss' is stored with its autograd graph in 'by_id'
    // CHECK-FIXES: by_id.insert({step + 1, loss.detach()});
    named.emplace_back("mse", loss);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'loss' is stored with its autograd graph in 'named'
    // CHECK-FIXES: named.emplace_back("mse", loss.detach());
    ++step;
  }
}

struct Trainer {
  torch::nn::Linear model{4, 2};
  torch::nn::CrossEntropyLoss criterion;
  std::vector<torch::Tensor> history_;
  void epoch(const std::vector<torch::Tensor> &xs, torch::Tensor y) {
    for (size_t i = 0; i < xs.size(); ++i) {
      torch::Tensor logits = model(xs[i]);
      torch::Tensor loss;
      loss = criterion(logits, y);
      history_.push_back(loss);
      // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: 'loss' is stored with its autograd graph in 'history_'
      // CHECK-MESSAGES: :[[@LINE-6]]:5: note: the loop that repeats the store
      // CHECK-FIXES: history_.push_back(loss.detach());
    }
  }
};

void accumulators(torch::nn::Sequential seq, torch::Tensor x, torch::Tensor y,
                  int steps) {
  torch::Tensor total = torch::zeros({});
  torch::Tensor running = torch::zeros({});
  torch::Tensor sum_sq = torch::zeros({});
  int i = 0;
  while (i++ < steps) {
    auto out = seq->forward(x);
    auto loss = torch::nn::functional::mse_loss(out, y);
    total += loss;
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'loss' is accumulated with its autograd graph into 'total', which outlives this loop: every step's graph stays in memory; accumulate 'loss.detach()' or 'loss.item<float>()'
    // CHECK-MESSAGES: :[[@LINE-5]]:3: note: the loop that repeats the store
    // CHECK-MESSAGES: :[[@LINE-3]]:14: note: if only the value is needed, accumulate 'loss.item<float>()' into a float
    // CHECK-FIXES: total += loss.detach();
    running = running + loss;
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'loss' is accumulated with its autograd graph into 'running'
    // CHECK-FIXES: running = running + loss.detach();
    sum_sq -= loss * loss;
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'loss * loss' is accumulated with its autograd graph into 'sum_sq'
    // CHECK-FIXES: sum_sq -= (loss * loss).detach();
  }
}

// Outputs collected by an evaluation loop that forgot torch::NoGradGuard.
std::vector<torch::Tensor> predict(torch::nn::Linear model,
                                   const std::vector<torch::Tensor> &xs) {
  std::vector<torch::Tensor> outputs;
  torch::Tensor all = torch::empty({0, 2});
  for (const auto &x : xs) {
    torch::Tensor out = model(x);
    outputs.push_back(out.softmax(1));
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'out.softmax(1)' is stored with its autograd graph in 'outputs', which outlives this loop: every step's graph stays in memory; store 'out.softmax(1).detach()' [torch-loss-accumulation]
    // CHECK-MESSAGES: :[[@LINE-4]]:3: note: the loop that repeats the store
    // CHECK-FIXES: outputs.push_back(out.softmax(1).detach());
    all = torch::cat({all, out}, 0);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'out' is accumulated with its autograd graph into 'all'
    // CHECK-FIXES: all = torch::cat({all, out.detach()}, 0);
  }
  return outputs;
}

// The container outlives the inner loop only: the note names that loop.
void nested(torch::nn::Linear model, const std::vector<torch::Tensor> &xs) {
  for (int epoch = 0; epoch < 3; ++epoch) {
    std::vector<torch::Tensor> epoch_outputs;
    for (const auto &x : xs) {
      epoch_outputs.push_back(model->forward(x));
      // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: 'model->forward(x)' is stored with its autograd graph in 'epoch_outputs'
      // CHECK-MESSAGES: :[[@LINE-3]]:5: note: the loop that repeats the store
      // CHECK-FIXES: epoch_outputs.push_back(model->forward(x).detach());
    }
  }
}

void jit_module(torch::jit::Module &module, const std::vector<torch::Tensor> &xs) {
  std::vector<torch::Tensor> outs;
  for (const auto &x : xs) {
    auto out = module.forward({x}).toTensor();
    outs.push_back(out);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'out' is stored with its autograd graph in 'outs'
    // CHECK-FIXES: outs.push_back(out.detach());
  }
}

// Made afresh every epoch, yet it outlives the training steps of the epoch.
void per_epoch(Net &net, torch::optim::SGD &opt,
               const std::vector<torch::Tensor> &batches) {
  for (int epoch = 0; epoch < 3; ++epoch) {
    std::vector<torch::Tensor> epoch_losses;
    for (const auto &x : batches) {
      opt.zero_grad();
      auto loss = torch::mse_loss(net.forward(x), x);
      loss.backward();
      opt.step();
      epoch_losses.push_back(loss);
      // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: 'loss' is stored with its autograd graph in 'epoch_losses', which outlives this loop
      // CHECK-MESSAGES: :[[@LINE-7]]:5: note: the loop that repeats the store
      // CHECK-MESSAGES: :[[@LINE-3]]:30: note: if only the value is needed
      // CHECK-FIXES: epoch_losses.push_back(loss.detach());
    }
  }
}

// Emptied only now and then, or after the store: the graphs in between
// stay. Near miss: torch-loss-accumulation-negatives.cpp, rebuilt_inputs.
void cleared_sometimes(torch::jit::script::Module &module, torch::Tensor cmd) {
  std::vector<torch::jit::IValue> inputs{torch::zeros({1, 4}), cmd};
  std::vector<torch::Tensor> states;
  for (int step = 0; step < 5000; ++step) {
    torch::Tensor state = module.forward(inputs).toTensor();
    if (step % 100 == 0)
      inputs.clear();
    inputs.emplace_back(state);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'state' is stored with its autograd graph in 'inputs', which outlives this loop
    // CHECK-MESSAGES: :[[@LINE-6]]:3: note: the loop that repeats the store
    // CHECK-FIXES: inputs.emplace_back(state.detach());
    states.push_back(state);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'state' is stored with its autograd graph in 'states', which outlives this loop
    // CHECK-MESSAGES: :[[@LINE-10]]:3: note: the loop that repeats the store
    // CHECK-FIXES: states.push_back(state.detach());
    states.clear();
  }
}
