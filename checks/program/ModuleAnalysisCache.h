//===- ModuleAnalysisCache.h - module analyses, computed once ---*- C++ -*-===//
//
// Answers the module and optimizer questions of one translation unit once,
// for every check that asks: the registered members of a module class
// (TorchModules.h) and the stale optimizer replacements of a function
// (OptimizerFlow.h). torch-stale-optimizer reports those replacements and
// torch-unregistered-member leaves the same statements to it: the cache
// knows whether a check that reports them runs on this file, so neither
// check names the other. One cache serves the checks of one
// ClangTidyContext (one file at a time); each user clears it when a new
// translation unit starts.
//
//===----------------------------------------------------------------------===//
#ifndef TORCH_TIDY_PROGRAM_MODULEANALYSISCACHE_H
#define TORCH_TIDY_PROGRAM_MODULEANALYSISCACHE_H

#include "libtorch/TorchModules.h"
#include "program/OptimizerFlow.h"
#include "clang/AST/Decl.h"
#include "clang/AST/DeclCXX.h"
#include "clang/Basic/SourceManager.h"
#include <memory>
#include <unordered_map>
#include <vector>

namespace clang::tidy {
class ClangTidyContext;
} // namespace clang::tidy

namespace clang::tidy::torch::program {

class ModuleAnalysisCache {
public:
  /// The cache shared by the checks created for \p Context.
  static std::shared_ptr<ModuleAnalysisCache>
  forContext(const ClangTidyContext *Context);

  /// Forgets the previous translation unit (onStartOfTranslationUnit).
  void clear();

  /// The registrations of module class \p RD (analyzeRegistrations).
  const libtorch::ModuleRegistrations &registrations(const CXXRecordDecl *RD,
                                                     const SourceManager &SM);

  /// The stale replacements in the body of \p Fn (findStaleReplacements).
  const std::vector<StaleReplacement> &
  staleReplacements(const FunctionDecl *Fn, const SourceManager &SM);

  /// A check that reports stale replacements holds one of these while it
  /// exists (torch-stale-optimizer).
  class StaleReporter {
  public:
    explicit StaleReporter(std::shared_ptr<ModuleAnalysisCache> Cache);
    ~StaleReporter();
    StaleReporter(const StaleReporter &) = delete;
    StaleReporter &operator=(const StaleReporter &) = delete;
    ModuleAnalysisCache &operator*() const { return *Cache; }
    ModuleAnalysisCache *operator->() const { return Cache.get(); }

  private:
    std::shared_ptr<ModuleAnalysisCache> Cache;
  };

  /// True if \p E in \p Fn is a stale replacement that a check running on
  /// this file reports.
  bool isReportedStaleReplacement(const FunctionDecl *Fn, const Expr *E,
                                  const SourceManager &SM);

private:
  std::unordered_map<const CXXRecordDecl *, libtorch::ModuleRegistrations>
      Registrations;
  std::unordered_map<const FunctionDecl *, std::vector<StaleReplacement>> Stale;
  unsigned StaleReporters = 0;
};

} // namespace clang::tidy::torch::program

#endif // TORCH_TIDY_PROGRAM_MODULEANALYSISCACHE_H
