// A diagnostic change that no pop of its own undoes: not shared.
#pragma once
#pragma clang diagnostic ignored "-Wdeprecated-declarations"
#include <c10/core/Device.h>
