#include "child.h"

#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <iostream>
#include <map>
#include <sstream>

#include "measure.h"

namespace harness {

namespace {
std::map<std::string, ChildFn>& children() {
  static std::map<std::string, ChildFn> all;
  return all;
}

std::string signal_name(int sig) {
  switch (sig) {
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGABRT: return "SIGABRT";
    case SIGILL: return "SIGILL";
    case SIGFPE: return "SIGFPE";
    case SIGKILL: return "SIGKILL";
    default: return "signal " + std::to_string(sig);
  }
}
}  // namespace

bool register_child(const std::string& name, ChildFn fn) {
  children()[name] = std::move(fn);
  return true;
}

std::string ChildResult::value(const std::string& key) const {
  std::istringstream in(output);
  std::string line;
  while (std::getline(in, line))
    if (line.compare(0, key.size() + 1, key + "=") == 0)
      return line.substr(key.size() + 1);
  return "";
}

std::string ChildResult::describe() const {
  if (!error.empty()) return "not started: " + error;
  if (timed_out) return "timed out";
  if (signal) return "killed by " + signal_name(signal);
  return "exited " + std::to_string(exit_code);
}

ChildResult run_child(const std::string& name, const torch::Device& device,
                      int timeout_s) {
  ChildResult r;
  int fds[2];
  if (pipe(fds) != 0) {
    r.error = std::string("pipe: ") + std::strerror(errno);
    return r;
  }
  std::cout.flush();
  std::cerr.flush();
  const std::string dev = device.str();
  const pid_t pid = fork();
  if (pid < 0) {
    r.error = std::string("fork: ") + std::strerror(errno);
    close(fds[0]);
    close(fds[1]);
    return r;
  }
  if (pid == 0) {
    const rlimit no_core{0, 0};  // a crash is expected: no core file
    setrlimit(RLIMIT_CORE, &no_core);
    dup2(fds[1], STDOUT_FILENO);
    close(fds[0]);
    close(fds[1]);
    const char* args[] = {"torch-tidy-harness", "--child", name.c_str(),
                          dev.c_str(), nullptr};
    execv("/proc/self/exe", const_cast<char* const*>(args));
    _exit(127);
  }
  close(fds[1]);
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
  char buf[4096];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                          deadline - std::chrono::steady_clock::now())
                          .count();
    if (left <= 0) {
      r.timed_out = true;
      kill(pid, SIGKILL);
      break;
    }
    pollfd p{fds[0], POLLIN, 0};
    const int ready = poll(&p, 1, static_cast<int>(left));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) continue;
    const ssize_t n = read(fds[0], buf, sizeof buf);
    if (n <= 0) break;  // EOF: the child closed its output
    r.output.append(buf, static_cast<size_t>(n));
  }
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (r.timed_out) return r;
  if (WIFEXITED(status)) {
    r.exit_code = WEXITSTATUS(status);
    r.exited = r.exit_code != 127;
    if (!r.exited) r.error = "exec of /proc/self/exe failed";
  } else if (WIFSIGNALED(status)) {
    r.signal = WTERMSIG(status);
  }
  return r;
}

namespace {
int run_registered(const std::string& name, const std::string& dev) {
  auto it = children().find(name);
  if (it == children().end()) {
    std::cerr << "torch-tidy-harness: error: unknown child routine '" << name
              << "'\n";
    return 2;
  }
  Outcome o;
  int status = 0;
  o = capture([&] { status = it->second(torch::Device(dev)); });
  if (o.threw) {
    std::cout << "threw=1\nmessage=" << first_line(o.message, 300) << "\n";
    status = 3;
  }
  std::cout.flush();
  return status;
}

int child_self_test() {
  int failures = 0;
  auto expect = [&](bool ok, const std::string& what) {
    std::cout << (ok ? "ok   " : "FAIL ") << what << "\n";
    if (!ok) ++failures;
  };
  const torch::Device cpu(torch::kCPU);
  ChildResult ok = run_child("selftest/prints", cpu, 60);
  expect(ok.exited && ok.exit_code == 0 && ok.value("sum") == "6",
         "a child's key=value output comes back (" + ok.describe() + ")");
  ChildResult threw = run_child("selftest/throws", cpu, 60);
  expect(threw.exited && threw.exit_code == 3 && threw.value("threw") == "1" &&
             threw.value("message").find("shape") != std::string::npos,
         "an exception in a child is reported (" + threw.describe() + ")");
  ChildResult crashed = run_child("selftest/crashes", cpu, 60);
  expect(!crashed.exited && crashed.signal == SIGSEGV &&
             crashed.value("before") == "1",
         "a crashing child is a result, not the end (" + crashed.describe() +
             ")");
  std::cout << (failures ? "child self-test FAILED\n"
                         : "child self-test passed\n");
  return failures ? 1 : 0;
}

HARNESS_REGISTER_CHILD("selftest/prints", [](const torch::Device& d) {
  std::cout << "sum=" << torch::tensor({1, 2, 3}, d).sum().item<int64_t>()
            << "\n";
  return 0;
});
HARNESS_REGISTER_CHILD("selftest/throws", [](const torch::Device&) {
  torch::ones({2}).view({3});  // c10::Error: shape mismatch
  return 0;
});
HARNESS_REGISTER_CHILD("selftest/crashes", [](const torch::Device&) {
  std::cout << "before=1" << std::endl;
  raise(SIGSEGV);
  return 0;
});
}  // namespace

int run_child_if_requested(int argc, char** argv) {
  if (argc >= 2 && std::string(argv[1]) == "--child-self-test")
    return child_self_test();
  if (argc >= 4 && std::string(argv[1]) == "--child")
    return run_registered(argv[2], argv[3]);
  return -1;
}

}  // namespace harness
