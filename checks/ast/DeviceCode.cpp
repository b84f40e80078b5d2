//===- DeviceCode.cpp - code the GPU runs, not the host ------------------===//
#include "ast/DeviceCode.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"

namespace clang::tidy::torch::ast {

bool isDeviceFunction(const FunctionDecl *FD) {
  if (!FD)
    return false;
  if (FD->hasAttr<CUDAGlobalAttr>())
    return true;
  return FD->hasAttr<CUDADeviceAttr>() && !FD->hasAttr<CUDAHostAttr>();
}

namespace {
class DeviceLambdaFinder : public RecursiveASTVisitor<DeviceLambdaFinder> {
public:
  bool TraverseLambdaExpr(LambdaExpr *L) {
    if (isDeviceFunction(L->getCallOperator())) {
      Bodies.push_back(L->getBody()->getSourceRange());
      return true; // its own lambdas are inside this range
    }
    return RecursiveASTVisitor::TraverseLambdaExpr(L);
  }
  llvm::SmallVector<SourceRange, 2> Bodies;
};
} // namespace

llvm::SmallVector<SourceRange, 2> deviceLambdaBodies(const FunctionDecl *Fn) {
  if (!Fn || !Fn->getASTContext().getLangOpts().CUDA || !Fn->hasBody())
    return {};
  DeviceLambdaFinder Finder;
  Finder.TraverseStmt(Fn->getBody());
  return std::move(Finder.Bodies);
}

} // namespace clang::tidy::torch::ast
