// A project device registry (mmcv-style): functions registered per device
// type, called through DISPATCH_DEVICE_IMPL, whose Dispatch checks that
// every tensor is on the first one's device.
#pragma once
#include <ATen/ATen.h>

template <typename F, F f> class DeviceRegistry;

template <typename Ret, typename... Args, Ret (*f)(Args...)>
class DeviceRegistry<Ret (*)(Args...), f> {
public:
  using FunctionType = Ret (*)(Args...);
  void Register(at::DeviceType device, FunctionType function) {
    funcs_[static_cast<int>(device)] = function;
  }
  FunctionType Find(at::DeviceType device) const {
    return funcs_[static_cast<int>(device)];
  }
  static DeviceRegistry &instance() {
    static DeviceRegistry inst;
    return inst;
  }

private:
  FunctionType funcs_[static_cast<int>(
      at::DeviceType::COMPILE_TIME_MAX_DEVICE_TYPES)] = {};
};

#define DEVICE_REGISTRY(key) DeviceRegistry<decltype(&(key)), key>::instance()

#define REGISTER_DEVICE_IMPL(key, device, value)                               \
  struct key##_##device##_registerer {                                         \
    key##_##device##_registerer() {                                            \
      DEVICE_REGISTRY(key).Register(at::k##device, value);                     \
    }                                                                          \
  };                                                                           \
  static key##_##device##_registerer _##key##_##device##_registerer;

// The first tensor's device, and the first argument on another device:
// one argument peeled per call, scalars skipped (as mmcv does).
inline at::Device firstTensorDevice() { return at::kCPU; }
template <typename T, typename... Rest>
at::Device firstTensorDevice(const T &t, const Rest &...rest) {
  if constexpr (std::is_same_v<std::decay_t<T>, at::Tensor>)
    return t.device();
  else
    return firstTensorDevice(rest...);
}
inline int otherDevice(const at::Device &, int) { return -1; }
template <typename T, typename... Rest>
int otherDevice(const at::Device &device, int index, const T &t,
                const Rest &...rest) {
  if constexpr (std::is_same_v<std::decay_t<T>, at::Tensor>)
    if (t.device().type() != device.type() ||
        t.device().index() != device.index())
      return index;
  return otherDevice(device, index + 1, rest...);
}

template <typename R, typename... Args>
auto Dispatch(const R &registry, const char *name, Args &&...args) {
  at::Device device = firstTensorDevice(args...);
  int other = otherDevice(device, 0, args...);
  TORCH_CHECK(other < 0, name, ": argument ", other, " is on another device");
  auto f = registry.Find(device.type());
  TORCH_CHECK(f != nullptr, name, ": no implementation for ", device);
  return f(std::forward<Args>(args)...);
}

template <typename R, typename... Args>
auto LooseDispatch(const R &registry, const char *name, Args &&...args) {
  auto f = registry.Find(firstTensorDevice(args...).type());
  TORCH_CHECK(f != nullptr, name, ": no implementation");
  return f(std::forward<Args>(args)...);
}

#define DISPATCH_DEVICE_IMPL(key, ...)                                         \
  Dispatch(DEVICE_REGISTRY(key), #key, __VA_ARGS__)
#define LOOSE_DISPATCH_DEVICE_IMPL(key, ...)                                   \
  LooseDispatch(DEVICE_REGISTRY(key), #key, __VA_ARGS__)
