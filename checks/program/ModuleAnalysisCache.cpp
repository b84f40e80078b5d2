//===- ModuleAnalysisCache.cpp - module analyses shared by checks ---------===//
#include "program/ModuleAnalysisCache.h"
#include "llvm/ADT/STLExtras.h"
#include <map>
#include <mutex>

namespace clang::tidy::torch::program {

std::shared_ptr<ModuleAnalysisCache>
ModuleAnalysisCache::forContext(const ClangTidyContext *Context) {
  // torch-clangd builds files on several threads, each with its own context.
  static std::mutex Lock;
  static std::map<const ClangTidyContext *, std::weak_ptr<ModuleAnalysisCache>>
      Caches;
  std::lock_guard<std::mutex> Guard(Lock);
  std::shared_ptr<ModuleAnalysisCache> Cache = Caches[Context].lock();
  if (!Cache) {
    for (auto It = Caches.begin(); It != Caches.end();)
      It = It->second.expired() ? Caches.erase(It) : std::next(It);
    Cache = std::make_shared<ModuleAnalysisCache>();
    Caches[Context] = Cache;
  }
  return Cache;
}

void ModuleAnalysisCache::clear() {
  Registrations.clear();
  Stale.clear();
}

const libtorch::ModuleRegistrations &
ModuleAnalysisCache::registrations(const CXXRecordDecl *RD,
                                   const SourceManager &SM) {
  auto It = Registrations.find(RD);
  if (It == Registrations.end())
    It =
        Registrations.emplace(RD, libtorch::analyzeRegistrations(RD, SM)).first;
  return It->second;
}

const std::vector<StaleReplacement> &
ModuleAnalysisCache::staleReplacements(const FunctionDecl *Fn,
                                       const SourceManager &SM) {
  auto It = Stale.find(Fn);
  if (It == Stale.end()) {
    auto RegistrationsOf =
        [&](const CXXRecordDecl *RD) -> const libtorch::ModuleRegistrations & {
      return registrations(RD, SM);
    };
    It =
        Stale.emplace(Fn, findStaleReplacements(Fn->getBody(), RegistrationsOf))
            .first;
  }
  return It->second;
}

bool ModuleAnalysisCache::isReportedStaleReplacement(const FunctionDecl *Fn,
                                                     const Expr *E,
                                                     const SourceManager &SM) {
  return StaleReporters > 0 && llvm::any_of(staleReplacements(Fn, SM),
                                            [E](const StaleReplacement &R) {
                                              return R.Replacing == E;
                                            });
}

ModuleAnalysisCache::StaleReporter::StaleReporter(
    std::shared_ptr<ModuleAnalysisCache> Cache)
    : Cache(std::move(Cache)) {
  ++this->Cache->StaleReporters;
}

ModuleAnalysisCache::StaleReporter::~StaleReporter() {
  --Cache->StaleReporters;
}

} // namespace clang::tidy::torch::program
