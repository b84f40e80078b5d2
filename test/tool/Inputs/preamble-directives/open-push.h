// A diagnostic push still open after the LibTorch include (the unit pops
// it after code): no cut falls inside it.
#pragma once
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wdeprecated-declarations"
#include <c10/core/Device.h>
