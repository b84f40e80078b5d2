#include <library.h>
#include "own.h"
