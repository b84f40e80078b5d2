//===--- OldGlibc.cpp - What the bundle takes from a newer glibc ----------===//
//
// The release bundle is linked against an older glibc than the one LLVM's
// and libstdc++'s archives were compiled against. Those archives reach for
// three things that glibc added later; they are defined here, in terms of
// what the older glibc has. On a newer glibc these definitions take the
// place of glibc's own, with the same meaning.
//
//===----------------------------------------------------------------------===//
#include <cstddef>
#include <cstdint>
#include <malloc.h>
#include <sys/random.h>

extern "C" {

// glibc 2.32: libstdc++'s "may skip atomic reference counts" flag. Zero
// means "other threads may exist", which is always correct.
char __libc_single_threaded = 0; // NOLINT(bugprone-reserved-identifier)

// glibc 2.36: std::random_device's default source.
uint32_t arc4random(void) {
  uint32_t Value = 0;
  while (getrandom(&Value, sizeof Value, 0) != sizeof Value) {
  }
  return Value;
}

// glibc 2.33: the malloc statistics LLVM reads for -enable-timing output.
struct mallinfo2 mallinfo2(void) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  struct mallinfo Old = mallinfo();
#pragma GCC diagnostic pop
  struct mallinfo2 New = {};
  New.arena = static_cast<size_t>(static_cast<unsigned>(Old.arena));
  New.hblkhd = static_cast<size_t>(static_cast<unsigned>(Old.hblkhd));
  New.uordblks = static_cast<size_t>(static_cast<unsigned>(Old.uordblks));
  New.fordblks = static_cast<size_t>(static_cast<unsigned>(Old.fordblks));
  return New;
}

} // extern "C"
