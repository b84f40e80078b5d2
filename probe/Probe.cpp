//===- Probe.cpp - LibTorch's syncs and transfers, per call site ---------===//
// libtorch-tidy-probe.so: linked into a LibTorch program or LD_PRELOADed,
// with TORCH_TIDY_PROBE_OUT=run.json set, it counts the operations that make
// the host wait for the device or move data between devices, per call site
// in the program, and writes them at exit for `torch-tidy --runtime-report`.
// Without the variable it registers nothing.
//
// Observed through a global at::RecordFunction callback (LibTorch 1.13 and
// 2.x): aten::_local_scalar_dense (every .item()), aten::is_nonzero,
// aten::_to_copy and aten::copy_ between devices (direction and bytes),
// aten::nonzero / masked_select / unique* on a device; with CUDA, LibTorch's
// sync-debug warnings too. Each event keeps the first frames of its stack
// outside LibTorch, c10, the C++ runtime and the probe, as module paths and
// file addresses, unsymbolised: torch-tidy symbolises them.
#include <ATen/core/Tensor.h>
#include <ATen/core/ivalue.h>
#include <ATen/record_function.h>
#include <algorithm>
#include <c10/util/Exception.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <elf.h>
#include <execinfo.h>
#include <link.h>
#include <map>
#include <mutex>
#include <string>
#include <torch/version.h>
#include <unistd.h>
#include <vector>
#ifdef TORCH_TIDY_PROBE_CUDA
// c10/cuda/CUDAFunctions.h, without the CUDA toolkit's headers it pulls in:
// the sync-debug switch of libc10_cuda (LibTorch 1.13 and 2.x alike).
namespace c10::cuda {
enum class SyncDebugMode { L_DISABLED = 0, L_WARN, L_ERROR };
class WarningState {
public:
  void set_sync_debug_mode(SyncDebugMode L) { Mode = L; }

private:
  SyncDebugMode Mode = SyncDebugMode::L_DISABLED;
};
__attribute__((visibility("default"))) WarningState &warning_state();
} // namespace c10::cuda
#endif

namespace {

constexpr int MaxFrames = 48;
constexpr size_t KeptFrames = 6;

struct Frame {
  std::string Module;
  uintptr_t Address; ///< the module's virtual address of the call
  bool operator<(const Frame &O) const {
    return Module != O.Module ? Module < O.Module : Address < O.Address;
  }
};

struct Key {
  std::string Op; ///< "item", "copy-to-host", ...
  std::vector<Frame> Stack;
  bool operator<(const Key &O) const {
    return Op != O.Op ? Op < O.Op : Stack < O.Stack;
  }
};

struct Stats {
  uint64_t Count = 0, Bytes = 0;
  int64_t FirstNs = 0, LastNs = 0;
};

std::mutex Lock;
std::map<Key, Stats> *Table; // leaked: atexit order must not matter
const auto Start = std::chrono::steady_clock::now();
thread_local int InToCopy = 0;  // copy_ inside _to_copy is the same move
thread_local bool Busy = false; // no events while the probe records one
void *ProbeBase = nullptr;

bool isRuntimeModule(const std::string &Path) {
  size_t Slash = Path.rfind('/');
  const char *Base =
      Path.c_str() + (Slash == std::string::npos ? 0 : Slash + 1);
  static const char *const Prefixes[] = {
      "libtorch",  "libc10",   "libcaffe2", "libstdc++", "libc.so",    "libc-",
      "libgcc",    "libgomp",  "ld-linux",  "libm.so",   "libpthread", "libshm",
      "libcudart", "libcuda.", "libcublas", "libcudnn"};
  for (const char *P : Prefixes)
    if (std::strncmp(Base, P, std::strlen(P)) == 0)
      return true;
  return false;
}

/// A loaded segment: [Begin, End) of the module at Path, loaded at Bias.
struct Segment {
  uintptr_t Begin, End, Bias;
  const std::string *Path;
  bool Skip; ///< LibTorch, the C++ runtime, CUDA, the probe
};
std::vector<Segment> Segments;            // sorted by Begin; under Lock
std::map<std::string, std::string> Paths; // stable strings for Segments

int addModule(dl_phdr_info *Info, size_t, void *) {
  std::string Path = Info->dlpi_name ? Info->dlpi_name : "";
  if (Path.empty()) { // the program itself
    char Buf[4096];
    ssize_t N = readlink("/proc/self/exe", Buf, sizeof(Buf) - 1);
    Path = N > 0 ? std::string(Buf, N) : "";
  }
  const std::string &Stable = Paths.try_emplace(Path, Path).first->second;
  for (int I = 0; I < Info->dlpi_phnum; ++I) {
    const ElfW(Phdr) &P = Info->dlpi_phdr[I];
    if (P.p_type != PT_LOAD)
      continue;
    uintptr_t Begin = Info->dlpi_addr + P.p_vaddr;
    Segments.push_back(
        {Begin, Begin + P.p_memsz, Info->dlpi_addr, &Stable,
         Path.empty() || isRuntimeModule(Path) ||
             Info->dlpi_addr == reinterpret_cast<uintptr_t>(ProbeBase)});
  }
  return 0;
}

void loadSegments() {
  Segments.clear();
  dl_iterate_phdr(addModule, nullptr);
  std::sort(
      Segments.begin(), Segments.end(),
      [](const Segment &A, const Segment &B) { return A.Begin < B.Begin; });
}

const Segment *segmentOf(uintptr_t Addr) {
  auto It = std::upper_bound(
      Segments.begin(), Segments.end(), Addr,
      [](uintptr_t A, const Segment &S) { return A < S.Begin; });
  if (It == Segments.begin() || Addr >= std::prev(It)->End)
    return nullptr;
  return &*std::prev(It);
}

/// The frames of the current stack in the program's own modules; under Lock.
std::vector<Frame> userFrames() {
  void *Raw[MaxFrames];
  int N = backtrace(Raw, MaxFrames);
  std::vector<Frame> Out;
  for (int I = 1; I < N && Out.size() < KeptFrames; ++I) {
    // A return address points after the call: step back into it.
    uintptr_t Addr = reinterpret_cast<uintptr_t>(Raw[I]) - 1;
    const Segment *S = segmentOf(Addr);
    if (!S) { // a module loaded since: look again, once
      loadSegments();
      S = segmentOf(Addr);
    }
    if (!S || S->Skip)
      continue;
    // The symbolizer wants the address in the file: the load bias removed.
    Out.push_back({*S->Path, Addr - S->Bias});
  }
  return Out;
}

void record(const char *Op, uint64_t Bytes) {
  if (Busy)
    return;
  Busy = true;
  int64_t Now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                    std::chrono::steady_clock::now() - Start)
                    .count();
  {
    std::lock_guard<std::mutex> L(Lock);
    Stats &S = (*Table)[Key{Op, userFrames()}];
    if (S.Count++ == 0)
      S.FirstNs = Now;
    S.LastNs = Now;
    S.Bytes += Bytes;
  }
  Busy = false;
}

