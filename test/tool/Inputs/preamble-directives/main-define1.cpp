// NDEBUG defined in the unit itself, which LibTorch reads: repeated in the
// shared header, the unit's own copy would be a macro never used after it
// (-Wunused-macros), so the unit parses its own.
#define NDEBUG
#include <c10/core/Device.h>

c10::Device main_define1(c10::Device device) { return device; }
