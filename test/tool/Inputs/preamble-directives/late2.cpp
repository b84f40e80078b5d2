#include "late-test.h"

c10::Device late2(c10::Device device) { return device; }
