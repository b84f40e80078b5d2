// The program's own header, in the precompiled header too: its use of the
// vtable of Base<long> is the program's.
#pragma once
#include <library.h>
struct OwnDerived : Base<long> {};
inline OwnDerived makeOwnDerived() { return OwnDerived(); }
