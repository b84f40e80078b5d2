// RUN: %check_torch_tidy %s torch-discarded-to %t -- %torch_flags
// RUN: %check_torch_tidy --prefix STRICT %s torch-discarded-to %t.strict \
// RUN:   --tidy-arg=--config-file=%S/Inputs/discarded-to-strict.yaml \
// RUN:   -- %torch_flags
// RUN: not %torch-tidy %S/Inputs/empty.cpp --checks=-*,torch-discarded-to \
// RUN:   --config='{CheckOptions: {torch-discarded-to.AllowCastToVoid: maybe}}' -- -std=c++17 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BAD-BOOL
// RUN: not %torch-tidy %S/Inputs/empty.cpp --checks=-*,torch-discarded-to \
// RUN:   --config="{CheckOptions: {torch-discarded-to.Methods: 'to;cu da'}}" -- -std=c++17 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BAD-LIST
// BAD-BOOL: error: invalid value 'maybe' for option 'torch-discarded-to.AllowCastToVoid'; expected 'true' or 'false' [clang-tidy-config]
// BAD-LIST: error: invalid entry 'cu da' in option 'torch-discarded-to.Methods'

#include <torch/torch.h>

void options(torch::Tensor x, torch::Device device) {
  (void)x.to(device);
  // CHECK-MESSAGES-STRICT: :[[@LINE-1]]:11: warning: result of 'Tensor::to' is discarded
  static_cast<void>(x.to(device));
  // CHECK-MESSAGES-STRICT: :[[@LINE-1]]:23: warning: result of 'Tensor::to' is discarded
  x.abs();
  // CHECK-MESSAGES-STRICT: :[[@LINE-1]]:5: warning: result of 'Tensor::abs' is discarded; 'x' is unchanged and is not converted
  // CHECK-FIXES-STRICT: x = x.abs();
  x.cuda();
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: result of 'Tensor::cuda' is discarded
  // CHECK-FIXES: x = x.cuda();
}
