#include "SomeCheck.h"
#include "program/Loops.h"
#include "TorchChecks.inc"
