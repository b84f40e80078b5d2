// RUN: %check_torch_tidy %s torch-sync-in-loop %t -- %torch_flags

// Tensor members of the user's structs and classes (CallerDevices.h): a
// member holds what the file stores in it, in any object of its class:
// assignments, constructor initializers, aggregate initialization, and what
// a function assigns to the non-const reference it is given. When every
// stored value is on the CPU, reading the member waits for no device. A
// member that a pointer or another reference reaches, or that has an
// in-class initializer, is not followed, and its reads are reported.
#include <torch/torch.h>
#include <utility>
#include <vector>

// --- Not reported: every store is a CPU tensor -------------------------------

// A data loader's sample (round 29): intrinsics read from a file, scaled in
// place by a helper that reads them on the host, once per sample.
struct Sample {
  torch::Tensor image;
  torch::Tensor intrinsics;
};

torch::Tensor load_intrinsics() {
  std::vector<float> v(9, 1.f);
  return torch::from_blob(v.data(), {3, 3}).clone();
}

void resize(Sample &s, float scale) {
  auto K = s.intrinsics.clone();
  for (int64_t i = 0; i < K.size(0); ++i)
    K[i][i] = K[i][i].item<float>() * scale;
  s.intrinsics = K;
}

void normalize(torch::Tensor &t) { t = t / 255; }

Sample get_sample() {
  Sample s;
  s.image = torch::rand({3, 8, 8});
  s.intrinsics = load_intrinsics();
  normalize(s.image);
  resize(s, 0.5f);
  return s;
}

// An aggregate built from CPU tensors, and a class whose constructor
// initializes its member on the CPU.
struct Box {
  torch::Tensor corners;
};
Box make_box() { return Box{torch::rand({4, 2})}; }

class Anchors {
public:
  explicit Anchors(int n) : table_(torch::zeros({n, 2})) {}
  float width(int64_t i) const { return table_[i][0].item<float>(); }

private:
  torch::Tensor table_;
};

// A pending transition filled from the CPU copies its caller passes
// (round 34's rollout state).
struct Pending {
  torch::Tensor obs;
  bool has = false;
};
struct Tracker {
  Pending pending[2];
  void record(int p, torch::Tensor obs) {
    Pending &q = pending[p];
    q.obs = std::move(obs);
    q.has = true;
  }
};

void train(torch::nn::Linear model, torch::optim::SGD &opt,
           torch::Device device, Tracker &tracker, const Anchors &anchors) {
  for (int step = 0; step < 100; ++step) {
    Sample s = get_sample();
    float fx = s.intrinsics[0][0].item<float>();
    float first = s.image.flatten()[0].item<float>();
    Box b = make_box();
    float x0 = b.corners[0][0].item<float>();
    float w = anchors.width(0);
    auto out = model->forward(s.image.to(device).flatten().narrow(0, 0, 4));
    tracker.record(0, out.detach().cpu());
    // CHECK-MESSAGES: :[[@LINE-1]]:36: warning: 'Tensor::cpu' makes the host wait for the device on every iteration of this training loop
    float seen = tracker.pending[0].obs[0].item<float>();
    out.sum().backward();
    opt.step();
    (void)fx, (void)first, (void)x0, (void)w, (void)seen;
  }
}

// --- Reported ---------------------------------------------------------------

// A store on the device anywhere in the file.
struct Detection {
  torch::Tensor scores;
};
Detection detect(torch::nn::Linear model, const torch::Tensor &x) {
  Detection d;
  d.scores = model->forward(x);
  return d;
}
Detection empty_detection() { return Detection{torch::zeros({4})}; }

// Address taken: stores through the pointer are not seen.
struct Buffer {
  torch::Tensor data;
};
void fill(torch::Tensor *t, torch::Device device) {
  *t = torch::ones({4}, device);
}

// An in-class initializer, which the implicit constructor runs.
struct Defaults {
  torch::Tensor weights = torch::ones({4}, torch::kCUDA);
};

// Swapped with a tensor of unknown device.
struct Swapped {
  torch::Tensor value;
};

void infer(torch::nn::Linear model, torch::Device device, Swapped &sw,
           const torch::Tensor &other) {
  model->to(device);
  Buffer buf;
  buf.data = torch::zeros({4});
  fill(&buf.data, device);
  Defaults defaults;
  sw.value = torch::zeros({4});
  std::swap(sw.value, const_cast<torch::Tensor &>(other));
  for (int step = 0; step < 100; ++step) {
    torch::NoGradGuard no_grad;
    Detection d = step % 2 ? empty_detection()
                           : detect(model, torch::rand({4}).to(device));
    float best = d.scores[0].item<float>();
    // CHECK-MESSAGES: :[[@LINE-1]]:30: warning: 'Tensor::item' makes the host wait for the device on every iteration of this inference loop
    float b0 = buf.data[0].item<float>();
    // CHECK-MESSAGES: :[[@LINE-1]]:28: warning: 'Tensor::item' makes the host
    float w0 = defaults.weights[0].item<float>();
    // CHECK-MESSAGES: :[[@LINE-1]]:36: warning: 'Tensor::item' makes the host
    float v0 = sw.value[0].item<float>();
    // CHECK-MESSAGES: :[[@LINE-1]]:28: warning: 'Tensor::item' makes the host
    (void)best, (void)b0, (void)w0, (void)v0;
  }
}

// A module's member is the module's: not followed here (moved by ->to()).
struct Head : torch::nn::Module {
  Head() : bias(register_buffer("bias", torch::zeros({4}))) {}
  torch::Tensor forward(torch::Tensor x) { return x + bias; }
  torch::Tensor bias;
};

void run_head(std::shared_ptr<Head> head, torch::Device device) {
  head->to(device);
  for (int step = 0; step < 100; ++step) {
    torch::NoGradGuard no_grad;
    auto y = head->forward(torch::rand({4}, device));
    float b = head->bias[0].item<float>();
    // CHECK-MESSAGES: :[[@LINE-1]]:29: warning: 'Tensor::item' makes the host
    (void)y, (void)b;
  }
}
