// A decoder whose forward() takes the caption lengths, which the training
// program keeps on the CPU for packing.
#include <torch/torch.h>

struct DecoderImpl : torch::nn::Module {
  DecoderImpl();
  torch::Tensor forward(torch::Tensor features, torch::Tensor lengths);
  torch::nn::Linear fc{nullptr};
};
TORCH_MODULE(Decoder);
