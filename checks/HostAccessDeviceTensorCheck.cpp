//===- HostAccessDeviceTensorCheck.cpp - torch-host-access-device-tensor -===//
#include "HostAccessDeviceTensorCheck.h"
#include "ast/ASTHelpers.h"
#include "device/DeviceDiagnostics.h"
#include "device/DeviceFlow.h"
#include "libtorch/ProgramCode.h"
#include "libtorch/TorchTypes.h"
#include "clang/AST/ASTContext.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "llvm/ADT/StringSet.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch {

using device::DeviceFact;
using device::DeviceFlow;

void HostAccessDeviceTensorCheck::registerMatchers(MatchFinder *Finder) {
  Finder->addMatcher(
      functionDecl(isDefinition(), unless(libtorch::isLibraryCode()))
          .bind("fn"),
      this);
}

static bool inNamespace(const Decl *D, StringRef NS) {
  return libtorch::outermostNamespace(D) == NS;
}

/// Host code that reads through a pointer it is given: the C string and
/// memory functions, std:: algorithms and containers, streams, OpenCV.
static std::string hostConsumer(const Expr *Parent) {
  if (const auto *CE = dyn_cast<CXXConstructExpr>(Parent)) {
    const CXXRecordDecl *RD = CE->getConstructor()->getParent();
    if (inNamespace(RD, "cv") ||
        (inNamespace(RD, "std") && RD->getIdentifier() &&
         llvm::is_contained({"vector", "basic_string", "deque", "span",
                             "basic_string_view", "valarray"},
                            RD->getName())))
      return RD->getQualifiedNameAsString();
    return "";
  }
  const auto *Call = dyn_cast<CallExpr>(Parent);
  const FunctionDecl *FD = Call ? Call->getDirectCallee() : nullptr;
  if (!FD)
    return "";
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call)) {
    // `os << p` prints an address, except for character pointers.
    if (Op->getOperator() != OO_LessLess || Op->getNumArgs() != 2)
      return "";
    QualType P = Op->getArg(1)->IgnoreImpCasts()->getType();
    return P->isPointerType() && P->getPointeeType()->isAnyCharacterType()
               ? "operator<<"
               : "";
  }
  if (!FD->getIdentifier())
    return "";
  StringRef Name = FD->getName();
  if (inNamespace(FD, "cv"))
    return FD->getQualifiedNameAsString();
  static const llvm::StringSet<> CFunctions = {
      "memcpy", "memmove", "memcmp",  "memset", "memchr", "fwrite",
      "strlen", "strcpy",  "strncpy", "strcmp", "puts",   "fputs"};
  bool InStd = inNamespace(FD, "std");
  if (CFunctions.contains(Name) &&
      (InStd || FD->getDeclContext()->getRedeclContext()->isTranslationUnit()))
    return Name.str();
  if (!InStd)
    return "";
  if (const auto *MD = dyn_cast<CXXMethodDecl>(FD))
    return llvm::is_contained({"write", "read", "assign", "insert", "append"},
                              Name)
               ? MD->getQualifiedNameAsString()
               : "";
  static const llvm::StringSet<> NotReading = {
      "move",     "forward",     "addressof",   "launder",    "ref",   "cref",
      "bind",     "invoke",      "make_pair",   "make_tuple", "tie",   "swap",
      "exchange", "make_shared", "make_unique", "thread",     "async", "get"};
  return NotReading.contains(Name) ? "" : FD->getQualifiedNameAsString();
}

namespace {
/// A host read of tensor memory found in a function body.
struct Access {
  const CXXMemberCallExpr *Call; ///< accessor() or data_ptr()
  const Stmt *Use = nullptr;     ///< data_ptr: where the pointer is read
  std::string Consumer;          ///< ... by this host function, if any
};

/// Walks a body in source order, not entering lambdas.
struct AccessCollector {
  std::vector<Access> Accesses;
  /// Pointer variables initialised from data_ptr(): index into Accesses.
  llvm::DenseMap<const VarDecl *, unsigned> Pointers;
  llvm::SmallVector<const Stmt *, 32> Stack;

  void visit(const Stmt *S) {
    if (!S || isa<LambdaExpr>(S))
      return;
    if (const auto *MC = dyn_cast<CXXMemberCallExpr>(S))
      considerCall(MC);
    else if (const auto *DRE = dyn_cast<DeclRefExpr>(S))
      considerPointerUse(DRE);
    Stack.push_back(S);
    for (const Stmt *Child : S->children())
      visit(Child);
    Stack.pop_back();
  }

  /// The nearest ancestor that is not a cast, paren or pointer arithmetic,
  /// and the child on the way to it.
  std::pair<const Stmt *, const Stmt *> user(const Stmt *From) const {
    const Stmt *Child = From;
    for (size_t I = Stack.size(); I-- > 0;) {
      const Stmt *P = Stack[I];
      if (isa<CastExpr>(P) || isa<ParenExpr>(P) || isa<ExprWithCleanups>(P)) {
        Child = P;
        continue;
      }
      if (const auto *BO = dyn_cast<BinaryOperator>(P))
        if ((BO->getOpcode() == BO_Add || BO->getOpcode() == BO_Sub) &&
            BO->getType()->isPointerType()) {
          Child = P;
          continue;
        }
      return {P, Child};
    }
    return {nullptr, nullptr};
  }

