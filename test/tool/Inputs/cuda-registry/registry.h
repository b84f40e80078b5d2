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

template <typename T, typename... Rest>
at::Device firstTensorDevice(const T &t, const Rest &...) {
  return t.device();
}

template <typename R, typename... Args>
auto Dispatch(const R &registry, const char *name, Args &&...args) {
  at::Device device = firstTensorDevice(args...);
  bool same = ((args.device() == device) && ...);
  TORCH_CHECK(same, name, ": the tensors are on different devices");
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
