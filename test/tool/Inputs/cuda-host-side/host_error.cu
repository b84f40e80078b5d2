// An error in host code: the unit fails to analyse.
#include <cstdint>

__global__ void zero_kernel(float *x) { x[0] = 0; }

void zero_launcher(float *x) {
  undeclared_setup(x);
  zero_kernel<<<1, 1>>>(x);
}
