#pragma once
#include "model.h"

struct Matcher {
  Extractor extractor;
  torch::Device device{torch::kCUDA};
  int64_t extract(const torch::Tensor &image);
  int64_t match(const torch::Tensor &image);
  int64_t summary(const torch::Tensor &image);
};

int64_t count_points(const torch::Tensor &points);
