// An own test of NDEBUG before its own #define: the shared header would
// define it before the test, so this start is not shared.
#ifndef LATE_TEST_H
#define LATE_TEST_H
#ifndef NDEBUG
#define NDEBUG
#endif
#include <c10/core/Device.h>
#endif
