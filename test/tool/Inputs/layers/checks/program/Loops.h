#include "device/Flow.h"
#include "utils/Old.h"
