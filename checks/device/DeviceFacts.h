//===- DeviceFacts.h - what DeviceFlow knows about one value -------------===//
// The lattice of DeviceFlow (see DeviceFlow.h): where a tensor, a
// torch::Device, a TensorOptions or a module lives, how many dimensions a
// tensor has as far as that matters (0-dim CPU tensors mix with any device),
// and the expression that gave the value its device (its origin), so that
// diagnostics can point there.
#ifndef TORCH_TIDY_DEVICE_DEVICEFACTS_H
#define TORCH_TIDY_DEVICE_DEVICEFACTS_H

#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include <string>

namespace clang::tidy::torch::device {

/// A device, as far as the analysis knows it. Different values join to
/// Unknown, the top element; Bottom means "no value yet".
class DeviceValue {
public:
  enum KindTy : unsigned char {
    Bottom,
    /// TensorOptions without a device; a factory given them allocates on
    /// the CPU, a conversion given them keeps the device.
    Unspecified,
    CPU,
    /// CUDA; Index >= 0 when known. IfAvailable: "the GPU when there is one"
    /// (`cuda::is_available() ? kCUDA : kCPU`), judged as CUDA.
    CUDA,
    /// The device held by the torch::Device variable, parameter or member
    /// Decl: the same device wherever Decl is not reassigned.
    OnDevice,
    /// The device of the module whose forward() is being analysed.
    ModuleDevice,
    /// Not known here: whatever the callers pass as parameter Decl (a
    /// ParmVarDecl), whatever function Decl returns (a FunctionDecl), or
    /// whatever the program stores in member Decl (a FieldDecl);
    /// with OrCPU, that or the CPU (`x.to(device)` on one path, `x.cpu()`
    /// on another). CallerDevices.h answers it from the rest of the program.
    Inherited,
    Unknown,
  };

  DeviceValue() = default;
  static DeviceValue bottom() { return DeviceValue(); }
  static DeviceValue unknown() { return DeviceValue(Unknown); }
  static DeviceValue unspecified() { return DeviceValue(Unspecified); }
  static DeviceValue cpu() { return DeviceValue(CPU); }
  static DeviceValue cuda(int Index = -1, bool IfAvailable = false) {
    DeviceValue V(CUDA);
    V.Index = static_cast<signed char>(Index < 0 || Index > 127 ? -1 : Index);
    V.IfAvailable = IfAvailable;
    return V;
  }
  static DeviceValue onDevice(const ValueDecl *D) {
    DeviceValue V(OnDevice);
    V.Decl = D;
    return V;
  }
  static DeviceValue moduleDevice() { return DeviceValue(ModuleDevice); }
  static DeviceValue inherited(const Decl *ParamOrFunction,
                               bool OrCPU = false) {
    DeviceValue V(Inherited);
    V.Root = ParamOrFunction;
    V.OrCPU = OrCPU;
    return V;
  }

  KindTy kind() const { return Kind; }
  int index() const { return Index; }
  bool ifAvailable() const { return IfAvailable; }
  const ValueDecl *decl() const { return Decl; }
  /// For Inherited: the parameter, the function or the member.
  const clang::Decl *root() const { return Root; }
  /// For Inherited: the CPU on some paths.
  bool orCPU() const { return OrCPU; }

  bool isBottom() const { return Kind == Bottom; }
  bool isKnown() const {
    return Kind != Bottom && Kind != Unknown && Kind != Inherited;
  }
  /// Definitely the CPU.
  bool isCPU() const { return Kind == CPU; }
  /// Definitely not the CPU on a machine with a GPU: CUDA (also "the GPU
  /// when available"), the device of a torch::Device variable, or the
  /// module's device.
  bool isDeviceSide() const {
    return Kind == CUDA || Kind == OnDevice || Kind == ModuleDevice;
  }

  /// Least upper bound. CUDA devices with different indices join to CUDA
  /// with no index. The device held by a parameter (OnDevice) or inherited
  /// from one joins with the CPU and with itself to Inherited OrCPU. Any
  /// other difference joins to Unknown.
  static DeviceValue join(const DeviceValue &A, const DeviceValue &B);

