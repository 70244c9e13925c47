//===- ProgramGenerator.cpp - Random accel programs for testing -----------===//
//
// Builds accel programs with OpBuilder from a plan of independent top-level
// statements. Each statement owns its HBM arguments and VMEM buffers, WAITs
// every DMA before the core touches the DMA's buffers again, and writes at
// least one output tensor that depends on everything it computed, so a
// wrong transform shows up in the final HBM compare. Validity rules the
// generator keeps (docs/testing.md):
//   - tiles stay inside their buffers (offsets are drawn, then the buffers
//     are shaped to hold every tile the loops visit);
//   - no data race: a DMA's VMEM destination is only read after its WAIT,
//     and a store's VMEM source is not overwritten before its WAIT;
//   - VMEM: every statement gets an equal share of half the machine's VMEM
//     (the other half is room for the transforms' extra buffers), or of
//     7/8 of it on a VMEM-tight seed (one in five);
//   - no NaN: sqrt only of squares, division only by sums of exponentials.
//
// The statement kinds are in Statements.cpp and LoopShapes.cpp, written
// with the Emitter of Emitter.h; this file draws the machine and the plan.
//
//===----------------------------------------------------------------------===//

#include "Emitter.h"

#include "mlir/IR/Verifier.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace accel;
using namespace accel::gen;
using namespace accel::gen::detail;

//===----------------------------------------------------------------------===//
// Machine
//===----------------------------------------------------------------------===//

GenMachine accel::gen::drawMachine(uint64_t seed) {
  Rng r(streamSeed(seed, ~0ull));
  GenMachine m;
  m.pageBytes = r.pick<uint64_t>({256, 512, 1024});
  m.pagesPerBlock = r.pick<uint64_t>({16, 32, 64});
  uint64_t target = uint64_t(r.range(192, 640)) * 1024;
  m.blocks = std::max<uint64_t>(1, target / (m.pageBytes * m.pagesPerBlock));
  m.vmemBytes = m.blocks * m.pagesPerBlock * m.pageBytes;
  m.maxOutstanding = unsigned(r.range(1, 8));
  m.mxuRows = r.pick<unsigned>({32, 64, 128});
  m.mxuCols = r.pick<unsigned>({32, 64, 128});
  m.mxuDataflow = r.pick<const char *>({"ws", "is", "os"});
  m.mxuOverlap = r.pick<bool>({true, false});
  m.vpuSublanes = r.pick<unsigned>({1, 8});
  m.vpuLanes = r.pick<unsigned>({128, 256, 512, 1024});
  m.vpuDepth = unsigned(r.range(0, 12));
  for (int i = 0; i < 3; ++i) {
    m.baseLatency[i] = unsigned(r.range(0, 500)) * 2 + 1; // odd, 1..1001
    // Odd bandwidths: 37.5 .. 2048 bytes per cycle.
    m.bytesPerCycle[i] =
        r.pick<double>({37.5, 64, 100, 128, 333, 512, 777.25, 1024, 2048});
  }
  return m;
}

std::string GenMachine::toJson(uint64_t seed) const {
  llvm::json::Array links;
  const char *pairs[3][2] = {{"hbm", "vmem"}, {"vmem", "hbm"}, {"vmem", "vmem"}};
  for (int i = 0; i < 3; ++i)
    links.push_back(llvm::json::Object{{"src", pairs[i][0]},
                                       {"dst", pairs[i][1]},
                                       {"base_latency", baseLatency[i]},
                                       {"bytes_per_cycle", bytesPerCycle[i]}});
  llvm::json::Object doc{
      {"name", ("accel-gen-" + llvm::Twine(seed)).str()},
      {"vmem", llvm::json::Object{{"bytes", vmemBytes},
                                  {"page_bytes", pageBytes},
                                  {"blocks", blocks},
                                  {"pages_per_block", pagesPerBlock}}},
      {"mxu", llvm::json::Object{{"rows", mxuRows},
                                 {"cols", mxuCols},
                                 {"dataflow", mxuDataflow},
                                 {"overlap", mxuOverlap}}},
      {"vpu", llvm::json::Object{{"sublanes", vpuSublanes},
                                 {"lanes", vpuLanes},
                                 {"pipeline_depth", vpuDepth}}},
      {"dma", llvm::json::Object{{"max_outstanding", maxOutstanding},
                                 {"links", std::move(links)}}},
      {"sources", llvm::json::Object{{"accel-gen", "random machine for seed " +
                                                       std::to_string(seed)}}}};
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(doc))) << "\n";
  return text;
}

