// RUN: %check_torch_tidy %s torch-create-then-move %t -- %torch_flags
// RUN: %check_torch_tidy --via plugin --no-compile %s torch-create-then-move %t.plugin -- %torch_flags
// The same file as a CUDA unit's host side (clang -x cuda --cuda-host-only):
// the same findings and fixes.
// RUN: %if cuda-variants %{ %check_torch_tidy %s torch-create-then-move %t.cuda -- %cuda_flags %}

// Factory calls that allocate on the CPU and are moved right away, with the
// fix that passes the device to the factory; and the near misses: host
// data (torch::tensor, from_blob), loaded tensors, tensors filled before
// the move, factories already given a device, moves to the CPU.
#include <torch/torch.h>
#include <vector>

void noOptions(torch::Device device, int64_t n) {
  auto a = torch::zeros({n}).to(device);
  // CHECK-MESSAGES: :[[@LINE-1]]:30: warning: 'torch::zeros' allocates and fills this tensor on the CPU, then 'to' copies it to 'device'; pass torch::device(device) to the factory to create it there [torch-create-then-move]
  // CHECK-FIXES: auto a = torch::zeros({n}, torch::device(device));
  auto b = torch::ones({2, 3}).cuda();
  // CHECK-MESSAGES: :[[@LINE-1]]:32: warning: 'torch::ones' allocates and fills this tensor on the CPU, then 'cuda' copies it to CUDA; pass torch::device(torch::kCUDA) to the factory to create it there
  // CHECK-FIXES: auto b = torch::ones({2, 3}, torch::device(torch::kCUDA));
  auto c = torch::arange(n).to(torch::kCUDA);
  // CHECK-MESSAGES: :[[@LINE-1]]:29: warning: 'torch::arange' allocates
  // CHECK-FIXES: auto c = torch::arange(n, torch::device(torch::kCUDA));
  auto d = torch::eye(n).to(torch::Device("cuda:1"));
  // CHECK-MESSAGES: :[[@LINE-1]]:26: warning: 'torch::eye' allocates and fills this tensor on the CPU, then 'to' copies it to CUDA device 1
  // CHECK-FIXES: auto d = torch::eye(n, torch::device(torch::Device("cuda:1")));
}

// A device named by a string the program chose (a config's device flag):
// creating the tensor there is never worse. The name "cpu" moves nothing.
struct RunConfig {
  std::string device;
};
torch::Tensor byName(const RunConfig &cfg) {
  auto a = torch::zeros({1, 1}, torch::kLong).to({cfg.device});
  // CHECK-MESSAGES: :[[@LINE-1]]:47: warning: 'torch::zeros' allocates and fills this tensor on the CPU, then 'to' copies it to 'cfg.device'; pass torch::device(cfg.device) to the factory
  // CHECK-FIXES: auto a = torch::zeros({1, 1}, torch::TensorOptions(torch::kLong).device(cfg.device));
  auto b = torch::ones({2}).to(torch::Device(cfg.device));
  // CHECK-MESSAGES: :[[@LINE-1]]:29: warning: 'torch::ones' allocates
  // CHECK-FIXES: auto b = torch::ones({2}, torch::device(torch::Device(cfg.device)));
  auto c = torch::arange(0, 4, 1, torch::kFloat).to(cfg.device);
  // CHECK-MESSAGES: :[[@LINE-1]]:50: warning: 'torch::arange' allocates
  // CHECK-FIXES: auto c = torch::arange(0, 4, 1, torch::TensorOptions(torch::kFloat).device(cfg.device));
  auto d = torch::zeros({2}).to("cpu"); // near miss: the CPU
  return a.sum() + b.sum() + c.sum() + d.sum();
}

void randomValues(torch::Device device) {
  auto r = torch::randn({4, 4}).to(device);
  // CHECK-MESSAGES: :[[@LINE-1]]:33: warning: 'torch::randn' allocates
  // CHECK-MESSAGES: :[[@LINE-2]]:33: note: created on the device, the values come from its random generator, not the CPU's: a seeded run draws different numbers
  // The fix changes the numbers drawn: it sits on the note, --fix leaves it.
  // CHECK-FIXES: auto r = torch::randn({4, 4}).to(device);
}