  /// "the CPU", "CUDA", "CUDA device 1", "the GPU when one is available",
  /// "'device'", "the module's device".
  std::string name() const;
  /// "on " + name().
  std::string describe() const { return "on " + name(); }

  friend bool operator==(const DeviceValue &A, const DeviceValue &B) {
    return A.Kind == B.Kind && A.Index == B.Index &&
           A.IfAvailable == B.IfAvailable && A.Decl == B.Decl &&
           A.Root == B.Root && A.OrCPU == B.OrCPU;
  }
  friend bool operator!=(const DeviceValue &A, const DeviceValue &B) {
    return !(A == B);
  }

private:
  explicit DeviceValue(KindTy K) : Kind(K) {}
  KindTy Kind = Bottom;
  signed char Index = -1;
  bool IfAvailable = false;
  bool OrCPU = false;
  const ValueDecl *Decl = nullptr;
  const clang::Decl *Root = nullptr;
};

/// How many dimensions a tensor has, as far as the analysis knows: exactly
/// N, at least one, or unknown. Only 0-dim matters: ATen lets a 0-dim CPU
/// tensor meet a tensor on any device.
class TensorRank {
public:
  static TensorRank unknown() { return TensorRank(-1); }
  static TensorRank nonScalar() { return TensorRank(-2); }
  static TensorRank exactly(int N) {
    return N < 0 ? unknown() : TensorRank(N > 64 ? -2 : N);
  }
  TensorRank() = default;

  bool isScalar() const { return Dims == 0; }
  /// At least one dimension for certain.
  bool isNonScalar() const { return Dims > 0 || Dims == -2; }
  /// The exact number of dimensions, or -1.
  int exact() const { return Dims >= 0 ? Dims : -1; }
  /// One dimension fewer (indexing with an integer).
  TensorRank dropOne() const {
    return Dims > 0 ? TensorRank(Dims - 1) : unknown();
  }
  /// The rank of a broadcast result.
  static TensorRank broadcast(TensorRank A, TensorRank B);
  static TensorRank join(TensorRank A, TensorRank B);
  friend bool operator==(TensorRank A, TensorRank B) {
    return A.Dims == B.Dims;
  }

private:
  explicit TensorRank(int D) : Dims(static_cast<signed char>(D)) {}
  signed char Dims = -1;
};

/// The expression that gave a value its device.
struct Origin {
  enum KindTy : unsigned char {
    None,
    Factory,           ///< a factory call without a device: CPU
    FactoryWithDevice, ///< a factory call given a device
    Moved,             ///< .to(...), .cuda(), .cpu(), type_as
    LoaderBatch,       ///< an example of a data loader
    ForwardArgument,   ///< a tensor argument of forward()
    ModuleTensor,      ///< a parameter or buffer of a module
    ModuleOutput,      ///< the output of a module's forward()
    ModuleCreated,     ///< a module constructed here: on the CPU
    ModuleMoved,       ///< module->to(...)
    DeviceValueDecl,   ///< a torch::Device variable's declaration
  };
  KindTy Kind = None;
  const Stmt *Where = nullptr; ///< the expression, when there is one
  SourceLocation Loc;          ///< where notes point

  Origin() = default;
  Origin(KindTy K, const Stmt *S);
  Origin(KindTy K, SourceLocation L) : Kind(K), Loc(L) {}

  explicit operator bool() const { return Kind != None && Loc.isValid(); }
  /// A short phrase for a diagnostic's parenthesis: "created without a
  /// device", "moved here", "a data-loader batch", ...
  StringRef phrase() const;
};

/// What the analysis knows about one value at one program point.
struct DeviceFact {
  DeviceValue Device;
  TensorRank Rank;
  Origin From;

  static DeviceFact unknown() { return {DeviceValue::unknown(), {}, {}}; }
  /// Joins \p B into \p A; true when A's device or rank changed (the origin
  /// of A is kept when the devices agree, so iteration converges).
  static bool joinInto(DeviceFact &A, const DeviceFact &B);
};

} // namespace clang::tidy::torch::device

#endif // TORCH_TIDY_DEVICE_DEVICEFACTS_H
