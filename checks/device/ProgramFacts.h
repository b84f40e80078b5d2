//===- ProgramFacts.h - device facts that cross translation units --------===//
// Answers, in batch mode: is a tensor whose device one translation unit
// could not know (CallerDevices.h) on the CPU in the whole program?
//
// Each batch worker writes, for its unit, one fact per line:
//   R <fn> <value>            a return statement of <fn> returns <value>
//   A <fn> <i> <value>        a call of <fn> passes <value> as parameter <i>
//   D <file> <offset> <value> the finding at <offset> stands only if <value>
//                             is not on the CPU
// A value is "cpu", "other", "ret <fn>" (what <fn> returns) or
// "param <i> <fn>" (what <fn>'s parameter <i> receives); <fn> is a function
// key (CallerDevices.cpp), fields are separated by tabs. The driver joins
// the units' lines and drops the deferred findings whose value is on the
// CPU everywhere: every value that reaches it is "cpu", and at least one
// does. A result needs a unit that defines the function; a parameter of a
// function that no unit calls receives nothing.
#ifndef TORCH_TIDY_DEVICE_PROGRAMFACTS_H
#define TORCH_TIDY_DEVICE_PROGRAMFACTS_H

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include <map>
#include <string>
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

  /// The fact lines (each ends in a newline).
  static std::string returnFact(llvm::StringRef Fn, llvm::StringRef Value);
  static std::string argumentFact(llvm::StringRef Fn, unsigned Index,
                                  llvm::StringRef Value);
  static std::string deferredFact(llvm::StringRef File, unsigned Offset,
                                  llvm::StringRef Value);

  /// Adds one unit's lines; malformed lines are ignored.
  void add(llvm::StringRef Text);
  /// True when \p File (absolute) at \p Offset has deferred findings and
  /// every one of their values is on the CPU in the whole program.
  bool onCPUEverywhere(llvm::StringRef File, unsigned Offset) const;
  /// True when every value that reaches \p Value is "cpu", and one does.
  bool onCPU(llvm::StringRef Value) const;

private:
  /// "ret <fn>" or "param <i> <fn>" -> the values flowing into it.
  llvm::StringMap<std::vector<std::string>> Inflow;
  std::map<std::pair<std::string, unsigned>, std::vector<std::string>> Deferred;
};

} // namespace clang::tidy::torch::device

#endif // TORCH_TIDY_DEVICE_PROGRAMFACTS_H
