#pragma once
#include <torch/torch.h>
#include <vector>

double score_all(torch::nn::Linear model, const std::vector<torch::Tensor> &data);
