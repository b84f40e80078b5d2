// Template implementation, included by a header.
template <typename Net>
void trainLoop(Net &net, torch::optim::SGD &opt, torch::Tensor x) {
  for (int i = 0; i < 10; ++i) {
    auto loss = net->forward(x).sum();
    float v = loss.template item<float>();
    loss.backward();
    opt.step();
    (void)v;
  }
}
