//===- ProgramFacts.h - device facts that cross translation units --------===//
// Answers, in batch mode: is a tensor whose device one translation unit
// could not know (CallerDevices.h) on the CPU in the whole program?
//
// Each batch worker writes, for its unit, one fact per line:
//   R <fn> <value>            a return statement of <fn> returns <value>
//   A <fn> <i> <value>        a call of <fn> passes <value> as parameter <i>
//   H <member> <value>        the unit stores <value> in <member> (a tensor
//                             member of the user's class, "Class::name"), or
//                             "other" when it cannot follow its stores
//   D <file> <offset> <value> the finding at <offset> stands only if <value>
//                             is not on the CPU
//   W <file> <offset> <value> the same, for a finding in a loop bounded by a
//                             tensor's size: it also needs a value to reach
//                             <value> (a helper no unit calls shows no device)
// A value is "cpu", "other", "ret <fn>" (what <fn> returns),
// "param <i> <fn>" (what <fn>'s parameter <i> receives) or "member <member>"
// (what the program stores in <member>); <fn> is a function
// key (CallerDevices.cpp), fields are separated by tabs. The driver joins
// the units' lines and drops the deferred findings whose value is on the
// CPU everywhere: every value that reaches it is "cpu", and at least one
// does. A result needs a unit that defines the function; a parameter of a
// function that no unit calls receives nothing.
//
// And: is every call of an extension function guarded, does every call
// pass a tensor proven to be on a CUDA device (program/KernelLaunches.h)?
//   G <fn> <value>            a call of <fn> is made with <value>: "guarded",
//                             "unguarded", or "guard <caller>" (as guarded
//                             as every call of <caller>)
//   P <fn> <i> <value>        a call of <fn> passes, as parameter <i>, a
//                             tensor that is "cuda" (proven), "unproven", or
//                             "proof <j> <caller>" (<caller>'s parameter <j>)
//   C <check> <file> <offset> <value>
//                             <check>'s finding at <offset> stands only if
//                             <value> ("guard <fn>", "proof <i> <fn>") is
//                             not proven by every call in the program
// Here a function no unit calls proves nothing: it is an entry point, called
// from Python or another program.
//
// Registries and launchers in other files (program/DispatchRegistrations.h,
// program/KernelLaunches.h):
//   K <registry> <fn> <n>     <fn>, taking <n> parameters, is registered for
//                             CUDA in <registry>: the G and P lines of
//                             <registry> (its dispatches) are calls of <fn>
//   L <fn> <guard> <params> <file> <offset> <what>
//                             <fn>, which takes no tensor, starts GPU work
//                             (<what>, at <offset>), "guarded" or
//                             "unguarded" inside, and hands it the memory of
//                             its pointer parameters <params> ("1,3", or "-")
//   N <check> <file> <offset> <fn> <i>
//                             <check>'s finding at <offset> stands only if a
//                             unit's L line says <fn> starts unguarded GPU
//                             work (<i> "-") or hands its parameter <i> to it
//   E <fn> <value>            a call of <fn> is followed by a read of the
//                             launch error: "read", "unread", or
//                             "errors <caller>" (as read as every call of
//                             <caller>); C lines need "errors <fn>"
//   V <file> <begin> <end>    device code (a kernel, a __device__ function
//                             or lambda) spans [<begin>, <end>): the driver
//                             reads them with its unit's compile errors
//
// And: does some unit call a function once per training step
// (program/HotLoops.h)?
//   S <fn>                    a unit calls <fn>, defined elsewhere, once per
//                             step
//   M <fn>                    <fn>'s body, outside its loops, runs a training
//                             or inference step (a backward pass, an
//                             optimizer step, a model's forward); M and Q
//                             lines also name each virtual method of the
//                             program that <fn> overrides, the function a
//                             call through the base class names
//   O <fn> <fn>...            a loop that is not hot by itself calls these
//                             functions, defined elsewhere, on each
//                             iteration: if one of them runs a step (an M
//                             line, or F lines to one), the loop runs once
//                             per step, and so do they all
//   P main | gpu              the unit defines main(); it names a GPU itself
//                             (program/GpuUse.h)
//   P def <fn> | call <fn>    the unit defines <fn>; it calls <fn>, defined
//                             elsewhere: units tied by a function belong to
//                             one program
//   Z <check> <file> <offset> <check>'s finding at <offset> waits for a
//                             device: it stands only if a unit of its
//                             program names a GPU, or none defines main()
//                             (a library's callers are elsewhere)
//   F <fn> <callee>           <fn>'s body calls <callee> (a function of the
//                             program) on every run, outside its loops and
//                             branches: when <fn> runs once per step, so
//                             does <callee>; when <callee> runs a training
//                             step (an M line, or F lines to one), so does
//                             <fn>
//   Q <file> <offset> <fn>    the finding at <offset>, made as if <fn> ran
//                             once per step, stands only if a unit says so
//                             (an S line, or an O line made hot by a
//                             function that runs a step)
//   T <file> <offset> <fn>    the finding at <offset>, in a loop that calls
//                             <fn> (defined elsewhere), stands only if one
//                             of its T lines' functions runs a step
#ifndef TORCH_TIDY_DEVICE_PROGRAMFACTS_H
#define TORCH_TIDY_DEVICE_PROGRAMFACTS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace clang::tidy::torch::device {

