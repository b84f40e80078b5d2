#pragma once
#include <torch/torch.h>
#include <vector>

float train(torch::nn::Linear model, std::vector<torch::Tensor> data,
            torch::Device device);
