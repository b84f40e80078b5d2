// The operators: each dispatches through the registry. nms_impl takes the
// guard before its dispatch; boxes_impl does not.
#include "device_registry.h"
#include <c10/cuda/CUDAGuard.h>

at::Tensor nms_impl(at::Tensor boxes, at::Tensor scores) {
  const at::cuda::OptionalCUDAGuard guard(boxes.device());
  return DISPATCH_DEVICE_IMPL(nms_impl, boxes, scores);
}

at::Tensor boxes_impl(at::Tensor boxes, at::Tensor scores) {
  return DISPATCH_DEVICE_IMPL(boxes_impl, boxes, scores);
}