class ProgramFacts {
public:
  /// The value forms.
  static std::string cpu() { return "cpu"; }
  static std::string other() { return "other"; }
  static std::string returnOf(llvm::StringRef Fn);
  static std::string parameter(unsigned Index, llvm::StringRef Fn);
  static std::string member(llvm::StringRef Member);

  /// The fact lines (each ends in a newline).
  static std::string returnFact(llvm::StringRef Fn, llvm::StringRef Value);
  static std::string argumentFact(llvm::StringRef Fn, unsigned Index,
                                  llvm::StringRef Value);
  static std::string memberFact(llvm::StringRef Member, llvm::StringRef Value);
  static std::string deferredFact(llvm::StringRef File, unsigned Offset,
                                  llvm::StringRef Value);
  static std::string sizeLoopDeferredFact(llvm::StringRef File, unsigned Offset,
                                          llvm::StringRef Value);

  static std::string guardOf(llvm::StringRef Fn);
  static std::string proofOf(unsigned Index, llvm::StringRef Fn);
  static std::string guardFact(llvm::StringRef Fn, llvm::StringRef Value);
  static std::string proofFact(llvm::StringRef Fn, unsigned Index,
                               llvm::StringRef Value);
  static std::string errorsOf(llvm::StringRef Fn);
  static std::string errorReadFact(llvm::StringRef Fn, llvm::StringRef Value);
  static std::string registryFact(llvm::StringRef Registry, llvm::StringRef Fn,
                                  unsigned NumParams);
  static std::string launcherFact(llvm::StringRef Fn, bool Guarded,
                                  llvm::StringRef Params, llvm::StringRef File,
                                  unsigned Offset, llvm::StringRef What);
  static std::string launcherNeedFact(llvm::StringRef Check,
                                      llvm::StringRef File, unsigned Offset,
                                      llvm::StringRef Fn,
                                      std::optional<unsigned> Param);
  static std::string deviceCodeFact(llvm::StringRef File, unsigned Begin,
                                    unsigned End);
  static std::string perStepFact(llvm::StringRef Fn);
  static std::string stepFunctionFact(llvm::StringRef Fn);
  static std::string callsOnEachRunFact(llvm::StringRef Fn,
                                        llvm::StringRef Callee);
  static std::string programFact(llvm::StringRef What);
  static std::string gpuNeedFact(llvm::StringRef Check, llvm::StringRef File,
                                 unsigned Offset);
  static std::string loopCallsFact(llvm::ArrayRef<std::string> Fns);
  static std::string perStepNeedFact(llvm::StringRef File, unsigned Offset,
                                     llvm::StringRef Fn);
  static std::string stepLoopNeedFact(llvm::StringRef File, unsigned Offset,
                                      llvm::StringRef Fn);
  static std::string callerDeferredFact(llvm::StringRef Check,
                                        llvm::StringRef File, unsigned Offset,
                                        llvm::StringRef Value);

  /// Adds one unit's lines; malformed lines are ignored. Units are numbered
  /// in the order they are added, from 0.
  void add(llvm::StringRef Text);

  // The questions below are about one unit's finding: \p Unit made it at
  // \p File (absolute) : \p Offset. Another unit may make the same finding
  // with other needs, or none: each copy stands or goes on its own unit's
  // lines, asked of the whole program.

