// RUN: %check_torch_tidy %s torch-device-mismatch %t -- %torch_flags
// RUN: %torch-tidy %s --checks=-*,torch-device-mismatch,torch-host-access-device-tensor \
// RUN:   --config='{CheckOptions: {torch-device-mismatch.Verbose: true, torch-host-access-device-tensor.Verbose: true}}' \
// RUN:   -- %torch_flags 2>&1 | FileCheck %s --check-prefix=VERBOSE --implicit-check-not=remark:
// RUN: not %torch-tidy %S/Inputs/empty.cpp --checks=-*,torch-device-mismatch \
// RUN:   --config='{CheckOptions: {torch-device-mismatch.Verbose: maybe}}' -- -std=c++17 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BAD-BOOL
// torch-tidy --verbose (or TORCH_TIDY_VERBOSE=1) turns the option on for
// both checks; in batch mode the remarks go to stderr, not into the report.
// RUN: %torch-tidy %s --verbose --checks=-*,torch-host-access-device-tensor \
// RUN:   -- %torch_flags 2>&1 | FileCheck %s --check-prefix=FLAG
// RUN: env TORCH_TIDY_VERBOSE=1 %torch-tidy %s --checks=-*,torch-device-mismatch \
// RUN:   -- %torch_flags 2>&1 | FileCheck %s --check-prefix=FLAG
// RUN: rm -rf %t.db && mkdir -p %t.db && cp %s %t.db/verbose.cpp && echo '[]' > %t.db/compile_commands.json
// RUN: %python %S/../tool/Inputs/make_db.py %t.db "%torch_flags" --add verbose.cpp
// RUN: cd %t.db && %torch-tidy -p %t.db --verbose --checks=-*,torch-device-mismatch > %t.db/out.txt 2> %t.db/err.txt
// RUN: FileCheck %s --check-prefix=BATCH-ERR < %t.db/err.txt
// RUN: FileCheck %s --check-prefix=BATCH-OUT --implicit-check-not=remark < %t.db/out.txt
// BATCH-OUT: Summary: 0 findings in 1 file analysed; 0 files failed to compile

// A function whose CFG is too large is skipped: silently by default, with a
// remark under the Verbose option. Template code is skipped without one.
#include <torch/torch.h>

#define BRANCH if (c) ++n;
#define B10 BRANCH BRANCH BRANCH BRANCH BRANCH BRANCH BRANCH BRANCH BRANCH BRANCH
#define B100 B10 B10 B10 B10 B10 B10 B10 B10 B10 B10
#define B1000 B100 B100 B100 B100 B100 B100 B100 B100 B100 B100

int huge(torch::Tensor x, torch::Device d, bool c) {
  int n = 0;
  B1000 B1000 B1000
  auto y = x.to(d) + torch::ones({4});
  float v = x.to(d).data_ptr<float>()[0];
  return n;
}
// Both checks give the same remark; clang-tidy shows it once.
// VERBOSE: :[[@LINE-8]]:5: remark: device analysis skipped 'huge': its CFG has {{[0-9]+}} blocks (limit 4000) [torch-device-mismatch,torch-host-access-device-tensor]
// FLAG: :[[@LINE-9]]:5: remark: device analysis skipped 'huge'
// BATCH-ERR: {{^}}verbose.cpp:[[@LINE-10]]:5: remark: device analysis skipped 'huge': its CFG has {{[0-9]+}} blocks (limit 4000) [torch-device-mismatch]

template <typename T> T later(T x, torch::Device d) {
  return x.to(d) + torch::ones({4});
}
template torch::Tensor later(torch::Tensor, torch::Device);

// BAD-BOOL: error: invalid value 'maybe' for option 'torch-device-mismatch.Verbose'; expected 'true' or 'false'