void withOptions(torch::Device device, torch::TensorOptions given) {
  auto opts = torch::TensorOptions().dtype(torch::kFloat32);
  auto a = torch::zeros({8}, torch::kFloat64).to(device);
  // CHECK-MESSAGES: :[[@LINE-1]]:47: warning: 'torch::zeros' allocates
  // CHECK-FIXES: auto a = torch::zeros({8}, torch::TensorOptions(torch::kFloat64).device(device));
  auto b = torch::empty({8}, torch::dtype(torch::kHalf).requires_grad(false)).cuda();
  // CHECK-MESSAGES: :[[@LINE-1]]:79: warning: 'torch::empty' allocates
  // CHECK-FIXES: auto b = torch::empty({8}, torch::dtype(torch::kHalf).requires_grad(false).device(torch::kCUDA));
  auto c = torch::full({8}, 1.5, opts).to(device);
  // CHECK-MESSAGES: :[[@LINE-1]]:40: warning: 'torch::full' allocates
  // CHECK-FIXES: auto c = torch::full({8}, 1.5, opts.device(device));
  auto d = torch::full({8}, 1.5, given).to(device); // 'given' may hold a device
}

// A form without a fix: the conversion also changes the dtype. Moved to
// another tensor's device and dtype, the fix passes its options.
void noFix(torch::Device device, torch::Tensor ref) {
  auto a = torch::zeros({8}).to(device, torch::kHalf);
  // CHECK-MESSAGES: :[[@LINE-1]]:30: warning: 'torch::zeros' allocates and fills this tensor on the CPU, then 'to' copies it to 'device'; pass the device to the factory
  // CHECK-FIXES: auto a = torch::zeros({8}).to(device, torch::kHalf);
  auto g = ref.to(device);
  auto b = torch::ones({8}).to(g);
  // CHECK-MESSAGES: :[[@LINE-1]]:29: warning: 'torch::ones' allocates and fills this tensor on the CPU, then 'to' copies it to 'device'
  // CHECK-FIXES: auto b = torch::ones({8}, g.options());
}

#define ON(dev, t) (t).to(dev)
void inMacro(torch::Device device) {
  auto a = ON(device, torch::zeros({3}));
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'torch::zeros' allocates
  // CHECK-MESSAGES: :[[@LINE-2]]:12: note: no automatic fix inside a macro expansion
}

// The device of another tensor: it may be the CPU, and creating the tensor
// there is never worse. The fix keeps the dtype.
torch::Tensor otherTensors(torch::Tensor x, torch::Tensor image,
                           torch::Tensor z, int64_t n) {
  auto a = torch::full({}, 0.0).to(x.device());
  // CHECK-MESSAGES: :[[@LINE-1]]:33: warning: 'torch::full' allocates and fills this tensor on the CPU, then 'to' copies it to 'x.device()'; pass torch::device(x.device()) to the factory to create it there [torch-create-then-move]
  // CHECK-FIXES: auto a = torch::full({}, 0.0, torch::device(x.device()));
  auto b = torch::rand({n}).to(image.device());
  // CHECK-MESSAGES: :[[@LINE-1]]:29: warning: 'torch::rand' allocates and fills this tensor on the CPU, then 'to' copies it to 'image.device()'
  // CHECK-MESSAGES: :[[@LINE-2]]:29: note: created on the device, the values come from its random generator
  // CHECK-FIXES: auto b = torch::rand({n}).to(image.device());
  auto c = torch::arange(n).to(torch::kLong).to(z.device());
  // CHECK-MESSAGES: :[[@LINE-1]]:46: warning: 'torch::arange' allocates and fills this tensor on the CPU, then 'to' copies it to 'z.device()'
  // CHECK-FIXES: auto c = torch::arange(n, torch::device(z.device())).to(torch::kLong);
  auto d = torch::zeros({n}, torch::kFloat).to(x.device());
  // CHECK-MESSAGES: :[[@LINE-1]]:45: warning: 'torch::zeros' allocates
  // CHECK-FIXES: auto d = torch::zeros({n}, torch::TensorOptions(torch::kFloat).device(x.device()));
  return a + b + c + d;
}

