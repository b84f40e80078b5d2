#include <library.h>
