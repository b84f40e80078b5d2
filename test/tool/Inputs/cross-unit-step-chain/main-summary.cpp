#include "matcher.h"

// A loop whose calls reach no model: summary() copies, but no step runs.
int summarize() {
  Matcher matcher;
  int64_t total = 0;
  for (int i = 0; i < 100; ++i)
    total += matcher.summary(torch::rand({8, 4}));
  return static_cast<int>(total);
}