// Another tensor's options, directly or through a local: the fix passes
// them (device and dtype) to the factory.
torch::Tensor otherOptions(torch::Tensor prediction, int64_t n) {
  auto FloatType = prediction.options();
  auto grid = torch::linspace(0, n - 1, n).repeat({n, 1}).to(FloatType);
  // CHECK-MESSAGES: :[[@LINE-1]]:59: warning: 'torch::linspace' allocates and fills this tensor on the CPU, then 'to' copies it to the device of 'FloatType'; pass 'FloatType' to the factory to create it there
  // CHECK-FIXES: auto grid = torch::linspace(0, n - 1, n, FloatType).repeat({n, 1});
  auto ones = torch::ones({n}).to(prediction.options());
  // CHECK-MESSAGES: :[[@LINE-1]]:32: warning: 'torch::ones' allocates and fills this tensor on the CPU, then 'to' copies it to the device of 'prediction.options()'
  // CHECK-FIXES: auto ones = torch::ones({n}, prediction.options());
  return grid + ones;
}

// Another tensor itself (`.to(other)`: its device and dtype): the fix
// passes its options. Near miss: a tensor the analysis places on the CPU.
torch::Tensor otherTensor(torch::Tensor camera, torch::Tensor rays, int64_t w) {
  auto ii = torch::arange(w).to(camera);
  // CHECK-MESSAGES: :[[@LINE-1]]:30: warning: 'torch::arange' allocates and fills this tensor on the CPU, then 'to' copies it to the device of 'camera'; pass 'camera.options()' to the factory to create it there
  // CHECK-FIXES: auto ii = torch::arange(w, camera.options());
  auto depths = torch::linspace(2, 6, 64).to(rays);
  // CHECK-MESSAGES: :[[@LINE-1]]:43: warning: 'torch::linspace' allocates and fills this tensor on the CPU, then 'to' copies it to the device of 'rays'
  // CHECK-FIXES: auto depths = torch::linspace(2, 6, 64, rays.options());
  auto host = torch::zeros({w});
  auto same = torch::ones({w}).to(host);
  return ii + depths.sum() + same;
}

// A view between the factory and the move.
torch::Tensor views(torch::Device device) {
  auto a = torch::eye(4).unsqueeze(0).to(device);
  // CHECK-MESSAGES: :[[@LINE-1]]:39: warning: 'torch::eye' allocates and fills this tensor on the CPU, then 'to' copies it to 'device'
  // CHECK-FIXES: auto a = torch::eye(4, torch::device(device)).unsqueeze(0);
  return a;
}

// A fill in place between the factory and the move (libtorch-SSD's prior
// boxes): made on the device, it is filled there.
torch::Tensor filled(torch::Device device, int64_t n, float f) {
  auto cx = torch::ones({n, 1}).fill_(f).to(device);
  // CHECK-MESSAGES: :[[@LINE-1]]:42: warning: 'torch::ones' allocates and fills this tensor on the CPU, then 'to' copies it to 'device'
  // CHECK-FIXES: auto cx = torch::ones({n, 1}, torch::device(device)).fill_(f);
  return cx;
}

// A gradient flag between the factory and the move, the move in the next
// statement under a branch (round 20's benchmark input): no fix, a note.
torch::Tensor flagged(bool on_gpu, at::IntArrayRef size) {
  torch::Tensor input = torch::randn(size).set_requires_grad(false);
  if (on_gpu)
    input = input.to(torch::kCUDA);
  // CHECK-MESSAGES: :[[@LINE-1]]:19: warning: 'torch::randn' allocates and fills this tensor on the CPU, then 'to' copies it to CUDA
  // CHECK-MESSAGES: :[[@LINE-4]]:25: note: the tensor is created here
  // CHECK-MESSAGES: :[[@LINE-3]]:19: note: created on the device
  return input;
}

// Near miss: an in-place op with a tensor argument (a CPU tensor here) is
// not a fill; created on the device, the tensor would meet it there.
torch::Tensor shifted(torch::Device device, int64_t n, torch::Tensor offset) {
  return torch::ones({n}).add_(offset).to(device);
}

// A device at namespace scope.
inline torch::Device global_device(torch::cuda::is_available() ? torch::kCUDA
                                                               : torch::kCPU);
torch::Tensor globalDevice(int64_t n) {
  auto a = torch::ones({n}).to(global_device);
  // CHECK-MESSAGES: :[[@LINE-1]]:29: warning: 'torch::ones' allocates and fills this tensor on the CPU, then 'to' copies it to 'global_device'
  // CHECK-FIXES: auto a = torch::ones({n}, torch::device(global_device));
  return a;
}

