#include "clang/AST/Expr.h"
