//===- fuzz-mlir.cpp - libFuzzer target: MLIR programs to the simulator ---===//
//
// What `accel-replay run` does with an MLIR file, on a small machine: parse
// with accel's registry (the accel dialects and the upstream frontend
// dialects of lib/Init; the parser verifies), the frontend when the module
// is not yet an accel program, --accel-assign-op-ids, the lowering to the
// ISA (lib/Target/AccelToISA) with the config's lowering options, and
// a simulation bounded to kMaxInstructions and to fuzz::kMaxWork
// (FuzzBudget.h). Diagnostics, lowering failures
// and simulated faults are clean rejections; a crash, a sanitizer report
// or an escaping exception is a bug. Run it with -dict=fuzz/mlir.dict.
//
//===----------------------------------------------------------------------===//

#include "FuzzBudget.h"

#include "accel/Fdo/Load.h"
#include "accel/Fdo/Run.h"
#include "accel/InitAccel.h"
#include "accel/Sim/MachineConfig.h"
#include "accel/Sim/Simulator.h"
#include "accel/Support/Nesting.h"
#include "accel/Target/AccelToISA.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "llvm/Support/ErrorHandling.h"

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>

using namespace mlir;
using namespace accel;

namespace {
constexpr uint64_t kMaxInstructions = 10000;
/// One context serves every input of the process (the types, attributes
/// and names of every input stay uniqued in it: about 360 MB after 300,000
/// inputs). Replacing the context within a process trips an ASan
/// use-after-poison inside MLIR 22's parser (StringAttr::get and
/// FileLineColRange::get reading memory of the replaced context, reused as
/// the new one's attribute storage) within 20,000 inputs when a context is
/// replaced every 2 inputs (ACCEL_FUZZ_RUNS_PER_CONTEXT=2), and after 10,000
/// with every 5000; with one context, none in 300,000. accel's tools create
/// one context per process, so they never replace one; see
/// bench/RESULTS.md, "Fuzzers".
constexpr unsigned kRunsPerContext = 0;

struct Harness {
  DialectRegistry registry;
  std::unique_ptr<MLIRContext> context;
  unsigned runs = 0;
  sim::MachineConfig config;

  Harness() {
    registerAccelDialects(registry);
    registerFrontendDialects(registry);
    // The default machine with 4 MiB of VMEM and 16 MiB of HBM: a run
    // allocates VMEM in full and materializes the HBM it touches, and a
    // small machine keeps each input fast.
    auto c = sim::MachineConfig::fromJson(
        R"({"vmem": {"bytes": 4194304, "blocks": 16, "pages_per_block": 256,
                     "page_bytes": 1024},
            "hbm": {"bytes": 16777216}})",
        "fuzz-mlir");
    if (!c)
      llvm::report_fatal_error(c.takeError());
    config = std::move(*c);
  }

  /// Inputs per context: kRunsPerContext (0: all of them), or
  /// ACCEL_FUZZ_RUNS_PER_CONTEXT to study the replacement (1 gives every
  /// input a fresh context, as each tool run has).
  unsigned runsPerContext = [] {
    const char *v = std::getenv("ACCEL_FUZZ_RUNS_PER_CONTEXT");
    return v ? unsigned(std::strtoul(v, nullptr, 10)) : kRunsPerContext;
  }();

  MLIRContext &getContext() {
    if (!context || (runsPerContext && ++runs % runsPerContext == 0)) {
      context = std::make_unique<MLIRContext>(registry);
      context->disableMultithreading();
    }
    return *context;
  }
};
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static Harness h;
  MLIRContext &ctx = h.getContext();
  ScopedDiagnosticHandler quiet(&ctx, [](Diagnostic &) { return success(); });
  // The lexer relies on the NUL after the text that a file's buffer has
  // (llvm::MemoryBuffer): std::string has one too.
  std::string text(reinterpret_cast<const char *>(data), size);
  // As the tools do: text nested deeper than the parser's stack allows is
  // refused before parsing (accel/Support/Nesting.h).
  if (llvm::Error e = accel::checkMlirNesting(text, "fuzz")) {
    llvm::consumeError(std::move(e));
    return 0;
  }
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &ctx);
  if (!module)
    return 0;

  // The frontend and op ids, then the lowering, as `accel-replay run` does
  // them (lib/Fdo/Load.cpp, lib/Fdo/Run.cpp): the same code, so that the
  // fuzzer cannot drift from the tools.
  if (failed(accel::runFrontend(*module, h.config)) ||
      failed(accel::assignOpIds(*module)))
    return 0;
  LoweringOptions lowering = accel::getLoweringOptions(h.config, "");
  FailureOr<isa::Program> program = lowerToIsa(*module, lowering);
  if (failed(program))
    return 0;
  sim::Simulator simulator(h.config, *program);
  if (fuzz::runBounded(simulator, *program, kMaxInstructions))
    (void)simulator.finish();
  return 0;
}