// A local set once to another tensor's device, as losses write it
// (`auto device = inputs.at(0).device();`).
torch::Tensor deviceOfInput(const std::vector<torch::Tensor> &inputs,
                            int64_t n) {
  auto device = inputs.at(0).device();
  auto zero = torch::full({}, 0.0, torch::kFloat).to(device);
  // CHECK-MESSAGES: :[[@LINE-1]]:51: warning: 'torch::full' allocates and fills this tensor on the CPU, then 'to' copies it to 'device'; pass torch::device(device) to the factory to create it there
  // CHECK-FIXES: auto zero = torch::full({}, 0.0, torch::TensorOptions(torch::kFloat).device(device));
  torch::Device where = inputs[1].device();
  auto idx = torch::arange(0, n, 1, torch::kFloat).to(where);
  // CHECK-MESSAGES: :[[@LINE-1]]:52: warning: 'torch::arange' allocates
  // CHECK-FIXES: auto idx = torch::arange(0, n, 1, torch::TensorOptions(torch::kFloat).device(where));
  return zero + idx;
}

// Near miss: the other tensor is known to be on the CPU; the move does
// nothing.
torch::Tensor deviceOfHostTensor(int64_t n) {
  auto host = torch::zeros({2});
  auto device = host.device();
  return torch::arange(n).to(device);
}

// Created in one statement, moved in the next; no fix (the move may be
// conditional), a note at the factory.
torch::Tensor twoStatements(bool gpu, int64_t n) {
  torch::Tensor x = torch::zeros({n, 4});
  if (gpu)
    x = x.cuda();
  // CHECK-MESSAGES: :[[@LINE-1]]:11: warning: 'torch::zeros' allocates and fills this tensor on the CPU, then 'cuda' copies it to CUDA
  // CHECK-MESSAGES: :[[@LINE-4]]:21: note: the tensor is created here
  torch::Tensor y;
  y = torch::randn({n});
  y = y.to(torch::kCUDA);
  // CHECK-MESSAGES: :[[@LINE-1]]:9: warning: 'torch::randn' allocates
  // CHECK-MESSAGES: :[[@LINE-3]]:7: note: the tensor is created here
  // CHECK-MESSAGES: :[[@LINE-3]]:9: note: created on the device
  return x + y;
}

// Two tensors moved together under one `if` (round 36's sliding-window
// segmenter); a branch that also does something else is a near miss.
torch::Tensor movedTogether(bool cuda_available, int64_t n) {
  torch::Tensor prediction = torch::zeros({19, n});
  torch::Tensor crop = torch::zeros({1, n});
  if (cuda_available) {
    prediction = prediction.cuda();
    // CHECK-MESSAGES: :[[@LINE-1]]:29: warning: 'torch::zeros' allocates and fills this tensor on the CPU, then 'cuda' copies it to CUDA
    // CHECK-MESSAGES: :[[@LINE-5]]:30: note: the tensor is created here
    crop = crop.cuda();
    // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: 'torch::zeros' allocates and fills this tensor on the CPU, then 'cuda' copies it to CUDA
    // CHECK-MESSAGES: :[[@LINE-7]]:24: note: the tensor is created here
  }
  torch::Tensor scores = torch::zeros({n});
  if (cuda_available) {
    scores = scores.cuda();
    scores.fill_(1);
  }
  return prediction.sum() + crop.sum() + scores.sum();
}

// A draw from a factory's tensor is on the factory's device: create the
// probabilities there (a language model's first token).
torch::Tensor firstToken(int64_t vocab, torch::Device device) {
  torch::Tensor probability = torch::ones(vocab);
  torch::Tensor token =
      torch::multinomial(probability, 1).unsqueeze(0).to(device);
  // CHECK-MESSAGES: :[[@LINE-1]]:55: warning: 'torch::ones' allocates and fills this tensor on the CPU, then 'to' copies it to 'device'
  // CHECK-MESSAGES: :[[@LINE-4]]:31: note: the tensor is created here
  return token;
}

// A member of *this, set in one statement and moved in the next; not when
// another method moves it.
struct Buffers {
  torch::Tensor x;
  void init(int gpu_count) {
    x = torch::empty({});
    if (gpu_count > 0)
      x = x.cuda();
    // CHECK-MESSAGES: :[[@LINE-1]]:13: warning: 'torch::empty' allocates this tensor on the CPU, then 'cuda' copies it to CUDA; pass torch::device(torch::kCUDA) to the factory to create it there
    // CHECK-MESSAGES: :[[@LINE-4]]:9: note: the tensor is created here
  }
  void reset() { x = torch::zeros({2}); }
  void toGpu() { x = x.cuda(); }
};

