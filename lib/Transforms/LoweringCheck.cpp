//===- LoweringCheck.cpp - Does a transformed function still lower? -------===//

#include "LoweringCheck.h"

#include "accel/Support/ThreadDiagnostics.h"
#include "accel/Target/AccelToISA.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/CSE.h"

using namespace mlir;

std::string accel::detail::checkLowers(ModuleOp module, llvm::StringRef entry,
                                       uint64_t vmemCapacity, uint64_t vmemPage,
                                       unsigned scalarRegisters) {
  std::string error;
  // This thread's diagnostics only: passes on other functions run beside.
  ThreadDiagnosticHandler handler(module.getContext(), [&](Diagnostic &diag) {
    if (diag.getSeverity() == DiagnosticSeverity::Error && error.empty())
      error = diag.str();
    return success();
  });
  LoweringOptions options;
  options.entry = entry.str();
  options.vmemCapacity = vmemCapacity;
  options.vmemAlign = vmemPage ? vmemPage : 1;
  options.scalarRegisters = scalarRegisters;
  if (failed(lowerToIsa(module, options)) && error.empty())
    error = "the lowering failed";
  return error;
}

OwningOpRef<ModuleOp> accel::detail::cloneIntoModule(func::FuncOp func) {
  OwningOpRef<ModuleOp> module = ModuleOp::create(func.getLoc());
  module->getBody()->push_back(func.clone());
  return module;
}

std::string accel::detail::checkLowers(func::FuncOp func, uint64_t vmemCapacity,
                                       uint64_t vmemPage,
                                       unsigned scalarRegisters) {
  OwningOpRef<ModuleOp> module = cloneIntoModule(func);
  return checkLowers(*module, func.getSymName(), vmemCapacity, vmemPage,
                     scalarRegisters);
}

accel::detail::LoweringGuard::LoweringGuard(func::FuncOp func,
                                            uint64_t vmemCapacity,
                                            uint64_t vmemPage)
    : func(func), saved(cloneIntoModule(func)), vmemCapacity(vmemCapacity),
      vmemPage(vmemPage) {}

accel::detail::LoweringGuard::~LoweringGuard() = default;

std::string accel::detail::LoweringGuard::keepIfLowers() {
  LoweringOptions defaults;
  std::string after =
      checkLowers(func, vmemCapacity, vmemPage, defaults.scalarRegisters);
  if (after.empty()) {
    // And after cse, which the FDO pipeline runs last: merging equal
    // constants and address math lengthens live ranges.
    OwningOpRef<ModuleOp> copy = cloneIntoModule(func);
    IRRewriter rewriter(copy->getContext());
    DominanceInfo dominance(*copy);
    eliminateCommonSubExpressions(rewriter, dominance, *copy);
    after = checkLowers(*copy, func.getSymName(), vmemCapacity, vmemPage,
                        defaults.scalarRegisters);
    if (after.empty())
      return "";
  }
  auto original = cast<func::FuncOp>(saved->getBody()->front());
  if (!checkLowers(*saved, original.getSymName(), vmemCapacity, vmemPage,
                   defaults.scalarRegisters)
           .empty())
    return "";
  func.getBody().takeBody(original.getBody());
  return after;
}
