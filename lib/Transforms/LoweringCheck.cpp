//===- LoweringCheck.cpp - Does a transformed function still lower? -------===//

#include "LoweringCheck.h"

#include "accel/Conversion/AccelToISA.h"
#include "accel/Support/ThreadDiagnostics.h"

#include "mlir/IR/Diagnostics.h"

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