// A mask built on the CPU, reshaped, and moved when it is returned: the
// declaration may sit statements above the move (no fix: a note at the
// factory). A member created in a constructor's initializer list.
struct Decoder {
  torch::Device device_;
  torch::Tensor store;
  explicit Decoder(torch::Device device)
      : device_(device), store(torch::empty({100, 512}).cuda()) {}
  // CHECK-MESSAGES: :[[@LINE-1]]:57: warning: 'torch::empty' allocates this tensor on the CPU, then 'cuda' copies it to CUDA; pass torch::device(torch::kCUDA) to the factory to create it there
  // CHECK-FIXES: : device_(device), store(torch::empty({100, 512}, torch::device(torch::kCUDA))) {}
  torch::Tensor subsequentMask(const torch::Tensor &seq) {
    int64_t batch = seq.size(0), len = seq.size(1);
    torch::Tensor mask = torch::triu(torch::ones({len, len}, torch::kInt32), 1);
    mask = mask.unsqueeze(0).expand({batch, -1, -1});
    return mask.to(torch::kBool).to(device_);
    // CHECK-MESSAGES: :[[@LINE-1]]:34: warning: 'torch::ones' allocates and fills this tensor on the CPU, then 'to' copies it to 'device_'; pass torch::device(device_) to the factory to create it there
    // CHECK-MESSAGES: :[[@LINE-4]]:38: note: the tensor is created here
  }
  torch::Tensor later(torch::Device device, int64_t n) {
    auto ramp = torch::arange(n);
    int64_t half = n / 2;
    auto moved = ramp.to(device);
    // CHECK-MESSAGES: :[[@LINE-1]]:23: warning: 'torch::arange' allocates
    // CHECK-MESSAGES: :[[@LINE-4]]:17: note: the tensor is created here
    return moved * half;
  }
  // A factory told to allocate on the CPU, then moved unchanged (no fix:
  // the options name the device to replace).
  torch::Tensor toldCPU(torch::Device device, int64_t n, float logit) {
    auto host = torch::full({n, 1}, logit,
                            torch::TensorOptions().dtype(torch::kFloat32).device(torch::kCPU));
    auto ramp = torch::arange(n);
    torch::Tensor moved;
    moved = host.to(device);
    // CHECK-MESSAGES: :[[@LINE-1]]:18: warning: 'torch::full' allocates and fills this tensor on the CPU, then 'to' copies it to 'device'
    // CHECK-MESSAGES: :[[@LINE-6]]:17: note: the tensor is created here
    auto direct = torch::zeros({n}, torch::device(torch::kCPU)).to(device);
    // CHECK-MESSAGES: :[[@LINE-1]]:65: warning: 'torch::zeros' allocates and fills this tensor on the CPU, then 'to' copies it to 'device'
    // CHECK-FIXES: auto direct = torch::zeros({n}, torch::device(torch::kCPU)).to(device);
    return moved + direct + ramp.to(device);
    // CHECK-MESSAGES: :[[@LINE-1]]:34: warning: 'torch::arange' allocates
    // CHECK-MESSAGES: :[[@LINE-10]]:17: note: the tensor is created here
  }
  // Near misses: the CPU tensor is read after the move, changed between,
  // moved only on one side of a condition, or in a loop.
  torch::Tensor readAfter(torch::Device device, int64_t n) {
    auto ramp = torch::arange(n);
    auto moved = ramp.to(device);
    return moved + ramp.sum();
  }
  // Overwritten after the move before any read, in a loop: a positive.
  // Read in a branch, or read before it is overwritten: near misses.
  torch::Tensor overwrittenAfter(torch::Device device, int64_t n) {
    torch::Tensor probs = torch::ones(n);
    torch::Tensor token = torch::multinomial(probs, 1).to(device);
    // CHECK-MESSAGES: :[[@LINE-1]]:56: warning: 'torch::ones' allocates
    // CHECK-MESSAGES: :[[@LINE-3]]:27: note: the tensor is created here
    for (int i = 0; i < 3; ++i) {
      probs = token.exp();
      token = probs.multinomial(1);
    }
    return token;
  }
  torch::Tensor readInBranch(torch::Device device, int64_t n, bool twice) {
    torch::Tensor probs = torch::ones(n);
    torch::Tensor token = torch::multinomial(probs, 1).to(device);
    if (twice)
      token = token + probs.sum();
    probs = token.exp();
    return probs;
  }
  torch::Tensor readBeforeOverwrite(torch::Device device, int64_t n) {
    torch::Tensor probs = torch::ones(n);
    torch::Tensor token = torch::multinomial(probs, 1).to(device);
    probs = probs * 2;
    return token + probs.sum();
  }
  torch::Tensor filledOnCPU(torch::Device device, int64_t n) {
    auto host = torch::zeros({n}, torch::device(torch::kCPU));
    auto acc = host.accessor<float, 1>();
    acc[0] = 1;
    return host.to(device);
  }
  torch::Tensor changedBetween(torch::Device device, int64_t n) {
    auto ramp = torch::arange(n);
    ramp[0] = 7;
    return ramp.to(device);
  }
  torch::Tensor oneSide(torch::Device device, int64_t n, bool gpu) {
    auto ramp = torch::arange(n);
    return gpu ? ramp.to(device) : ramp;
  }
  torch::Tensor inLoop(torch::Device device, int64_t n) {
    auto ramp = torch::arange(n);
    torch::Tensor sum = torch::zeros({n}, torch::device(device));
    for (int i = 0; i < 3; ++i)
      sum += ramp.to(device);
    return sum;
  }
};

