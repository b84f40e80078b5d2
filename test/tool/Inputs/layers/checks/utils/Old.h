#include "ast/Shape.h"