  /// Records in \p A how the pointer computed at \p From is used, if it
  /// is read on the host; returns the variable it initialises, if any.
  const VarDecl *classifyUse(const Stmt *From, Access &A) {
    auto [P, Child] = user(From);
    if (!P)
      return nullptr;
    if (const auto *UO = dyn_cast<UnaryOperator>(P)) {
      if (UO->getOpcode() == UO_Deref)
        A.Use = P;
    } else if (const auto *AS = dyn_cast<ArraySubscriptExpr>(P)) {
      if (AS->getBase() == Child)
        A.Use = P;
    } else if (const auto *ME = dyn_cast<MemberExpr>(P)) {
      if (ME->isArrow())
        A.Use = P;
    } else if (const auto *DS = dyn_cast<DeclStmt>(P)) {
      for (const Decl *D : DS->decls())
        if (const auto *V = dyn_cast<VarDecl>(D))
          if (V->getInit() == Child && V->getType()->isPointerType())
            return V;
    } else if (isa<CallExpr>(P) || isa<CXXConstructExpr>(P)) {
      std::string Consumer = hostConsumer(cast<Expr>(P));
      if (!Consumer.empty()) {
        A.Use = P;
        A.Consumer = Consumer;
      }
    }
    return nullptr;
  }

  void considerCall(const CXXMemberCallExpr *MC) {
    const CXXMethodDecl *MD = MC->getMethodDecl();
    if (!MD || !MD->getIdentifier() ||
        !libtorch::isTensorRecord(MD->getParent()))
      return;
    StringRef Name = MD->getName();
    if (Name == "accessor") {
      Accesses.push_back({MC, nullptr, ""});
      return;
    }
    if (!llvm::is_contained(
            {"data_ptr", "data", "const_data_ptr", "mutable_data_ptr"}, Name) ||
        !MC->getType()->isPointerType())
      return;
    Access A{MC, nullptr, ""};
    const VarDecl *V = classifyUse(MC, A);
    Accesses.push_back(A);
    if (V)
      Pointers[V] = Accesses.size() - 1;
  }

  void considerPointerUse(const DeclRefExpr *DRE) {
    const auto *V = dyn_cast<VarDecl>(DRE->getDecl());
    auto It = V ? Pointers.find(V) : Pointers.end();
    if (It == Pointers.end() || Accesses[It->second].Use)
      return;
    classifyUse(DRE, Accesses[It->second]);
  }
};
} // namespace

void HostAccessDeviceTensorCheck::check(
    const MatchFinder::MatchResult &Result) {
  const auto *Fn = Result.Nodes.getNodeAs<FunctionDecl>("fn");
  if (ast::isTemplateCode(Fn)) // DeviceFlow skips it
    return;
  ASTContext &Ctx = *Result.Context;
  const SourceManager &SM = Ctx.getSourceManager();
  const LangOptions &LO = Ctx.getLangOpts();
  AccessCollector Collector;
  Collector.visit(Fn->getBody());
  llvm::erase_if(Collector.Accesses, [](const Access &A) {
    return A.Call->getMethodDecl()->getName() != "accessor" && !A.Use;
  });
  if (Collector.Accesses.empty())
    return;
  const DeviceFlow *Flow = device::analyzedFlow(*this, Fn, Ctx, Verbose);
  if (!Flow)
    return;
  for (const Access &A : Collector.Accesses) {
    const Expr *Tensor = A.Call->getImplicitObjectArgument();
    DeviceFact F = Flow->factOf(Tensor);
    if (!F.Device.isDeviceSide())
      continue;
    SourceLocation Loc = SM.getFileLoc(A.Call->getExprLoc());
    if (!reportOnce(Loc))
      continue;
    std::string Name = device::quotableText(Tensor, SM, LO);
    std::string Copy =
        Name.empty() ? "'.cpu()'" : "'auto host = " + Name + ".cpu();'";
    StringRef Method = A.Call->getMethodDecl()->getName();
    std::string Message = device::describeOperand(Name, F);
    if (Method == "accessor")
      Message += "; 'accessor' lets host code index its memory, which on a "
                 "GPU machine crashes or reads garbage; copy it to the host "
                 "first (" +
                 Copy + ") and take the accessor of that copy";
    else
      Message += "; '" + Method.str() +
                 "' returns a device address that host code reads, which on "
                 "a GPU machine crashes or reads garbage; copy it to the host "
                 "first (" +
                 Copy + ") and read that copy's data";
    diag(Loc, "%0") << Message;
    if (A.Use) {
      SourceLocation UseLoc = SM.getFileLoc(A.Use->getBeginLoc());
      if (A.Consumer.empty())
        diag(UseLoc, "the pointer is dereferenced on the host here",
             DiagnosticIDs::Note);
      else
        diag(UseLoc,
             "the pointer is handed to '%0' here, which reads it on "
             "the host",
             DiagnosticIDs::Note)
            << A.Consumer;
    }
    device::noteOrigin(*this, Name, Tensor, F, SM);
  }
}

} // namespace clang::tidy::torch