  /// True when the finding was deferred (D or W lines) and every one of
  /// their values is on the CPU in the whole program.
  bool onCPUEverywhere(unsigned Unit, llvm::StringRef File,
                       unsigned Offset) const;
  /// True when the finding has W lines only, and every one of their values
  /// is on the CPU or reached by nothing in the program.
  bool noDeviceReaches(unsigned Unit, llvm::StringRef File,
                       unsigned Offset) const;
  /// True when every value that reaches \p Value is "cpu", and (with
  /// NeedsOne) one does.
  bool onCPU(llvm::StringRef Value, bool NeedsOne = true) const;
  /// True when \p Check's finding was deferred to the callers (C lines) and
  /// every call in the program guards or proves all it needs.
  bool provenByCallersEverywhere(unsigned Unit, llvm::StringRef Check,
                                 llvm::StringRef File, unsigned Offset) const;
  /// Where a launcher of another file starts the GPU work a finding needs.
  struct LaunchSite {
    std::string Fn, File, What;
    unsigned Offset;
  };
  /// For \p Check's finding that needs a launcher in another file (N
  /// lines): null when it has no such need; else the launches that meet it,
  /// empty when none does (the finding goes).
  std::optional<std::vector<LaunchSite>> launchersNeeded(unsigned Unit,
                                                         llvm::StringRef Check,
                                                         llvm::StringRef File,
                                                         unsigned Offset) const;
  /// True when the finding was made as if its function ran once per step
  /// (Q lines) and no unit calls it so.
  bool perStepNowhere(unsigned Unit, llvm::StringRef File,
                      unsigned Offset) const;
  /// True when the finding was made in a loop that calls functions of other
  /// files (T lines) and none of them runs a training step (runsStep).
  bool stepLoopNowhere(unsigned Unit, llvm::StringRef File,
                       unsigned Offset) const;
  /// True for \p Check's finding when it needs a GPU (a Z line) in a
  /// program that runs on the CPU: a unit of its unit's program defines
  /// main() and none names a GPU.
  bool cpuOnlyProgram(unsigned Unit, llvm::StringRef Check,
                      llvm::StringRef File, unsigned Offset) const;

private:
  /// A unit's finding: (unit, file, offset), and with its check first.
  using Site = std::tuple<unsigned, std::string, unsigned>;
  using CheckSite = std::tuple<unsigned, std::string, std::string, unsigned>;
  /// "ret <fn>" or "param <i> <fn>" -> the values flowing into it.
  llvm::StringMap<std::vector<std::string>> Inflow;
  std::map<Site, std::vector<std::string>> Deferred;
  std::map<Site, std::vector<std::string>> SizeLoopDeferred;
  std::map<CheckSite, std::vector<std::string>> CallerDeferred;
  struct Launcher {
    bool Guarded;
    std::vector<unsigned> Params;
    LaunchSite Site;
  };
  std::map<std::string, std::vector<Launcher>> Launchers; ///< L lines
  std::map<CheckSite,
           std::vector<std::pair<std::string, std::optional<unsigned>>>>
      LauncherNeeds;                         ///< N lines
  std::map<std::string, bool> PerStep;       ///< S lines
  std::map<std::string, bool> StepFunctions; ///< M lines
  /// True when \p Fn runs a training step: an M line, or an F line to a
  /// function that does (built once, on first use, into StepClosure).
  bool runsStep(const std::string &Fn) const;
  mutable std::set<std::string> StepClosure;
  mutable bool StepClosureBuilt = false;
  /// F lines: a function -> the functions that call it on each of their runs.
  std::map<std::string, std::vector<std::string>> CalledOnEachRunBy;
  /// P lines, per unit (one add() each), and the units each function ties.
  struct UnitRole {
    bool Main = false, Gpu = false;
  };
  std::vector<UnitRole> Units;
  std::map<std::string, std::vector<unsigned>> UnitsOfFunction;
  std::set<CheckSite> GpuNeeds; ///< Z lines
  /// Each unit's program: the units tied to it, as one role (cpuOnlyProgram).
  mutable std::vector<UnitRole> ProgramOfUnit;
  void joinPrograms() const;
  std::vector<std::vector<std::string>> LoopCalls; ///< O lines
  /// A function -> the O lines (indices into LoopCalls) that name it.
  std::map<std::string, std::vector<size_t>> LoopsCalling;
  std::map<Site, std::vector<std::string>> PerStepNeeds;  ///< Q lines
  std::map<Site, std::vector<std::string>> StepLoopNeeds; ///< T lines
  /// True when a unit calls \p Fn once per step: an S line, or an O line
  /// with a function that runs a step in it, or an F line from such a
  /// function.
  bool runsPerStep(const std::string &Fn) const;
  /// True when every value that reaches \p Value is "guarded" or "cuda",
  /// and one does; a function no unit calls proves nothing.
  bool provenByCallers(llvm::StringRef Value) const;
  /// The search these questions share: every value that flows into \p
  /// Value, followed back, ends at one that IsGood, and (with NeedsOne) one
  /// does; a value with no inflow stops the search with false unless
  /// AddsNothing says it adds nothing. A cycle adds nothing.
  bool reachedOnlyBy(llvm::StringRef Value,
                     llvm::function_ref<bool(llvm::StringRef)> IsGood,
                     llvm::function_ref<bool(llvm::StringRef)> AddsNothing,
                     bool NeedsOne = true) const;
};

} // namespace clang::tidy::torch::device

#endif // TORCH_TIDY_DEVICE_PROGRAMFACTS_H