//===----------------------------------------------------------------------===//
// Program
//===----------------------------------------------------------------------===//

FailureOr<GeneratedProgram>
accel::gen::generateProgram(MLIRContext &ctx, const GenOptions &options) {
  GeneratedProgram result;
  result.machine = drawMachine(options.seed);
  unsigned size = std::max(1u, options.size);
  Rng plan(streamSeed(options.seed, ~1ull));
  result.numStatements = unsigned(plan.range(2, 2 + size));

  OpBuilder b(&ctx);
  Location loc = UnknownLoc::get(&ctx);
  result.module = ModuleOp::create(loc);
  b.setInsertionPointToEnd(result.module->getBody());
  auto func = func::FuncOp::create(b, loc, "main",
                                   FunctionType::get(&ctx, {}, {}));
  func.addEntryBlock();
  Emitter e(ctx, func, result.machine);
  e.allocInLoops = options.allocInLoops;

  // Each statement: an equal share of half the VMEM, and a trip budget.
  Budget budget{result.machine.vmemBytes / 2 / result.numStatements,
                int64_t(24 * size)};
  // One seed in five is VMEM-tight (issue 33): the statements take 7/8 of
  // VMEM instead of half, so the transforms' extra buffers barely fit.
  Rng tight(streamSeed(options.seed, 0x400000));
  result.vmemTight = tight.chance(20);
  if (result.vmemTight)
    budget.vmem = result.machine.vmemBytes / 8 * 7 / result.numStatements;
  const EmitFn kinds[] = {emitElementwise, emitMatmul, emitGather,
                          emitScratch, emitRowReduce};
  // Drawn from a stream of their own, one statement in four (issue 33's
  // shapes), so the other statements of a seed stay what they were.
  const EmitFn laterKinds[] = {emitCarriedState, emitWindowViews};
  // The shapes of issue 33's second round, from a third stream, one
  // statement in four of those the second stream left alone.
  const EmitFn thirdKinds[] = {emitPingPong, emitRing, emitRuntimeTrip,
                               emitRepeatedLoads, emitManyTiles};
  for (unsigned i = 0; i < result.numStatements; ++i) {
    Rng r(streamSeed(options.seed, i));
    unsigned kind = unsigned(r.range(0, std::size(kinds) - 1));
    Rng later(streamSeed(options.seed, 0x200000 + i));
    EmitFn emit = kinds[kind];
    Rng third(streamSeed(options.seed, 0x300000 + i));
    if (later.chance(25))
      emit = laterKinds[later.range(0, std::size(laterKinds) - 1)];
    else if (third.chance(25))
      emit = thirdKinds[third.range(0, std::size(thirdKinds) - 1)];
    if (llvm::is_contained(options.drop, i))
      continue;
    // A separate stream, so the statements of a seed are the ones they
    // were before bf16, only their element type drawn anew.
    Rng precision(streamSeed(options.seed, 0x100000 + i));
    bool bf16 = options.bf16 && precision.range(0, 3) == 0;
    e.floatType = bf16 ? Type(b.getBF16Type()) : Type(b.getF32Type());
    uint64_t before = e.vmemUsed;
    std::string what = emit(e, r, budget);
    if (bf16 && !what.empty())
      what += " (bf16)";
    if (what.empty())
      continue; // did not fit the budget (nothing was emitted)
    if (e.vmemUsed - before > budget.vmem)
      return func.emitError() << "accel-gen: statement " << i << " uses "
                              << e.vmemUsed - before
                              << " VMEM bytes, more than its budget of "
                              << budget.vmem;
    result.kept.push_back(i);
    result.summary.push_back(("statement " + llvm::Twine(i) + ": " + what).str());
  }
  e.finish();
  if (failed(verify(*result.module)))
    return failure();
  return result;
}