// A device parameter set to the CPU on one path holds one device: the move
// goes there.
torch::Tensor deviceOrCPU(torch::Device device, bool gpu, int64_t n) {
  if (!gpu)
    device = torch::kCPU;
  return torch::zeros({n}).to(device);
  // CHECK-MESSAGES: :[[@LINE-1]]:28: warning: 'torch::zeros' allocates and fills this tensor on the CPU, then 'to' copies it to 'device'
  // CHECK-FIXES: return torch::zeros({n}, torch::device(device));
}

// Near misses.
void nearMisses(torch::Device device, std::vector<float> &host, float *raw,
                torch::Tensor x) {
  auto a = torch::tensor({1.0f, 2.0f}).to(device);        // host data
  auto b = torch::from_blob(raw, {4}).to(device);          // host memory
  auto c = torch::zeros({4}).index_put_({0}, 1).to(device); // written first
  auto d = torch::zeros({4}, torch::device(device)).to(device); // on it
  auto e = torch::zeros_like(x).to(device);                // x's device
  auto f = torch::zeros({4}).to(torch::kCPU);              // stays
  auto g = torch::zeros({4}).to(torch::kFloat64);          // dtype only
  auto h = torch::zeros({4});
  h[0] = 1;
  auto i = h.to(device);                                   // filled first
  torch::Tensor loaded;
  torch::load(loaded, "t.pt");
  auto j = loaded.to(device);                              // from disk
  auto k = torch::zeros({4}).to(h);                        // h: the CPU
  torch::Tensor m = torch::zeros({4});
  m.add_(1);
  m = m.to(device);                                        // changed between
  torch::Tensor o = torch::zeros({4});
  if (x.is_cuda())
    o = o.cuda();
  else
    o = o.to(torch::kDouble);                              // an else branch
}

// Template code is not analysed (DeviceFlow skips it).
template <typename T> torch::Tensor inTemplate(torch::Device device) {
  return torch::zeros({4}).to(device);
}
template torch::Tensor inTemplate<float>(torch::Device);

// A device held through a pointer or smart pointer member, as RL trainers
// keep it (`std::shared_ptr<torch::Device> m_device`).
struct Trainer {
  std::shared_ptr<torch::Device> m_device;
  torch::Device *raw = nullptr;
  torch::Tensor zeros(int64_t n) {
    auto a = torch::zeros({1, n}).to(*m_device);
    // CHECK-MESSAGES: :[[@LINE-1]]:35: warning: 'torch::zeros' allocates and fills this tensor on the CPU, then 'to' copies it to 'm_device'; pass torch::device(*m_device) to the factory to create it there [torch-create-then-move]
    // CHECK-FIXES: auto a = torch::zeros({1, n}, torch::device(*m_device));
    auto b = torch::ones({n}).to(*raw);
    // CHECK-MESSAGES: :[[@LINE-1]]:31: warning: 'torch::ones' allocates and fills this tensor on the CPU, then 'to' copies it to 'raw'
    // CHECK-FIXES: auto b = torch::ones({n}, torch::device(*raw));
    return a + b;
  }
};

