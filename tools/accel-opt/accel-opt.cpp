//===- accel-opt.cpp - mlir-opt for accel programs ------------------------===//
//
// mlir-opt with the accel dialect, func/arith/scf/memref, the accel passes
// and upstream's canonicalize/cse. One convenience: the metrics file of
// --accel-attach-metrics may be given directly
// (--accel-attach-metrics=metrics.json), which is rewritten to the pass
// option form (--accel-attach-metrics=metrics=metrics.json).
//
//===----------------------------------------------------------------------===//

#include "accel/InitAccel.h"

#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

#include <string>
#include <vector>


namespace accel::test {
/// --accel-test-break (test/lib/TestFdoFailures.cpp), for tests.
void registerTestFdoFailuresPass();
} // namespace accel::test

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  accel::registerAccelDialects(registry);
  accel::registerAccelPasses();
  accel::registerAccelFdoPipeline();
  accel::test::registerTestFdoFailuresPass();
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();

  std::vector<std::string> args(argv, argv + argc);
  for (std::string &a : args)
    for (const char *prefix :
         {"--accel-attach-metrics=", "-accel-attach-metrics="}) {
      std::string p = prefix;
      if (a.rfind(p, 0) == 0) {
        std::string value = a.substr(p.size());
        if (value.find('=') == std::string::npos && !value.empty() &&
            value.front() != '{')
          a = p + "metrics=" + value;
      }
    }
  std::vector<char *> cargs;
  for (std::string &a : args)
    cargs.push_back(a.data());
  cargs.push_back(nullptr);
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      int(args.size()), cargs.data(),
      "accel optimizer driver: the accel dialect and its passes\n", registry));
}
