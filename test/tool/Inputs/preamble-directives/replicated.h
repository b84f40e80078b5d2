// Own macros that LibTorch's headers read (NDEBUG), and diagnostic pragmas
// around the torch include: the shared header repeats them where they are.
#ifndef REPLICATED_H
#define REPLICATED_H
#define NDEBUG
#define TT_INLINE inline
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Weverything"
#include <ATen/core/Tensor.h>
#pragma clang diagnostic pop
#endif
