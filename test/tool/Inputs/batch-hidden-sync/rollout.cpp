#include <torch/torch.h>
#include <vector>

// A rollout buffer that copies what it is given to the host, when it is
// not there already.
struct Buffer {
  std::vector<torch::Tensor> obs;
  void push(torch::Tensor o) {
    if (!o.is_cpu())
      o = o.to(torch::kCPU);
    obs.push_back(o);
  }
};

// A transition kept until the next step: filled from the CPU copy the loop
// makes.
struct Pending {
  torch::Tensor obs;
};
struct Tracker {
  Pending pending;
  void record(torch::Tensor obs) { pending.obs = std::move(obs); }
  void flush(Buffer &buf) { buf.push(pending.obs); }
};

void log_value(const torch::Tensor &v) { std::printf("%f\n", v.item<float>()); }

int main() {
  torch::Device device(torch::cuda::is_available() ? torch::kCUDA : torch::kCPU);
  torch::nn::Linear policy(4, 2);
  policy->to(device);
  Tracker tracker;
  Buffer buf;
  for (int step = 0; step < 100; ++step) {
    torch::NoGradGuard no_grad;
    torch::Tensor out = policy->forward(torch::rand({4}, device));
    torch::Tensor host = out.cpu();
    tracker.record(host);
    tracker.flush(buf);
    log_value(host[0]);
  }
  return 0;
}
