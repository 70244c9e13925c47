//===- accel-opt.cpp - mlir-opt for accel programs ------------------------===//
//
// mlir-opt with the accel dialect and passes, and the upstream dialects and
// passes that frontend programs use (linalg, tensor, affine, bufferization,
// transform; accel/InitAccel.h). One convenience: the metrics file of
// --accel-attach-metrics may be given directly
// (--accel-attach-metrics=metrics.json), which is rewritten to the pass
// option form (--accel-attach-metrics=metrics=metrics.json).
//
//===----------------------------------------------------------------------===//

#include "accel/Conversion/Frontend.h"
#include "accel/Conversion/Passes.h"
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
  accel::registerFrontendDialects(registry);
  accel::registerFrontendPasses();
  accel::registerAccelPasses();
  accel::registerAccelConversionPasses();
  accel::registerFrontendPipeline();
  accel::registerAccelFdoPipeline();
  accel::test::registerTestFdoFailuresPass();

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
      "accel optimizer driver: the accel dialect and its passes, with the "
      "upstream dialects and passes of a linalg/affine frontend\n", registry));
}
