#include "libtorch/Names.h"
#include "TorchCheck.h"
