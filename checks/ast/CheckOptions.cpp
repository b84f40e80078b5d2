//===- CheckOptions.cpp - strict option parsing ---------------------------===//
#include "ast/CheckOptions.h"
#include "clang-tidy/utils/OptionsUtils.h"
#include "llvm/ADT/StringExtras.h"
#include <cstdlib>

namespace clang::tidy::torch::ast {

static StringRef checkName(const ClangTidyCheck &Check) {
  return static_cast<const ast_matchers::MatchFinder::MatchCallback &>(Check)
      .getID();
}

bool getBoolOption(const ClangTidyCheck &Check,
                   const ClangTidyCheck::OptionsView &Options, StringRef Name,
                   bool Default) {
  std::optional<StringRef> Value = Options.get(Name);
  if (!Value)
    return Default;
  StringRef V = Value->trim();
  if (V.equals_insensitive("true") || V == "1")
    return true;
  if (V.equals_insensitive("false") || V == "0")
    return false;
  Check.configurationDiag("invalid value '%0' for option '%1.%2'; expected "
                          "'true' or 'false'",
                          DiagnosticIDs::Error)
      << *Value << checkName(Check) << Name;
  return Default;
}

std::vector<std::string>
getListOption(const ClangTidyCheck &Check,
              const ClangTidyCheck::OptionsView &Options, StringRef Name,
              StringRef Default) {
  std::vector<std::string> Items;
  for (StringRef P : tidy::utils::options::parseStringList(
           Options.get(Name).value_or(Default))) {
    bool Valid = llvm::all_of(P, [](char C) {
      return llvm::isAlnum(C) || llvm::is_contained(StringRef("_:<>[]"), C);
    });
    if (!Valid) {
      Check.configurationDiag("invalid entry '%0' in option '%1.%2'; expected "
                              "a ';'-separated list of names",
                              DiagnosticIDs::Error)
          << P << checkName(Check) << Name;
      continue;
    }
    Items.push_back(P.str());
  }
  return Items;
}

std::string joinList(const std::vector<std::string> &Items) {
  return tidy::utils::options::serializeStringList(
      std::vector<StringRef>(Items.begin(), Items.end()));
}

bool verboseByDefault() {
  const char *V = std::getenv("TORCH_TIDY_VERBOSE");
  return V && *V && StringRef(V) != "0";
}

} // namespace clang::tidy::torch::ast
