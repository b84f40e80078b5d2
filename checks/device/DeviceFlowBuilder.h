//===- DeviceFlowBuilder.h - the computation behind DeviceFlow ------------===//
// Private to DeviceFlow.cpp (the worklist, the effects of statements, the
// cache) and DeviceEval.cpp (the device of each expression).
#ifndef TORCH_TIDY_DEVICE_DEVICEFLOWBUILDER_H
#define TORCH_TIDY_DEVICE_DEVICEFLOWBUILDER_H

#include "device/DeviceFlow.h"
#include "libtorch/DeviceRules.h"
#include "libtorch/TorchModules.h"
#include "clang/Analysis/CFG.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"

namespace clang::tidy::torch::device {

/// carrierOf(), cached for the translation unit.
libtorch::Carrier cachedCarrier(QualType T);

/// analyzeRegistrations(), cached for the translation unit.
const libtorch::ModuleRegistrations &
cachedRegistrations(const CXXRecordDecl *RD, const SourceManager &SM);

/// The facts known about each declaration at one program point.
using State = llvm::SmallDenseMap<const ValueDecl *, DeviceFact, 16>;

/// A range-for loop whose variable DeviceFlow knows.
struct LoopSource {
  /// Elements: over a vector of data-loader examples, each on its device.
  enum : unsigned char { Loader, Parameters, Elements } Kind;
  const Expr *Range;  ///< the range expression
  const Expr *Module; ///< Parameters: the module
  /// Loader: its batches are on the CPU (the dataset deals with no device).
  bool CPUBatches = false;
};

/// What a top-down scan of the body finds before the CFG is walked.
struct ScanFacts {
  llvm::DenseMap<const VarDecl *, LoopSource> Loops;
  /// Locals a lambda captures by reference and writes: always Unknown.
  llvm::DenseSet<const ValueDecl *> Volatile;
  /// Parameters, globals and fields the body reads: present in the entry
  /// state, so that joins see their initial facts.
  llvm::SetVector<const ValueDecl *> NonLocals;
  /// The call operators of the lambdas in the body (not nested in another).
  std::vector<const FunctionDecl *> Lambdas;
  /// How many locals of each class that holds modules without being one
  /// (`struct Gan { Gen gen; Dis dis; }`) the body declares.
  llvm::DenseMap<const CXXRecordDecl *, unsigned> HolderLocals;
};

/// Computes one DeviceFlow: the engine and effects in DeviceFlow.cpp, the
/// values of expressions in DeviceEval.cpp.
class DeviceFlowBuilder {
public:
  /// \p Instantiations: analyse a template instantiation too (for what a
  /// caller passes, DeviceFlow::getForCallers).
  /// \p CPUParameters: the tensor parameters (bit I: parameter I) this
  /// analysis takes to be on the CPU (DeviceFlow::getWithCPUParameters).
  DeviceFlowBuilder(const FunctionDecl *FD, ASTContext &Ctx, DeviceFlow &Out,
                    bool Instantiations = false, uint32_t CPUParameters = 0)
      : Fn(FD), Ctx(Ctx), Out(Out), Forward(DeviceFlow::isModuleForward(FD)),
        Instantiations(Instantiations), CPUParameters(CPUParameters) {}

  void run();

private:
  struct MemoEntry {
    DeviceFact Fact;
    unsigned Visit;
  };

  // --- engine ---
  void transferBlock(const CFGBlock &B);
  void transferElement(const Stmt *S);
  void joinStates(State &Into, const State &From);

  // --- values ---
  DeviceFact get(const Expr *E);
  DeviceFact compute(const Expr *E);
  DeviceFact computeNode(const Expr *E, libtorch::Carrier C);
  DeviceFact varFact(const ValueDecl *D);
  /// For \p V, a local or parameter of the function around the lambda
  /// analysed here: its fact where the lambda captures it, in that
  /// function's analysis, when that function never changes it (nor moves
  /// it, a module, after the lambda); else unknown, as any capture (and for
  /// any other variable).
  DeviceFact capturedFact(const VarDecl *V);
  DeviceFact initialFact(const ValueDecl *D);
  /// In an analysis with CPU parameters: true when \p FD, a function of the
  /// program that \p Call gives CPU tensors, returns CPU tensors on every
  /// path for those arguments (`normalize(pred_cpu)`).
  bool returnsCPUFor(const CallExpr *Call, const FunctionDecl *FD);
  DeviceFact constructFact(const CXXConstructExpr *CE, libtorch::Carrier C);
  /// An element of a tensor sequence: Inherited from its parameter or the
  /// function that returned it (CallerDevices), or Unknown.
  DeviceFact inheritedElement(const Expr *Sequence);
  DeviceFact operatorFact(const CXXOperatorCallExpr *Op, libtorch::Carrier C);
  DeviceFact memberCallFact(const CXXMemberCallExpr *Call, libtorch::Carrier C);
  /// A module made by \p Creation (a constructor, make_shared) from \p Args.
  DeviceFact createdModuleFact(const Expr *Creation,
                               llvm::ArrayRef<const Expr *> Args);
  DeviceFact callFact(const CallExpr *Call, libtorch::Carrier C);
  DeviceFact tupleElementFact(const Expr *Tuple);
  DeviceFact factoryFact(const CallExpr *Call, libtorch::FactoryKind K);
  DeviceFact moduleCallFact(const Expr *Call, const Expr *Module,
                            llvm::ArrayRef<const Expr *> Args);
  /// \p Output of \p Module (a tensor, a pair's element) on the module's
  /// device, when that is known or inherited; else Unknown.
  DeviceFact onModuleDevice(const Expr *Output, const Expr *Module);
  DeviceFact conversionFact(const CXXMemberCallExpr *Call);
  DeviceValue deviceArgument(const Expr *E);
  DeviceFact common(llvm::ArrayRef<const Expr *> Operands, bool Broadcast);
  TensorRank rankOf(const Expr *E) { return get(E).Rank; }

  // --- effects ---
  void assign(const ValueDecl *D, DeviceFact F, bool Declaration);
  void escape(const CallExpr *Call);
  void moduleTo(const CXXMemberCallExpr *Call);
  const ValueDecl *assignedDecl(const Expr *LHS) const;
  /// For `net.gen` (through `->` or `*` too), where `net` is the only local
  /// of its class in the function and that class holds modules without
  /// being one: the field `gen`, whose device the analysis keeps as it keeps
  /// a local module's.
  const FieldDecl *aggregateModuleField(const Expr *E) const;

  libtorch::Carrier carrier(const Expr *E) const {
    return E ? cachedCarrier(E->getType()) : libtorch::Carrier::None;
  }
  bool isLocal(const ValueDecl *D) const {
    const auto *V = dyn_cast<VarDecl>(D);
    return V && V->isLocalVarDecl() && !isa<ParmVarDecl>(V);
  }

  const FunctionDecl *Fn;
  ASTContext &Ctx;
  DeviceFlow &Out;
  const bool Forward;
  const bool Instantiations;
  const uint32_t CPUParameters;
  ScanFacts Scan;
  std::unique_ptr<CFG> Graph;
  llvm::DenseSet<const Stmt *> Elements;
  State Cur;
  llvm::DenseMap<const Expr *, MemoEntry> Memo;
  llvm::DenseMap<const VarDecl *, DeviceFact> Captured;
  unsigned Visit = 0;
  unsigned Depth = 0;
};

} // namespace clang::tidy::torch::device

#endif // TORCH_TIDY_DEVICE_DEVICEFLOWBUILDER_H
