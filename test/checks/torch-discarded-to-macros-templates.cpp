// Macros are reported at their use and templates once, at the template's
// source line; neither gets a fix-it, only a note.
// RUN: %check_torch_tidy %s torch-discarded-to %t -- %torch_flags
// RUN: %check_torch_tidy --via plugin --no-compile %s torch-discarded-to %t.plugin -- %torch_flags

#include <torch/torch.h>

#define MOVE_TO(t, d) t.to(d)
#define DISCARD(expr) expr

void macros(torch::Tensor x, torch::Device device) {
  MOVE_TO(x, device);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: result of 'Tensor::to' is discarded; 'x' is unchanged and stays on its original device
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: no automatic fix inside a macro expansion
  DISCARD(x.cuda());
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: result of 'Tensor::cuda' is discarded
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: no automatic fix inside a macro expansion
}

template <typename T> void moveAll(T &value, torch::Device device) {
  value.to(device);
  // CHECK-MESSAGES: :[[@LINE-1]]:9: warning: result of 'Tensor::to' is discarded; 'value' is unchanged
  // CHECK-MESSAGES: :[[@LINE-2]]:9: note: no automatic fix inside a template
}

template <typename Module> struct Wrapper {
  torch::Tensor state;
  void move(torch::Device device) {
    state.cuda();
    // CHECK-MESSAGES: :[[@LINE-1]]:11: warning: result of 'Tensor::cuda' is discarded
    // CHECK-MESSAGES: :[[@LINE-2]]:11: note: no automatic fix inside a template
  }
};

struct Plain {
  void to(torch::Device) {}
};

void instantiate(torch::Tensor a, torch::Tensor b, torch::Device device) {
  moveAll(a, device); // two instantiations with a Tensor: one warning above
  moveAll(b, device);
  Plain p;
  moveAll(p, device); // a class with its own to(): nothing
  Wrapper<int> w;
  w.move(device);
  Wrapper<float> w2;
  w2.move(device);
}
