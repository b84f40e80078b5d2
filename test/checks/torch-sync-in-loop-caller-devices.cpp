// RUN: %check_torch_tidy %s torch-sync-in-loop %t -- %torch_flags

// Tensors that come from the rest of the file (CallerDevices.h): a
// parameter is on the CPU when every call passes a CPU tensor, a function's
// result when every return statement returns one; std::vector<Tensor>
// locals hold what is pushed into them. Reading such a tensor's elements
// waits for no device. Anything that cannot be followed is reported.
#include <torch/torch.h>
#include <vector>

// --- Reported ---------------------------------------------------------------

// No call in this file: the callers' device is not known.
float no_caller(torch::Tensor boxes) {
  float s = 0;
  for (int64_t i = 0; i < boxes.size(0); ++i)
    s += boxes[i][0].item<float>();
  // CHECK-MESSAGES: :[[@LINE-1]]:22: warning: 'Tensor::item' makes the host wait for the device on every iteration of this loop over 'boxes'
  return s;
}

float one_gpu_caller(torch::Tensor boxes) {
  float s = 0;
  for (int64_t i = 0; i < boxes.size(0); ++i)
    s += boxes[i][0].item<float>();
  // CHECK-MESSAGES: :[[@LINE-1]]:22: warning: 'Tensor::item' makes the host
  return s;
}
void call_with_cpu_and_gpu() {
  one_gpu_caller(torch::rand({4, 4}));
  one_gpu_caller(torch::rand({4, 4}, torch::kCUDA));
}

torch::Tensor on_gpu() { return torch::rand({4, 4}).cuda(); }
torch::Tensor declared_only();
void results_not_on_cpu() {
  torch::Tensor a = on_gpu(), b = declared_only();
  for (int64_t i = 0; i < a.size(0); ++i) {
    a[i].item<float>();
    // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: 'Tensor::item' makes the host
    b[i].item<float>();
    // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: 'Tensor::item' makes the host
  }
}

std::vector<torch::Tensor> pushes_gpu(const torch::Tensor &x) {
  std::vector<torch::Tensor> out;
  out.push_back(torch::zeros({0, 6}));
  out.push_back(x.cuda());
  return out;
}
float vector_with_gpu(const torch::Tensor &x) {
  std::vector<torch::Tensor> found = pushes_gpu(x);
  float s = 0;
  for (int64_t i = 0; i < found[0].size(0); ++i)
    s += found[0][i].item<float>();
  // CHECK-MESSAGES: :[[@LINE-1]]:22: warning: 'Tensor::item' makes the host
  return s;
}

// A vector written after it was filled by the call: not followed.
float vector_written_later(const torch::Tensor &x) {
  std::vector<torch::Tensor> found = pushes_gpu(x);
  found.insert(found.begin(), x);
  float s = 0;
  for (int64_t i = 0; i < found[0].size(0); ++i)
    s += found[0][i].item<float>();
  // CHECK-MESSAGES: :[[@LINE-1]]:22: warning: 'Tensor::item' makes the host
  return s;
}

// --- Not reported: the tensors are on the CPU wherever they come from -------

float cpu_callers(torch::Tensor boxes) {
  float s = 0;
  for (int64_t i = 0; i < boxes.size(0); ++i)
    s += boxes[i][0].item<float>();
  return s;
}
void call_with_cpu() {
  cpu_callers(torch::rand({4, 4}));
  cpu_callers(torch::rand({4, 4}, torch::kCUDA).cpu());
}

// Through a chain of parameters, and through a recursion.
float chain_end(torch::Tensor t, int depth) {
  float s = 0;
  for (int64_t i = 0; i < t.size(0); ++i)
    s += t[i].sum().item<float>();
  return depth > 0 ? s + chain_end(t, depth - 1) : s;
}
float chain_middle(torch::Tensor t) { return chain_end(t.slice(0, 1), 3); }
void chain_start() { chain_middle(torch::zeros({3, 3})); }

