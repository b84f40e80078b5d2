// A "LibTorch" header reached with -I, whose code another clang-tidy check
// (readability-else-after-return) reports when it traverses it.
#pragma once
inline int libraryPick(bool B) {
  if (B) {
    return 1;
  } else {
    return 2;
  }
}
