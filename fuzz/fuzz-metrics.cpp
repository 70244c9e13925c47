//===- fuzz-metrics.cpp - libFuzzer target: metrics.json attachment -------===//
//
// The --accel-attach-metrics pass (lib/Transforms/AttachMetrics.cpp) with
// the input as its metrics.json, on a fixed small accel module (below: the
// program.mlir that `accel-replay run` writes for a two-iteration matmul
// loop, with op ids 1-13). The pass reads a file, so each process writes
// its inputs to its own temporary file. A failed pass is a clean
// rejection; a crash, a sanitizer report or an escaping exception is a
// bug. The seeds in corpus/fuzz-metrics are metrics.json files of runs of
// this module, trimmed to the sections the pass reads.
//
//===----------------------------------------------------------------------===//

#include "accel/InitAccel.h"
#include "accel/Transforms/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <memory>

using namespace mlir;

namespace {
constexpr const char *kModule = R"mlir(
module {
  func.func @main(%arg0: memref<8x256xf32, #accel.space<hbm>>, %arg1: memref<256x128xf32, #accel.space<hbm>>, %arg2: memref<8x128xf32, #accel.space<hbm>> {accel.init = "zero"}) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c128 = arith.constant 128 : index
    %0 = accel.alloc {accel.op_id = 1 : i64} : memref<8x128xf32, #accel.space<vmem>>
    %1 = accel.alloc {accel.op_id = 2 : i64} : memref<128x128xf32, #accel.space<vmem>>
    %2 = accel.alloc {accel.op_id = 3 : i64} : memref<8x128xf32, #accel.space<vmem>>
    accel.vfill %2, 0.000000e+00 {accel.op_id = 4 : i64} : memref<8x128xf32, #accel.space<vmem>>
    scf.for %arg3 = %c0 to %c2 step %c1 {
      %4 = arith.muli %arg3, %c128 : index
      %subview = memref.subview %arg0[0, %4] [8, 128] [1, 1] : memref<8x256xf32, #accel.space<hbm>> to memref<8x128xf32, strided<[256, 1], offset: ?>, #accel.space<hbm>>
      %subview_0 = memref.subview %arg1[%4, 0] [128, 128] [1, 1] : memref<256x128xf32, #accel.space<hbm>> to memref<128x128xf32, strided<[128, 1], offset: ?>, #accel.space<hbm>>
      %5 = accel.dma_start %subview, %0 {accel.op_id = 6 : i64} : memref<8x128xf32, strided<[256, 1], offset: ?>, #accel.space<hbm>>, memref<8x128xf32, #accel.space<vmem>>
      %6 = accel.dma_start %subview_0, %1 {accel.op_id = 7 : i64} : memref<128x128xf32, strided<[128, 1], offset: ?>, #accel.space<hbm>>, memref<128x128xf32, #accel.space<vmem>>
      accel.dma_wait %5 {accel.op_id = 8 : i64}
      accel.dma_wait %6 {accel.op_id = 9 : i64}
      accel.matmul %0, %1, %2 {accel.op_id = 10 : i64, accumulate} : memref<8x128xf32, #accel.space<vmem>>, memref<128x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
    } {accel.op_id = 5 : i64}
    accel.vexp %2, %2 {accel.op_id = 11 : i64} : memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
    %3 = accel.dma_start %2, %arg2 {accel.op_id = 12 : i64} : memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<hbm>>
    accel.dma_wait %3 {accel.op_id = 13 : i64}
    return
  }
}
)mlir";

/// A context is rebuilt every kRunsPerContext inputs: attributes the pass
/// creates from the inputs' numbers and strings stay uniqued in it.
constexpr unsigned kRunsPerContext = 20000;

struct Harness {
  DialectRegistry registry;
  std::unique_ptr<MLIRContext> context;
  OwningOpRef<ModuleOp> module;
  unsigned runs = 0;
  std::string path;

  Harness() {
    accel::registerAccelDialects(registry);
    llvm::SmallString<128> file;
    if (llvm::sys::fs::createTemporaryFile("fuzz-metrics", "json", file))
      llvm::report_fatal_error("fuzz-metrics: cannot create a temporary file");
    path = file.str().str();
  }
  ~Harness() { llvm::sys::fs::remove(path); }

  ModuleOp getModule() {
    if (!context || ++runs % kRunsPerContext == 0) {
      module = nullptr;
      context = std::make_unique<MLIRContext>(registry);
      context->disableMultithreading();
      module = parseSourceString<ModuleOp>(kModule, context.get());
      if (!module)
        llvm::report_fatal_error("fuzz-metrics: the embedded module does "
                                 "not parse");
    }
    return *module;
  }
};
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static Harness h;
  ModuleOp base = h.getModule();
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(h.path, ec);
    if (ec)
      llvm::report_fatal_error("fuzz-metrics: cannot write " +
                               llvm::Twine(h.path));
    os.write(reinterpret_cast<const char *>(data), size);
  }
  // The pass changes the module: run it on a copy.
  OwningOpRef<ModuleOp> module = base.clone();
  MLIRContext *ctx = base.getContext();
  // Errors and warnings are expected; keep them off stderr.
  ScopedDiagnosticHandler quiet(ctx, [](Diagnostic &) { return success(); });
  PassManager pm(ctx);
  accel::AccelAttachMetricsOptions options;
  options.metricsFile = h.path;
  // Past the program fingerprint check, so the fields themselves are read.
  options.force = true;
  pm.addPass(accel::createAccelAttachMetrics(options));
  (void)pm.run(*module);
  return 0;
}
