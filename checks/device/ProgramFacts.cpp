//===- ProgramFacts.cpp - device facts that cross translation units ------===//
#include "device/ProgramFacts.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/Twine.h"
#include <functional>

namespace clang::tidy::torch::device {

std::string ProgramFacts::returnOf(llvm::StringRef Fn) {
  return ("ret\t" + Fn).str();
}

std::string ProgramFacts::parameter(unsigned Index, llvm::StringRef Fn) {
  return ("param\t" + llvm::Twine(Index) + "\t" + Fn).str();
}

std::string ProgramFacts::member(llvm::StringRef Member) {
  return ("member\t" + Member).str();
}

std::string ProgramFacts::memberFact(llvm::StringRef Member,
                                     llvm::StringRef Value) {
  return ("H\t" + Member + "\t" + Value + "\n").str();
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

std::string ProgramFacts::sizeLoopDeferredFact(llvm::StringRef File,
                                               unsigned Offset,
                                               llvm::StringRef Value) {
  return ("W\t" + File + "\t" + llvm::Twine(Offset) + "\t" + Value + "\n")
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

std::string ProgramFacts::errorsOf(llvm::StringRef Fn) {
  return ("errors\t" + Fn).str();
}

std::string ProgramFacts::errorReadFact(llvm::StringRef Fn,
                                        llvm::StringRef Value) {
  return ("E\t" + Fn + "\t" + Value + "\n").str();
}

std::string ProgramFacts::registryFact(llvm::StringRef Registry,
                                       llvm::StringRef Fn, unsigned NumParams) {
  return ("K\t" + Registry + "\t" + Fn + "\t" + llvm::Twine(NumParams) + "\n")
      .str();
}

/// Tabs and newlines would break a line apart.
static std::string field(llvm::StringRef S) {
  std::string Out = S.str();
  llvm::replace(Out, '\t', ' ');
  llvm::replace(Out, '\n', ' ');
  return Out;
}

std::string ProgramFacts::launcherFact(llvm::StringRef Fn, bool Guarded,
                                       llvm::StringRef Params,
                                       llvm::StringRef File, unsigned Offset,
                                       llvm::StringRef What) {
  return ("L\t" + Fn + "\t" + (Guarded ? "guarded" : "unguarded") + "\t" +
          (Params.empty() ? "-" : Params) + "\t" + File + "\t" +
          llvm::Twine(Offset) + "\t" + field(What) + "\n")
      .str();
}

std::string ProgramFacts::launcherNeedFact(llvm::StringRef Check,
                                           llvm::StringRef File,
                                           unsigned Offset, llvm::StringRef Fn,
                                           std::optional<unsigned> Param) {
  return ("N\t" + Check + "\t" + File + "\t" + llvm::Twine(Offset) + "\t" + Fn +
          "\t" + (Param ? std::to_string(*Param) : std::string("-")) + "\n")
      .str();
}

std::string ProgramFacts::deviceCodeFact(llvm::StringRef File, unsigned Begin,
                                         unsigned End) {
  return ("V\t" + File + "\t" + llvm::Twine(Begin) + "\t" + llvm::Twine(End) +
          "\n")
      .str();
}

std::optional<std::vector<ProgramFacts::LaunchSite>>
ProgramFacts::launchersNeeded(unsigned Unit, llvm::StringRef Check,
                              llvm::StringRef File, unsigned Offset) const {
  auto It = LauncherNeeds.find({Unit, Check.str(), File.str(), Offset});
  if (It == LauncherNeeds.end())
    return std::nullopt;
  std::vector<LaunchSite> Met;
  for (const auto &[Fn, Param] : It->second) {
    auto L = Launchers.find(Fn);
    if (L == Launchers.end())
      continue;
    for (const Launcher &Work : L->second)
      if (Param ? llvm::is_contained(Work.Params, *Param) : !Work.Guarded) {
        if (llvm::none_of(Met, [&](const LaunchSite &S) {
              return S.File == Work.Site.File && S.Offset == Work.Site.Offset;
            }))
          Met.push_back(Work.Site);
        break;
      }
  }
  return Met;
}

std::string ProgramFacts::perStepFact(llvm::StringRef Fn) {
  return ("S\t" + Fn + "\n").str();
}

std::string ProgramFacts::perStepNeedFact(llvm::StringRef File, unsigned Offset,
                                          llvm::StringRef Fn) {
  return ("Q\t" + File + "\t" + llvm::Twine(Offset) + "\t" + Fn + "\n").str();
}

std::string ProgramFacts::stepLoopNeedFact(llvm::StringRef File,
                                           unsigned Offset,
                                           llvm::StringRef Fn) {
  return ("T\t" + File + "\t" + llvm::Twine(Offset) + "\t" + Fn + "\n").str();
}

std::string ProgramFacts::stepFunctionFact(llvm::StringRef Fn) {
  return ("M\t" + Fn + "\n").str();
}

std::string ProgramFacts::callsOnEachRunFact(llvm::StringRef Fn,
                                             llvm::StringRef Callee) {
  return ("F\t" + Fn + "\t" + Callee + "\n").str();
}

std::string ProgramFacts::loopCallsFact(llvm::ArrayRef<std::string> Fns) {
  return "O\t" + llvm::join(Fns, "\t") + "\n";
}

std::string ProgramFacts::programFact(llvm::StringRef What) {
  return ("P\t" + What + "\n").str();
}

std::string ProgramFacts::gpuNeedFact(llvm::StringRef Check,
                                      llvm::StringRef File, unsigned Offset) {
  return ("Z\t" + Check + "\t" + File + "\t" + llvm::Twine(Offset) + "\n")
      .str();
}

void ProgramFacts::joinPrograms() const {
  std::vector<unsigned> Parent(Units.size());
  for (unsigned I = 0; I < Parent.size(); ++I)
    Parent[I] = I;
  std::function<unsigned(unsigned)> Root = [&](unsigned U) {
    return Parent[U] == U ? U : Parent[U] = Root(Parent[U]);
  };
  for (const auto &[Fn, Tied] : UnitsOfFunction)
    for (unsigned U : Tied)
      Parent[Root(U)] = Root(Tied.front());
  std::vector<UnitRole> Program(Units.size());
  for (unsigned U = 0; U < Units.size(); ++U) {
    Program[Root(U)].Main |= Units[U].Main;
    Program[Root(U)].Gpu |= Units[U].Gpu;
  }
  ProgramOfUnit.resize(Units.size());
  for (unsigned U = 0; U < Units.size(); ++U)
    ProgramOfUnit[U] = Program[Root(U)];
}

bool ProgramFacts::cpuOnlyProgram(unsigned Unit, llvm::StringRef Check,
                                  llvm::StringRef File, unsigned Offset) const {
  if (!GpuNeeds.count({Unit, Check.str(), File.str(), Offset}))
    return false;
  if (ProgramOfUnit.size() != Units.size())
    joinPrograms();
  const UnitRole &P = ProgramOfUnit[Unit];
  return P.Main && !P.Gpu;
}

bool ProgramFacts::runsStep(const std::string &Fn) const {
  if (!StepClosureBuilt) {
    // M lines, and the functions that call one on each of their runs (F
    // lines), across any number of files: `match()` calls `extract()`,
    // which calls `SuperPoint::predict()`, whose body runs the model.
    llvm::SmallVector<std::string, 8> Work;
    for (const auto &[F, Runs] : StepFunctions)
      if (Runs && StepClosure.insert(F).second)
        Work.push_back(F);
    while (!Work.empty()) {
      std::string F = Work.pop_back_val();
      auto It = CalledOnEachRunBy.find(F);
      if (It != CalledOnEachRunBy.end())
        for (const std::string &Caller : It->second)
          if (StepClosure.insert(Caller).second)
            Work.push_back(Caller);
    }
    StepClosureBuilt = true;
  }
  return StepClosure.count(Fn) != 0;
}

bool ProgramFacts::runsPerStep(const std::string &Fn) const {
  auto CalledPerStep = [&](const std::string &F) {
    if (PerStep.count(F))
      return true;
    auto It = LoopsCalling.find(F);
    return It != LoopsCalling.end() &&
           llvm::any_of(It->second, [&](size_t Loop) {
             return llvm::any_of(LoopCalls[Loop], [&](const std::string &C) {
               return runsStep(C);
             });
           });
  };
  // Or called on each run of a function that runs once per step (F lines).
  llvm::SmallVector<const std::string *, 8> Work{&Fn};
  std::set<std::string> Seen{Fn};
  while (!Work.empty()) {
    const std::string &F = *Work.pop_back_val();
    if (CalledPerStep(F))
      return true;
    auto It = CalledOnEachRunBy.find(F);
    if (It != CalledOnEachRunBy.end())
      for (const std::string &Caller : It->second)
        if (Seen.insert(Caller).second)
          Work.push_back(&Caller);
  }
  return false;
}

bool ProgramFacts::perStepNowhere(unsigned Unit, llvm::StringRef File,
                                  unsigned Offset) const {
  auto It = PerStepNeeds.find({Unit, File.str(), Offset});
  return It != PerStepNeeds.end() &&
         llvm::none_of(It->second,
                       [&](const std::string &Fn) { return runsPerStep(Fn); });
}

bool ProgramFacts::stepLoopNowhere(unsigned Unit, llvm::StringRef File,
                                   unsigned Offset) const {
  auto It = StepLoopNeeds.find({Unit, File.str(), Offset});
  return It != StepLoopNeeds.end() &&
         llvm::none_of(It->second,
                       [&](const std::string &Fn) { return runsStep(Fn); });
}

void ProgramFacts::add(llvm::StringRef Text) {
  const unsigned Unit = Units.size();
  Units.emplace_back();
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
    else if (F[0] == "H" && F.size() >= 3)
      Inflow[member(F[1])].push_back(Rest(2));
    else if (F[0] == "D" && F.size() >= 4 && !F[2].getAsInteger(10, N))
      Deferred[{Unit, F[1].str(), N}].push_back(Rest(3));
    else if (F[0] == "W" && F.size() >= 4 && !F[2].getAsInteger(10, N))
      SizeLoopDeferred[{Unit, F[1].str(), N}].push_back(Rest(3));
    else if (F[0] == "S" && F.size() >= 2)
      PerStep[Rest(1)] = true;
    else if (F[0] == "P" && F.size() == 2) {
      Units.back().Main |= F[1] == "main";
      Units.back().Gpu |= F[1] == "gpu";
    } else if (F[0] == "P" && F.size() >= 3 &&
               (F[1] == "def" || F[1] == "call"))
      UnitsOfFunction[Rest(2)].push_back(Unit);
    else if (F[0] == "Z" && F.size() == 4 && !F[3].getAsInteger(10, N))
      GpuNeeds.insert({Unit, F[1].str(), F[2].str(), N});
    else if (F[0] == "M" && F.size() >= 2)
      StepFunctions[Rest(1)] = true;
    else if (F[0] == "F" && F.size() == 3)
      CalledOnEachRunBy[F[2].str()].push_back(F[1].str());
    else if (F[0] == "O" && F.size() >= 2) {
      std::vector<std::string> Fns(F.begin() + 1, F.end());
      for (const std::string &Fn : Fns)
        LoopsCalling[Fn].push_back(LoopCalls.size());
      LoopCalls.push_back(std::move(Fns));
    } else if (F[0] == "Q" && F.size() >= 4 && !F[2].getAsInteger(10, N))
      PerStepNeeds[{Unit, F[1].str(), N}].push_back(Rest(3));
    else if (F[0] == "T" && F.size() >= 4 && !F[2].getAsInteger(10, N))
      StepLoopNeeds[{Unit, F[1].str(), N}].push_back(Rest(3));
    else if (F[0] == "G" && F.size() >= 3)
      Inflow[guardOf(F[1])].push_back(Rest(2));
    else if (F[0] == "P" && F.size() >= 4 && !F[2].getAsInteger(10, N))
      Inflow[proofOf(N, F[1])].push_back(Rest(3));
    else if (F[0] == "C" && F.size() >= 5 && !F[3].getAsInteger(10, N))
      CallerDeferred[{Unit, F[1].str(), F[2].str(), N}].push_back(Rest(4));
    else if (F[0] == "E" && F.size() >= 3)
      Inflow[errorsOf(F[1])].push_back(Rest(2));
    else if (F[0] == "K" && F.size() == 4 && !F[3].getAsInteger(10, N)) {
      Inflow[guardOf(F[2])].push_back(guardOf(F[1]));
      for (unsigned I = 0; I < N; ++I)
        Inflow[proofOf(I, F[2])].push_back(proofOf(I, F[1]));
    } else if (F[0] == "L" && F.size() == 7 && !F[5].getAsInteger(10, N)) {
      Launcher L{
          F[2] == "guarded", {}, {F[1].str(), F[4].str(), F[6].str(), N}};
      llvm::SmallVector<llvm::StringRef, 4> Params;
      F[3].split(Params, ',', -1, false);
      for (llvm::StringRef P : Params)
        if (unsigned I = 0; !P.getAsInteger(10, I))
          L.Params.push_back(I);
      Launchers[F[1].str()].push_back(std::move(L));
    } else if (F[0] == "N" && F.size() == 6 && !F[3].getAsInteger(10, N)) {
      std::optional<unsigned> Param;
      if (unsigned I = 0; !F[5].getAsInteger(10, I))
        Param = I;
      LauncherNeeds[{Unit, F[1].str(), F[2].str(), N}].push_back(
          {F[4].str(), Param});
    }
  }
}

bool ProgramFacts::reachedOnlyBy(
    llvm::StringRef Value, llvm::function_ref<bool(llvm::StringRef)> IsGood,
    llvm::function_ref<bool(llvm::StringRef)> AddsNothing,
    bool NeedsOne) const {
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
  return SawGood || !NeedsOne;
}

bool ProgramFacts::onCPU(llvm::StringRef Value, bool NeedsOne) const {
  // A parameter no unit passes anything to adds nothing; "other", or a
  // function no unit defines, is not known to be on the CPU.
  return reachedOnlyBy(
      Value, [](llvm::StringRef V) { return V == "cpu"; },
      [](llvm::StringRef V) { return V.starts_with("param\t"); }, NeedsOne);
}

bool ProgramFacts::onCPUEverywhere(unsigned Unit, llvm::StringRef File,
                                   unsigned Offset) const {
  bool Any = false;
  for (const auto *Lines : {&Deferred, &SizeLoopDeferred}) {
    auto It = Lines->find({Unit, File.str(), Offset});
    if (It == Lines->end())
      continue;
    Any = true;
    if (!llvm::all_of(It->second,
                      [&](const std::string &V) { return onCPU(V); }))
      return false;
  }
  return Any;
}

bool ProgramFacts::noDeviceReaches(unsigned Unit, llvm::StringRef File,
                                   unsigned Offset) const {
  auto It = SizeLoopDeferred.find({Unit, File.str(), Offset});
  return It != SizeLoopDeferred.end() &&
         !Deferred.count({Unit, File.str(), Offset}) &&
         llvm::all_of(It->second, [&](const std::string &V) {
           return onCPU(V, /*NeedsOne=*/false);
         });
}

bool ProgramFacts::provenByCallers(llvm::StringRef Value) const {
  // "unguarded", "unproven", or a function no unit calls prove nothing.
  return reachedOnlyBy(
      Value,
      [](llvm::StringRef V) {
        return V == "guarded" || V == "cuda" || V == "read";
      },
      [](llvm::StringRef) { return false; });
}

bool ProgramFacts::provenByCallersEverywhere(unsigned Unit,
                                             llvm::StringRef Check,
                                             llvm::StringRef File,
                                             unsigned Offset) const {
  auto It = CallerDeferred.find({Unit, Check.str(), File.str(), Offset});
  return It != CallerDeferred.end() &&
         llvm::all_of(It->second,
                      [&](const std::string &V) { return provenByCallers(V); });
}

} // namespace clang::tidy::torch::device
