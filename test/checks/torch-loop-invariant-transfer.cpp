// RUN: %check_torch_tidy %s torch-loop-invariant-transfer %t -- %torch_flags
// RUN: %check_torch_tidy --via plugin --no-compile %s torch-loop-invariant-transfer %t.plugin -- %torch_flags

// TODO: replace these cases with the check's own: positives,
// near misses that must stay quiet, and fixes that still compile.

#include <torch/torch.h>

// A positive, with its fix: the fixed file must still compile.
void positive(torch::Tensor x) {
  x = x.cuda();
  // CHECK-MESSAGES: :[[@LINE-1]]:9: warning: 'Tensor::cuda' is called here; TODO: say what happens at run time and what to write instead [torch-loop-invariant-transfer]
  // CHECK-FIXES: x = x.to(torch::kCUDA);
}

// In a macro: the warning comes without a fix, and a note says why.
#define ON_GPU(t) t.cuda()
void inMacro(torch::Tensor x) {
  x = ON_GPU(x);
  // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: 'Tensor::cuda' is called here
  // CHECK-MESSAGES: :[[@LINE-2]]:7: note: no automatic fix inside a macro expansion
  // CHECK-FIXES: x = ON_GPU(x);
}

// A near miss: a cuda() that is not Tensor's stays quiet.
struct Buffer {
  Buffer cuda() const { return *this; }
};
void nearMiss(torch::Tensor x, Buffer b) {
  x = x.to(torch::kCUDA);
  b = b.cuda();
}
