//===- GenTest.cpp - accel-gen programs are valid by construction ---------===//
//
// For a range of seeds and sizes, the generated program verifies, its
// config is one the simulator accepts, it lowers within the config's VMEM,
// and it runs at baseline without a fault. Also: determinism and --drop.
//
//===----------------------------------------------------------------------===//

#include "accel/Gen/ProgramGenerator.h"
#include "accel/InitAccel.h"
#include "accel/Sim/MachineConfig.h"
#include "accel/Sim/Simulator.h"
#include "accel/Target/AccelToISA.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

using namespace accel;

namespace {

class GenTest : public ::testing::Test {
protected:
  GenTest() : ctx(registry()) { ctx.loadAllAvailableDialects(); }
  static mlir::DialectRegistry registry() {
    mlir::DialectRegistry r;
    registerAccelDialects(r);
    return r;
  }
  std::string text(gen::GeneratedProgram &p) {
    std::string s;
    llvm::raw_string_ostream os(s);
    p.module->print(os);
    return s;
  }
  mlir::MLIRContext ctx;
};

TEST_F(GenTest, SeedsRunAtBaseline) {
  for (unsigned size : {1u, 2u, 3u})
    for (uint64_t seed = 100; seed < 120; ++seed) {
      SCOPED_TRACE("seed " + std::to_string(seed) + " size " +
                   std::to_string(size));
      gen::GenOptions o;
      o.seed = seed;
      o.size = size;
      auto p = gen::generateProgram(ctx, o);
      ASSERT_TRUE(mlir::succeeded(p));
      EXPECT_FALSE(p->kept.empty());
      auto config = sim::MachineConfig::fromJson(p->machine.toJson(seed),
                                                 "gen.json");
      ASSERT_TRUE(bool(config)) << llvm::toString(config.takeError());
      EXPECT_EQ(config->vmemBytes, p->machine.vmemBytes);
      EXPECT_GE(p->machine.maxOutstanding, 1u);
      EXPECT_LE(p->machine.maxOutstanding, 8u);
      LoweringOptions lo;
      lo.vmemCapacity = config->vmemBytes;
      lo.vmemAlign = config->vmemPageBytes;
      auto program = lowerToIsa(*p->module, lo);
      ASSERT_TRUE(mlir::succeeded(program));
      // Generated allocations use at most half the VMEM (room for the
      // transforms' buffers).
      uint64_t vmemEnd = 0;
      for (const isa::Buffer &b : program->buffers)
        if (b.space == isa::MemSpace::VMEM)
          vmemEnd = std::max(vmemEnd, b.base + b.bytes);
      EXPECT_LE(vmemEnd, config->vmemBytes / 2 + config->vmemPageBytes);
      sim::Simulator simulator(*config, *program);
      auto summary = simulator.run();
      ASSERT_TRUE(bool(summary)) << llvm::toString(summary.takeError());
      EXPECT_GT(summary->totalCycles, 0u);
    }
}

TEST_F(GenTest, DeterministicAndDropKeepsOthers) {
  gen::GenOptions o;
  o.seed = 7;
  auto a = gen::generateProgram(ctx, o);
  auto b = gen::generateProgram(ctx, o);
  ASSERT_TRUE(mlir::succeeded(a) && mlir::succeeded(b));
  EXPECT_EQ(text(*a), text(*b));
  EXPECT_EQ(a->machine.toJson(7), b->machine.toJson(7));
  ASSERT_GE(a->kept.size(), 2u);
  o.drop = {a->kept.front()};
  auto c = gen::generateProgram(ctx, o);
  ASSERT_TRUE(mlir::succeeded(c));
  EXPECT_EQ(c->numStatements, a->numStatements);
  ASSERT_EQ(c->kept.size() + 1, a->kept.size());
  for (size_t i = 0; i < c->kept.size(); ++i) {
    EXPECT_EQ(c->kept[i], a->kept[i + 1]);
    EXPECT_EQ(c->summary[i], a->summary[i + 1]);
  }
  EXPECT_NE(text(*a), text(*c));
  o.drop = {};
  o.seed = 8;
  auto d = gen::generateProgram(ctx, o);
  ASSERT_TRUE(mlir::succeeded(d));
  EXPECT_NE(text(*a), text(*d));
}

} // namespace
