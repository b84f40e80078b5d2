#pragma once
#include <torch/torch.h>

// A data loader's sample: the loader (another file) fills it.
struct Sample {
  torch::Tensor image;
  torch::Tensor intrinsics;
};

Sample load_sample(int index);
