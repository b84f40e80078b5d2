#include "model.h"
#include "evaluator.h"
#include "rows.h"

int main() {
  torch::Device device(torch::cuda::is_available() ? torch::kCUDA
                                                   : torch::kCPU);
  Net net;
  net->to(device);
  Evaluator eval{net.ptr(), device};
  double score = 0;
  for (int epoch = 0; epoch < 10; ++epoch)
    score += eval.validate(100);
  for (int step = 0; step < 100; ++step)
    print_rows(net->forward(torch::rand({8, 4}, device)));
  return score > 0;
}
