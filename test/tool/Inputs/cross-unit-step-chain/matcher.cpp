#include "matcher.h"

int64_t count_points(const torch::Tensor &points) {
  torch::Tensor host = points.cpu();
  return host.size(0);
}

int64_t Matcher::extract(const torch::Tensor &image) {
  torch::Tensor features = extractor.predict(image.to(device));
  return count_points(features);
}

int64_t Matcher::match(const torch::Tensor &image) { return extract(image); }

int64_t Matcher::summary(const torch::Tensor &image) {
  return count_points(image.to(device));
}
