// Runs part of a scenario in a child process, so that a crash (host code
// dereferencing device memory) is a measured outcome, not the end of the
// harness. The child is this binary started afresh (fork + exec of
// /proc/self/exe): a merely forked copy of a process that has initialised
// CUDA cannot use CUDA. It runs the routine registered under a name and
// reports "key=value" lines on its standard output.
#pragma once

#include <torch/torch.h>

#include <functional>
#include <string>

#include "scenario.h"

namespace harness {

struct ChildResult {
  bool exited = false;     // the child returned from its routine
  int exit_code = -1;
  int signal = 0;          // the signal that ended it (SIGSEGV, ...), or 0
  bool timed_out = false;  // killed after the time limit
  std::string output;      // its standard output
  std::string error;       // why it could not be started, if so

  // The value of a "key=value" line of the output, or "".
  std::string value(const std::string& key) const;
  // "exited 0", "killed by SIGSEGV", "timed out", ...
  std::string describe() const;
};

// A child routine prints key=value lines and returns its exit status.
using ChildFn = std::function<int(const torch::Device&)>;
bool register_child(const std::string& name, ChildFn fn);

// Starts the routine \p name in a fresh process on \p device and waits at
// most \p timeout_s seconds.
ChildResult run_child(const std::string& name, const torch::Device& device,
                      int timeout_s = 120);

// For main(): with "--child NAME DEVICE", runs that routine and returns its
// status; with "--child-self-test", checks run_child itself (a normal exit,
// an exception, a crash); otherwise returns -1.
int run_child_if_requested(int argc, char** argv);

}  // namespace harness

#define HARNESS_REGISTER_CHILD(name, fn)                                \
  static const bool HARNESS_CONCAT(harness_child_, __LINE__) =          \
      ::harness::register_child(name, fn)
