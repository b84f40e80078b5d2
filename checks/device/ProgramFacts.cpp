//===- ProgramFacts.cpp - device facts that cross translation units ------===//
#include "device/ProgramFacts.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/Twine.h"

namespace clang::tidy::torch::device {

std::string ProgramFacts::returnOf(llvm::StringRef Fn) {
  return ("ret\t" + Fn).str();
}

std::string ProgramFacts::parameter(unsigned Index, llvm::StringRef Fn) {
  return ("param\t" + llvm::Twine(Index) + "\t" + Fn).str();
}

std::string ProgramFacts::returnFact(llvm::StringRef Fn,
                                     llvm::StringRef Value) {
  return ("R\t" + Fn + "\t" + Value + "\n").str();
}

std::string ProgramFacts::argumentFact(llvm::StringRef Fn, unsigned Index,
                                       llvm::StringRef Value) {
  return ("A\t" + Fn + "\t" + llvm::Twine(Index) + "\t" + Value + "\n").str();
}

std::string ProgramFacts::deferredFact(llvm::StringRef File, unsigned Offset,
                                       llvm::StringRef Value) {
  return ("D\t" + File + "\t" + llvm::Twine(Offset) + "\t" + Value + "\n")
      .str();
}

std::string ProgramFacts::guardOf(llvm::StringRef Fn) {
  return ("guard\t" + Fn).str();
}

std::string ProgramFacts::proofOf(unsigned Index, llvm::StringRef Fn) {
  return ("proof\t" + llvm::Twine(Index) + "\t" + Fn).str();
}

std::string ProgramFacts::guardFact(llvm::StringRef Fn, llvm::StringRef Value) {
  return ("G\t" + Fn + "\t" + Value + "\n").str();
}

std::string ProgramFacts::proofFact(llvm::StringRef Fn, unsigned Index,
                                    llvm::StringRef Value) {
  return ("P\t" + Fn + "\t" + llvm::Twine(Index) + "\t" + Value + "\n").str();
}

std::string ProgramFacts::callerDeferredFact(llvm::StringRef Check,
                                             llvm::StringRef File,
                                             unsigned Offset,
                                             llvm::StringRef Value) {
  return ("C\t" + Check + "\t" + File + "\t" + llvm::Twine(Offset) + "\t" +
          Value + "\n")
      .str();
}

std::string ProgramFacts::perStepFact(llvm::StringRef Fn) {
  return ("S\t" + Fn + "\n").str();
}

std::string ProgramFacts::perStepNeedFact(llvm::StringRef File, unsigned Offset,
                                          llvm::StringRef Fn) {
  return ("Q\t" + File + "\t" + llvm::Twine(Offset) + "\t" + Fn + "\n").str();
}

bool ProgramFacts::perStepNowhere(llvm::StringRef File, unsigned Offset) const {
  auto It = PerStepNeeds.find({File.str(), Offset});
  return It != PerStepNeeds.end() &&
         llvm::none_of(It->second, [&](const std::string &Fn) {
           return PerStep.count(Fn) != 0;
         });
}

void ProgramFacts::add(llvm::StringRef Text) {
  llvm::SmallVector<llvm::StringRef, 0> Lines;
  Text.split(Lines, '\n', -1, false);
  for (llvm::StringRef Line : Lines) {
    llvm::SmallVector<llvm::StringRef, 6> F;
    Line.split(F, '\t');
    auto Rest = [&](size_t From) {
      return llvm::join(F.begin() + From, F.end(), "\t");
    };
    unsigned N = 0;
    if (F[0] == "R" && F.size() >= 3)
      Inflow[returnOf(F[1])].push_back(Rest(2));
    else if (F[0] == "A" && F.size() >= 4 && !F[2].getAsInteger(10, N))
      Inflow[parameter(N, F[1])].push_back(Rest(3));
    else if (F[0] == "D" && F.size() >= 4 && !F[2].getAsInteger(10, N))
      Deferred[{F[1].str(), N}].push_back(Rest(3));
    else if (F[0] == "S" && F.size() >= 2)
      PerStep[Rest(1)] = true;
    else if (F[0] == "Q" && F.size() >= 4 && !F[2].getAsInteger(10, N))
      PerStepNeeds[{F[1].str(), N}].push_back(Rest(3));
    else if (F[0] == "G" && F.size() >= 3)
      Inflow[guardOf(F[1])].push_back(Rest(2));
    else if (F[0] == "P" && F.size() >= 4 && !F[2].getAsInteger(10, N))
      Inflow[proofOf(N, F[1])].push_back(Rest(3));
    else if (F[0] == "C" && F.size() >= 5 && !F[3].getAsInteger(10, N))
      CallerDeferred[{F[1].str(), F[2].str(), N}].push_back(Rest(4));
  }
}

bool ProgramFacts::reachedOnlyBy(
    llvm::StringRef Value, llvm::function_ref<bool(llvm::StringRef)> IsGood,
    llvm::function_ref<bool(llvm::StringRef)> AddsNothing) const {
  llvm::SmallVector<llvm::StringRef, 8> Work{Value};
  llvm::StringSet<> Seen;
  Seen.insert(Value);
  bool SawGood = false;
  while (!Work.empty()) {
    llvm::StringRef V = Work.pop_back_val();
    if (IsGood(V)) {
      SawGood = true;
      continue;
    }
    auto It = Inflow.find(V);
    if (It == Inflow.end()) {
      if (AddsNothing(V))
        continue;
      return false;
    }
    for (const std::string &In : It->second)
      if (Seen.insert(In).second)
        Work.push_back(In);
  }
  return SawGood;
}

bool ProgramFacts::onCPU(llvm::StringRef Value) const {
  // A parameter no unit passes anything to adds nothing; "other", or a
  // function no unit defines, is not known to be on the CPU.
  return reachedOnlyBy(
      Value, [](llvm::StringRef V) { return V == "cpu"; },
      [](llvm::StringRef V) { return V.starts_with("param\t"); });
}

bool ProgramFacts::onCPUEverywhere(llvm::StringRef File,
                                   unsigned Offset) const {
  auto It = Deferred.find({File.str(), Offset});
  return It != Deferred.end() &&
         llvm::all_of(It->second,
                      [&](const std::string &V) { return onCPU(V); });
}

bool ProgramFacts::provenByCallers(llvm::StringRef Value) const {
  // "unguarded", "unproven", or a function no unit calls prove nothing.
  return reachedOnlyBy(
      Value, [](llvm::StringRef V) { return V == "guarded" || V == "cuda"; },
      [](llvm::StringRef) { return false; });
}

bool ProgramFacts::provenByCallersEverywhere(llvm::StringRef Check,
                                             llvm::StringRef File,
                                             unsigned Offset) const {
  auto It = CallerDeferred.find({Check.str(), File.str(), Offset});
  return It != CallerDeferred.end() &&
         llvm::all_of(It->second,
                      [&](const std::string &V) { return provenByCallers(V); });
}

} // namespace clang::tidy::torch::device
