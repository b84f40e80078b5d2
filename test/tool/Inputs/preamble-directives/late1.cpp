#include "late-test.h"

c10::Device late1(c10::Device device) { return device; }
