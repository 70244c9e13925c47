//===- consumer.cpp - A program built against the installed accel ---------===//
//
// Registers the accel dialect, parses a program from its first argument and
// runs --accel-assign-op-ids on it, printing the result: what a downstream
// compiler does with the package (test/Install/Inputs/run.sh checks the
// output).
//
//===----------------------------------------------------------------------===//

#include "accel/InitAccel.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/raw_ostream.h"

int main(int argc, char **argv) {
  if (argc != 2) {
    llvm::errs() << "usage: accel-consumer FILE.mlir\n";
    return 2;
  }
  mlir::DialectRegistry registry;
  accel::registerAccelDialects(registry);
  mlir::MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();
  accel::registerAccelPasses();
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(argv[1], &ctx);
  if (!module)
    return 1;
  mlir::PassManager pm(&ctx);
  if (mlir::failed(
          mlir::parsePassPipeline("accel-assign-op-ids", pm, llvm::errs())) ||
      mlir::failed(pm.run(*module)))
    return 1;
  module->print(llvm::outs());
  llvm::outs() << "\n";
  return 0;
}
