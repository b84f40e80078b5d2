#include <torch/branches.h>
#include "branches.h"
