//===- LoweringCheck.cpp - Does a transformed module still lower? ---------===//

#include "LoweringCheck.h"

#include "accel/Conversion/AccelToISA.h"

#include "mlir/IR/Diagnostics.h"

std::string accel::detail::checkLowers(mlir::ModuleOp module,
                                       uint64_t vmemCapacity,
                                       uint64_t vmemPage,
                                       unsigned scalarRegisters) {
  std::string error;
  mlir::ScopedDiagnosticHandler handler(
      module.getContext(), [&](mlir::Diagnostic &diag) {
        if (diag.getSeverity() == mlir::DiagnosticSeverity::Error &&
            error.empty())
          error = diag.str();
        return mlir::success();
      });
  LoweringOptions options;
  options.vmemCapacity = vmemCapacity;
  options.vmemAlign = vmemPage ? vmemPage : 1;
  options.scalarRegisters = scalarRegisters;
  if (mlir::failed(lowerToIsa(module, options)) && error.empty())
    error = "the lowering failed";
  return error;
}
