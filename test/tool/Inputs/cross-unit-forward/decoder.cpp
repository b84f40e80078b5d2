#include "decoder.h"

DecoderImpl::DecoderImpl() { fc = register_module("fc", torch::nn::Linear(8, 8)); }

torch::Tensor DecoderImpl::forward(torch::Tensor features,
                                   torch::Tensor lengths) {
  torch::Tensor out = fc(features);
  for (int64_t t = 0; t < 10; ++t) {
    auto live = (lengths > t).sum().item<int64_t>();
    out = out + static_cast<double>(live);
  }
  return out;
}