// A detector's post-processing: the kept boxes are copied to the CPU, or an
// empty CPU tensor stands for none; the drawing loops read CPU values.
std::vector<torch::Tensor> suppress(torch::Tensor prediction) {
  std::vector<torch::Tensor> output;
  for (int64_t i = 0; i < prediction.size(0); i++)
    output.push_back(torch::zeros({0, 6}));
  for (int64_t i = 0; i < prediction.size(0); i++)
    output[i] = prediction[i].index_select(0, torch::arange(2)).cpu();
  // The copy itself waits: the scores are on the GPU (see predict()).
  // CHECK-MESSAGES: :[[@LINE-2]]:65: warning: 'Tensor::cpu' makes the host wait
  return output;
}
std::vector<torch::Tensor> predict(torch::Tensor image) {
  torch::Tensor scores = image.to(torch::kCUDA).flatten(1);
  return suppress(scores);
}
void draw(torch::Tensor rectangle) {
  for (int64_t i = 0; i < rectangle.size(0); i++)
    std::printf("%d\n", rectangle[i][5].item().toInt());
}
void draw_all(std::vector<torch::Tensor> rectangles) {
  for (size_t i = 0; i < rectangles.size(); i++)
    draw(rectangles[i]);
}
void detect(torch::Tensor image) {
  std::vector<torch::Tensor> result = predict(image);
  draw_all(result);
  draw(result.back());
  for (int64_t i = 0; i < result[0].size(0); i++)
    std::printf("%f\n", result[0][i][4].item<float>());
}

// A vector passed by reference to a function that replaces an element: what
// that function pushes counts too.
torch::Tensor region(torch::Tensor pre) {
  return pre.index_select(0, torch::arange(1));
}
void keep_region(std::vector<torch::Tensor> &r) {
  torch::Tensor pre = r.back();
  r.pop_back();
  r.push_back(region(pre));
}
void detect_regions(torch::Tensor image) {
  std::vector<torch::Tensor> r = predict(image);
  keep_region(r);
  for (int64_t i = 0; i < r[0].size(0); i++)
    std::printf("%f\n", r[0][i][4].item<float>());
}
void push_gpu(std::vector<torch::Tensor> &r) { r.push_back(torch::ones({2}, torch::kCUDA)); }
void detect_and_add(torch::Tensor image) {
  std::vector<torch::Tensor> r = predict(image);
  push_gpu(r);
  for (int64_t i = 0; i < r[0].size(0); i++)
    std::printf("%f\n", r[0][i][4].item<float>());
  // CHECK-MESSAGES: :[[@LINE-1]]:36: warning: 'Tensor::item' makes the host
}

// A function only this file can call, and never does, passes nothing: the
// other caller's CPU tensor decides. A function other files can call needs
// a call in this file.
void print_rows(torch::Tensor rows) {
  for (int64_t i = 0; i < rows.size(0); i++)
    std::printf("%f\n", rows[i].sum().item<float>());
}
static void print_unused(torch::Tensor rows) { print_rows(rows); }
void print_used() { print_rows(torch::rand({2, 2})); }
void print_rows_public(torch::Tensor rows) {
  for (int64_t i = 0; i < rows.size(0); i++)
    std::printf("%f\n", rows[i].sum().item<float>());
  // CHECK-MESSAGES: :[[@LINE-1]]:39: warning: 'Tensor::item' makes the host
}
void print_public_unused(torch::Tensor rows) { print_rows_public(rows); }
void print_public_used() { print_rows_public(torch::rand({2, 2})); }

// A forward() argument the callers compute on the CPU (lengths kept on the
// host for packing) is not on the module's device; one a caller moves is.
struct DecoderImpl : torch::nn::Module {
  DecoderImpl() : fc(register_module("fc", torch::nn::Linear(8, 8))) {}
  torch::Tensor forward(torch::Tensor features, torch::Tensor lengths,
                        torch::Tensor steps) {
    torch::Tensor out = fc(features);
    for (int64_t t = 0; t < 10; ++t) {
      auto live = (lengths > t).sum().item<int64_t>();
      auto more = (steps > t).sum().item<int64_t>();
      // CHECK-MESSAGES: :[[@LINE-1]]:37: warning: 'Tensor::item' makes the host wait
      out = out + static_cast<double>(live + more);
    }
    return out;
  }
  torch::nn::Linear fc;
};
TORCH_MODULE(Decoder);

void decode(Decoder decoder, torch::Tensor features, torch::Device device) {
  decoder->to(device);
  auto lengths = torch::tensor({3, 2, 1});
  for (int i = 0; i < 2; ++i)
    decoder->forward(features.to(device), lengths, lengths.to(device))
        .sum()
        .backward();
}

// A caller that is a function template passes a CPU copy: its instantiation
// is read for what it passes (findings in template code stay off).
std::vector<int64_t> caption_lengths(torch::Tensor ids) {
  std::vector<int64_t> out;
  for (int64_t i = 0; i < ids.size(0); ++i)
    out.push_back(ids[i].item<int64_t>());
  return out;
}
template <typename Model>
std::vector<int64_t> sample(Model &model, torch::Tensor features) {
  auto ids = model->forward(features).argmax(1);
  return caption_lengths(ids.cpu());
}
template std::vector<int64_t> sample<torch::nn::Linear>(torch::nn::Linear &,
                                                        torch::Tensor);