// A tensor a function of the program makes with a factory and returns, moved
// at the call (a Transformer's square mask): no fix, the device has to reach
// the function.
torch::Tensor squareMask(int64_t n) {
  return torch::triu(torch::full({n, n}, -1e9), 1);
}
struct CausalDecoder {
  torch::Tensor causal(int64_t n) { return torch::ones({n, n}).tril(); }
  torch::Tensor step(torch::Tensor src, int64_t n) {
    torch::Tensor m = causal(n).to(src.device());
    // CHECK-MESSAGES: :[[@LINE-1]]:33: warning: 'CausalDecoder::causal' returns a tensor that 'torch::ones' allocates and fills on the CPU, then 'to' copies it to 'src.device()'; create it on the device in 'CausalDecoder::causal' (pass it the device) [torch-create-then-move]
    // CHECK-MESSAGES: :[[@LINE-4]]:44: note: the tensor is created here
    return m + squareMask(n).unsqueeze(0).cuda();
    // CHECK-MESSAGES: :[[@LINE-1]]:43: warning: 'squareMask' returns a tensor that 'torch::full' allocates and fills on the CPU, then 'cuda' copies it to CUDA; create it on the device in 'squareMask' (pass it the device) [torch-create-then-move]
    // CHECK-MESSAGES: :[[@LINE-10]]:22: note: the tensor is created here
  }
};

// Near misses: a function that returns data it did not allocate, one that
// returns something else on another path, one that creates on its device.
torch::Tensor tableOf(std::vector<float> &values) {
  return torch::from_blob(values.data(), {4}).clone();
}
torch::Tensor cachedOrNew(bool fresh, torch::Tensor cached) {
  if (fresh)
    return torch::zeros({4});
  return cached;
}
torch::Tensor onItsDevice(torch::Device device) {
  return torch::zeros({4}, torch::device(device));
}
torch::Tensor helperNearMisses(std::vector<float> &values, torch::Tensor c,
                               torch::Device device) {
  return tableOf(values).to(device) + cachedOrNew(false, c).to(device) +
         onItsDevice(device).to(device);
}

// A member set by a factory and moved one way or the other by an `if`
// whose branches each move it; statements that leave it alone may sit
// between. One that calls the program's own code may change it: a near miss.
struct Policy : torch::nn::Module {
  Policy(bool cpu_only, float init_std);
  void set_std(float s);
  void reset_std(float s);
  void refresh();
  bool cpu_only;
  float std;
  torch::Tensor variance;
};

Policy::Policy(bool cpu_only, float init_std) {
  this->cpu_only = cpu_only;
  this->variance = torch::full({4}, init_std * init_std);
  this->std = init_std;
  if (this->cpu_only) {
    this->variance = this->variance.to(torch::Device(torch::kCPU, 0));
  } else {
    this->variance = this->variance.to(torch::Device(torch::kCUDA, 0));
    // CHECK-MESSAGES: :[[@LINE-1]]:37: warning: 'torch::full' allocates and fills this tensor on the CPU, then 'to' copies it to CUDA device 0; pass torch::device(torch::Device(torch::kCUDA, 0)) to the factory to create it there [torch-create-then-move]
    // CHECK-MESSAGES: :[[@LINE-7]]:20: note: the tensor is created here
  }
}

void Policy::set_std(float s) {
  variance = torch::full({4}, s * s);
  if (cpu_only)
    variance = variance.to(torch::kCPU);
  else
    variance = variance.to(torch::kCUDA);
  // CHECK-MESSAGES: :[[@LINE-1]]:25: warning: 'torch::full' allocates and fills this tensor on the CPU, then 'to' copies it to CUDA
}

void Policy::reset_std(float s) {
  variance = torch::full({4}, s * s);
  refresh(); // may change variance
  if (!cpu_only)
    variance = variance.to(torch::kCUDA);
  variance = torch::full({4}, s);
  if (cpu_only)
    std = s; // the other branch does not move it
  else
    variance = variance.to(torch::kCUDA);
}
