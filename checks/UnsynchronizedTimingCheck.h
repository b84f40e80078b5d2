//===- UnsynchronizedTimingCheck.h - torch-unsynchronized-timing -*- C++
//-*-===//
#ifndef TORCH_TIDY_UNSYNCHRONIZEDTIMINGCHECK_H
#define TORCH_TIDY_UNSYNCHRONIZEDTIMINGCHECK_H

#include "TorchCheck.h"

namespace clang::tidy::torch {

namespace device {
class DeviceFlow;
} // namespace device
namespace program {
struct HostEvent;
} // namespace program

/// Flags a host clock read (std::chrono::*::now(), clock(), gettimeofday,
/// clock_gettime, omp_get_wtime, MPI_Wtime) that ends a timed interval
/// (its value is subtracted from an earlier read's) when device work was
/// queued in the interval and nothing waited for the device after it: the
/// interval measures the kernel launches, not the work.
///
/// Documentation: docs/checks/torch-unsynchronized-timing.md
class UnsynchronizedTimingCheck : public DeviceFlowCheck {
public:
  using DeviceFlowCheck::DeviceFlowCheck;
  void registerMatchers(ast_matchers::MatchFinder *Finder) override;
  void check(const ast_matchers::MatchFinder::MatchResult &Result) override;

private:
  void report(const program::HostEvent &End, const program::HostEvent &Start,
              const CallExpr *Work, const device::DeviceFlow &Flow,
              ASTContext &Ctx);
};

} // namespace clang::tidy::torch

#endif // TORCH_TIDY_UNSYNCHRONIZEDTIMINGCHECK_H
