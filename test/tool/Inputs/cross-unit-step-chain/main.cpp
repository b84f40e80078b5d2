#include "matcher.h"

int main() {
  Matcher matcher;
  matcher.extractor.net->to(matcher.device);
  int64_t total = 0;
  // A benchmark loop: match() runs the model two files away.
  for (int i = 0; i < 100; ++i)
    total += matcher.match(torch::rand({8, 4}));
  return static_cast<int>(total);
}
