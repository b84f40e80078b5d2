// The binding, compiled by GCC: a non-constant narrowed in a braced
// initializer is a warning there and an error under clang, so its unit gets
// -Wno-c++11-narrowing and is analysed.
#include <cstdint>
#include <cuda_runtime.h>
#include <vector>

void copy_back(float *host, const float *device, uint64_t n) {
  std::vector<int64_t> shape{n};
  cudaMemcpy(host, device, shape[0] * sizeof(float), cudaMemcpyDeviceToHost);
}
