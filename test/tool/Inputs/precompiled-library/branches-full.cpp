#include <torch/branches.h>
#include "branches.h"
int main() { return libraryPick(true) + ownPick(false); }