const at::Tensor *tensorAt(const at::RecordFunction &Fn, size_t I) {
  auto In = Fn.inputs();
  return I < In.size() && In[I].isTensor() ? &In[I].toTensor() : nullptr;
}

uint64_t bytesOf(const at::Tensor &T) {
  return T.defined() ? static_cast<uint64_t>(T.numel()) * T.element_size() : 0;
}

/// A copy from \p From's device to \p To's: "copy-to-device",
/// "copy-to-host", "copy-device-to-device", or null when both are the same.
const char *copyKind(c10::Device From, c10::Device To) {
  if (From.type() == To.type() && From.index() == To.index())
    return nullptr;
  if (From.is_cpu())
    return "copy-to-device";
  if (To.is_cpu())
    return "copy-to-host";
  return "copy-device-to-device";
}

std::unique_ptr<at::ObserverContext> onStart(const at::RecordFunction &Fn) {
  const char *Name = Fn.name();
  if (!Name || std::strncmp(Name, "aten::", 6) != 0)
    return nullptr;
  Name += 6;
  if (std::strcmp(Name, "_local_scalar_dense") == 0) {
    record("item", 0);
  } else if (std::strcmp(Name, "is_nonzero") == 0) {
    record("is_nonzero", 0);
  } else if (std::strcmp(Name, "_to_copy") == 0) {
    ++InToCopy;
    auto In = Fn.inputs();
    const at::Tensor *Src = tensorAt(Fn, 0);
    // _to_copy(self, dtype, layout, device, pin_memory, non_blocking, ...)
    if (Src && In.size() > 3 && In[3].isDevice())
      if (const char *K = copyKind(Src->device(), In[3].toDevice()))
        record(K, bytesOf(*Src));
  } else if (std::strcmp(Name, "copy_") == 0 && InToCopy == 0) {
    const at::Tensor *Dst = tensorAt(Fn, 0), *Src = tensorAt(Fn, 1);
    if (Dst && Src)
      if (const char *K = copyKind(Src->device(), Dst->device()))
        record(K, bytesOf(*Src));
  } else if (std::strcmp(Name, "nonzero") == 0 ||
             std::strcmp(Name, "masked_select") == 0 ||
             std::strncmp(Name, "unique", 6) == 0 ||
             std::strncmp(Name, "_unique", 7) == 0) {
    const at::Tensor *Self = tensorAt(Fn, 0);
    if (Self && !Self->device().is_cpu())
      record(Name[0] == '_' ? Name + 1 : Name, 0);
  }
  return nullptr;
}

