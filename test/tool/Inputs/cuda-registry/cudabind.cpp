// The CUDA implementations, registered for CUDA: they call the launchers
// of kernels.cu, which take the tensors.
#include "device_registry.h"

at::Tensor NMSKernelLauncher(at::Tensor boxes, at::Tensor scores);
at::Tensor BoxesKernelLauncher(at::Tensor boxes, at::Tensor scores);

at::Tensor nms_impl(at::Tensor boxes, at::Tensor scores);
at::Tensor nms_cuda(at::Tensor boxes, at::Tensor scores) {
  return NMSKernelLauncher(boxes, scores);
}
REGISTER_DEVICE_IMPL(nms_impl, CUDA, nms_cuda)

at::Tensor boxes_impl(at::Tensor boxes, at::Tensor scores);
at::Tensor boxes_cuda(at::Tensor boxes, at::Tensor scores) {
  return BoxesKernelLauncher(boxes, scores);
}
REGISTER_DEVICE_IMPL(boxes_impl, CUDA, boxes_cuda)
