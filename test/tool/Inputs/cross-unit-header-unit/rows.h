// Self-contained: read alone, its loop is one over the image's rows.
#include <torch/torch.h>
#include <cstdio>

inline void print_rows(const torch::Tensor &img) {
  for (int64_t r = 0; r < img.size(0); ++r)
    std::printf("%f\n", img[r].sum().item<float>());
}