void onEnd(const at::RecordFunction &Fn, at::ObserverContext *) {
  const char *Name = Fn.name();
  if (Name && std::strcmp(Name, "aten::_to_copy") == 0 && InToCopy > 0)
    --InToCopy;
}

/// Counts LibTorch's sync-debug warnings, then passes every warning on.
class SyncWarningCounter : public c10::WarningHandler {
public:
  explicit SyncWarningCounter(c10::WarningHandler *Next) : Next(Next) {}
#if TORCH_VERSION_MAJOR >= 2
  void process(const c10::Warning &W) override {
    count(W.msg());
    if (Next)
      Next->process(W);
  }
#else
  void process(const c10::SourceLocation &Where, const std::string &Msg,
               const bool Verbatim) override {
    count(Msg);
    if (Next)
      Next->process(Where, Msg, Verbatim);
  }
#endif

private:
  static void count(const std::string &Msg) {
    if (Msg.find("synchroniz") != std::string::npos)
      record("sync-warning", 0);
  }
  c10::WarningHandler *Next;
};

#if TORCH_VERSION_MAJOR >= 2
namespace warnings = c10::WarningUtils;
#else
namespace warnings = c10::Warning;
#endif

void writeString(FILE *F, const std::string &S) {
  std::fputc('"', F);
  for (char C : S) {
    if (C == '"' || C == '\\')
      std::fprintf(F, "\\%c", C);
    else if (static_cast<unsigned char>(C) < 0x20)
      std::fprintf(F, "\\u%04x", C);
    else
      std::fputc(C, F);
  }
  std::fputc('"', F);
}

void writeReport() {
  const char *Path = std::getenv("TORCH_TIDY_PROBE_OUT");
  if (!Path || !Table)
    return;
  std::lock_guard<std::mutex> L(Lock);
  FILE *F = std::fopen(Path, "w");
  if (!F) {
    std::fprintf(stderr, "torch-tidy-probe: cannot write '%s': %s\n", Path,
                 std::strerror(errno));
    return;
  }
  std::fprintf(F, "{\n \"version\": 1,\n \"tool\": \"torch-tidy-probe\",\n"
                  " \"events\": [");
  bool First = true;
  for (const auto &[K, S] : *Table) {
    std::fprintf(F, "%s\n  {\"op\": ", First ? "" : ",");
    First = false;
    writeString(F, K.Op);
    std::fprintf(F,
                 ", \"count\": %llu, \"bytes\": %llu, \"first_ns\": %lld, "
                 "\"last_ns\": %lld, \"frames\": [",
                 static_cast<unsigned long long>(S.Count),
                 static_cast<unsigned long long>(S.Bytes),
                 static_cast<long long>(S.FirstNs),
                 static_cast<long long>(S.LastNs));
    for (size_t I = 0; I < K.Stack.size(); ++I) {
      std::fprintf(F, "%s{\"module\": ", I ? ", " : "");
      writeString(F, K.Stack[I].Module);
      std::fprintf(F, ", \"address\": %llu}",
                   static_cast<unsigned long long>(K.Stack[I].Address));
    }
    std::fprintf(F, "]}");
  }
  std::fprintf(F, "\n ]\n}\n");
  if (std::fclose(F) != 0)
    std::fprintf(stderr, "torch-tidy-probe: cannot write '%s'\n", Path);
}

void startProbe() {
  const char *Path = std::getenv("TORCH_TIDY_PROBE_OUT");
  if (!Path || !*Path)
    return;
  Dl_info Self;
  if (dladdr(reinterpret_cast<void *>(&startProbe), &Self))
    ProbeBase = Self.dli_fbase;
  Table = new std::map<Key, Stats>();
  loadSegments();
  at::addGlobalCallback(
      at::RecordFunctionCallback(onStart, onEnd).needsInputs(true));
  static SyncWarningCounter Counter(warnings::get_warning_handler());
  warnings::set_warning_handler(&Counter);
#ifdef TORCH_TIDY_PROBE_CUDA
  c10::cuda::warning_state().set_sync_debug_mode(
      c10::cuda::SyncDebugMode::L_WARN);
#endif
  std::atexit(writeReport);
}

// Started after this file's other globals (definition order), once
// LibTorch, which the probe links, is initialised.
struct Starter {
  Starter() { startProbe(); }
} TheStarter;

} // namespace
