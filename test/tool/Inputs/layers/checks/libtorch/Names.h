#include "ast/Shape.h"
#include "program/Loops.h"