// A torch::Device parameter holds what the callers pass: a device flag the
// program forces to the CPU after the CUDA check trains on the CPU, and
// reading the loss waits for no device. One caller that may pass the GPU
// keeps the finding.
float train_forced_cpu(torch::nn::Linear model, std::vector<torch::Tensor> data,
                       torch::Device device) {
  model->to(device);
  float total = 0;
  for (auto &x : data) {
    auto loss = model->forward(x.to(device)).mean();
    loss.backward();
    total += loss.item<float>();
  }
  return total;
}
float train_maybe_gpu(torch::nn::Linear model, std::vector<torch::Tensor> data,
                      torch::Device device) {
  model->to(device);
  float total = 0;
  for (auto &x : data) {
    auto loss = model->forward(x.to(device)).mean();
    loss.backward();
    total += loss.item<float>();
    // CHECK-MESSAGES: :[[@LINE-1]]:19: warning: 'Tensor::item' makes the host wait for the device on every iteration of this training loop
    // CHECK-MESSAGES: :[[@LINE-3]]:10: note: this loop runs a training step
  }
  return total;
}
// The model goes to the CPU to be saved after each epoch and back to the
// device for the next: on the device or the CPU, both the CPU here.
float train_save_each_epoch(torch::nn::Linear model,
                            std::vector<torch::Tensor> data,
                            torch::Device device, int epochs) {
  model->to(device);
  float total = 0;
  for (int epoch = 0; epoch < epochs; ++epoch) {
    for (auto &x : data) {
      auto loss = (model->forward(x.to(device)) - x.to(device)).mean();
      loss.backward();
      total += loss.item<float>();
    }
    model->to(torch::kCPU);
    torch::save(model, "model.pt");
    if (epoch + 1 != epochs)
      model->to(device);
  }
  return total;
}
float train_save_each_epoch_gpu(torch::nn::Linear model,
                                std::vector<torch::Tensor> data,
                                torch::Device device, int epochs) {
  model->to(device);
  float total = 0;
  for (int epoch = 0; epoch < epochs; ++epoch) {
    for (auto &x : data) {
      auto loss = (model->forward(x.to(device)) - x.to(device)).mean();
      loss.backward();
      total += loss.item<float>();
      // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: 'Tensor::item' makes the host wait for the device on every iteration of this training loop
      // CHECK-MESSAGES: :[[@LINE-3]]:12: note: this loop runs a training step
    }
    model->to(torch::kCPU);
    if (epoch + 1 != epochs)
      model->to(device);
  }
  return total;
}
void run_both(torch::nn::Linear model, std::vector<torch::Tensor> data) {
  auto device = torch::kCPU;
  if (torch::cuda::is_available())
    device = torch::kCUDA;
  device = torch::kCPU;
  train_forced_cpu(model, data, device);
  train_save_each_epoch(model, data, device, 10);
  train_save_each_epoch_gpu(model, data, torch::kCUDA, 10);
  train_maybe_gpu(model, data, torch::kCPU);
  train_maybe_gpu(model, data,
                  torch::cuda::is_available() ? torch::kCUDA : torch::kCPU);
}

// A torch::Device parameter whose callers leave it to its default: a device
// constant there is what they pass.
struct ScorerImpl : torch::nn::Module {
  ScorerImpl() : fc(register_module("fc", torch::nn::Linear(4, 1))) {}
  torch::Tensor forward(torch::Tensor x) { return fc(x); }
  torch::nn::Linear fc;
};
TORCH_MODULE(Scorer);

static void fit_default(Scorer &model, torch::Device device = torch::kCPU) {
  model->to(device);
  torch::optim::SGD opt(model->parameters(), 0.1);
  for (int step = 0; step < 10; ++step) {
    auto loss = model->forward(torch::randn({8, 4}).to(device)).sum();
    loss.backward();
    opt.step();
    std::printf("%f\n", loss.item<float>()); // near miss: kCPU by default
  }
}
static void fit_either(Scorer &model, torch::Device device = torch::kCPU) {
  model->to(device);
  torch::optim::SGD opt(model->parameters(), 0.1);
  for (int step = 0; step < 10; ++step) {
    auto loss = model->forward(torch::randn({8, 4}).to(device)).sum();
    loss.backward();
    opt.step();
    std::printf("%f\n", loss.item<float>());
    // CHECK-MESSAGES: :[[@LINE-1]]:30: warning: 'Tensor::item' makes the host wait
  }
}
void fit_callers(Scorer &model) {
  fit_default(model);
  fit_either(model);
  fit_either(model, torch::kCUDA);
}

