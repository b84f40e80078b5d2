// Precompiled once per build (see CMakeLists.txt) and used by every test.
#include <torch/torch.h>
#include <torch/script.h>
#include <deque>
#include <iostream>
#include <list>
#include <map>
#include <memory>
#include <unordered_map>
#include <vector>