// A dataset's get() returns an example built on the CPU: its target read
// per image waits for nothing; the model's output does.
struct ImageSet : torch::data::datasets::Dataset<ImageSet> {
  torch::data::Example<> get(size_t i) override;
  torch::optional<size_t> size() const override { return 10; }
};
torch::data::Example<> ImageSet::get(size_t i) {
  torch::Tensor image = torch::rand({4});
  torch::Tensor label = torch::full({1}, static_cast<int64_t>(i), torch::kLong);
  return {image, label};
}
int errors(ImageSet &set, Scorer model, torch::Device device) {
  int wrong = 0;
  model->to(device);
  for (size_t i = 0; i < 10; ++i) {
    auto example = set.get(i);
    auto score = model(example.data.to(device)).sum();
    if (score.item<float>() > 0 && example.target.item<int64_t>() == 0)
      // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: 'Tensor::item' makes the host wait
      ++wrong;
  }
  return wrong;
}

// A module parameter is where its callers moved it: an evaluation helper
// whose every caller holds a CPU model (moved with a device the program
// forces to the CPU) waits for no device. One caller with a GPU model keeps
// the finding.
static double score_all(Scorer model, const std::vector<torch::Tensor> &data) {
  double total = 0;
  for (const auto &x : data)
    total += model->forward(x).sum().item<double>(); // near miss: CPU model
  return total;
}
static double score_all_gpu(Scorer model,
                            const std::vector<torch::Tensor> &data) {
  double total = 0;
  for (const auto &x : data)
    total += model->forward(x.cuda()).sum().item<double>();
  // CHECK-MESSAGES: :[[@LINE-1]]:45: warning: 'Tensor::item' makes the host wait
  return total;
}
static void fit_and_score(Scorer model, torch::Device device) {
  model->to(device);
  std::vector<torch::Tensor> data{torch::rand({2, 4})};
  for (int epoch = 0; epoch < 3; ++epoch) {
    score_all(model, data);
    score_all_gpu(model, data);
  }
}
void score_callers() {
  auto device = torch::kCPU;
  if (torch::cuda::is_available())
    device = torch::kCUDA;
  device = torch::kCPU;
  Scorer model;
  fit_and_score(model, device);
  Scorer on_gpu;
  on_gpu->to(torch::kCUDA);
  score_all_gpu(on_gpu, {torch::rand({2, 4})});
}

// A loss of the model's output and a target moved to a device parameter:
// the two devices the callers decide are one (or the op throws), so it is
// on the CPU when the callers move both there, even through a template.
template <typename Loader>
void fit_template(Scorer &model, torch::Device device, Loader &loader,
                  torch::optim::Optimizer &opt) {
  for (auto &batch : loader) {
    auto data = batch.data.to(device), target = batch.target.to(device);
    opt.zero_grad();
    auto loss = torch::mse_loss(model->forward(data), target);
    AT_ASSERT(!std::isnan(loss.template item<float>())); // near miss: CPU
    loss.backward();
    opt.step();
  }
}
static void fit_loss(Scorer &model, torch::Device device,
                     const std::vector<torch::Tensor> &xs,
                     torch::optim::Optimizer &opt) {
  for (const auto &x : xs) {
    opt.zero_grad();
    auto loss = torch::mse_loss(model->forward(x.to(device)),
                                torch::zeros({2, 1}).to(device));
    loss.backward();
    opt.step();
    std::printf("%f\n", loss.item<float>());
    // CHECK-MESSAGES: :[[@LINE-1]]:30: warning: 'Tensor::item' makes the host wait
  }
}
void loss_callers(std::vector<torch::data::Example<>> &batches) {
  torch::DeviceType type;
  if (torch::cuda::is_available())
    type = torch::kCUDA;
  else
    type = torch::kCPU;
  type = torch::kCPU;
  torch::Device device(type);
  Scorer model;
  model->to(device);
  torch::optim::SGD opt(model->parameters(), 0.1);
  fit_template(model, device, batches, opt);
  fit_loss(model, device, {torch::rand({2, 4})}, opt);
  Scorer on_gpu;
  on_gpu->to(torch::kCUDA);
  fit_loss(on_gpu, torch::kCUDA, {torch::rand({2, 4})}, opt);
}
