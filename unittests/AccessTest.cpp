//===- AccessTest.cpp - getAccessTemplates against getAccesses ------------===//
//
// The simulator decodes each instruction's memory operands once, as
// templates over the registers (issue 34), and adds the address registers'
// values at each issue. For every opcode and many random fields, flags and
// register values, the templates must give exactly getAccesses's tiles; a
// remote DMA, whose chip is a register's value, has none.
//
//===----------------------------------------------------------------------===//

#include "accel/Sim/Access.h"
#include "accel/ISA/Isa.h"

#include "gtest/gtest.h"

#include <random>

using namespace accel;
using namespace accel::sim;

namespace {

bool sameTile(const TileRef &a, const TileRef &b) {
  return a.space == b.space && a.base == b.base && a.rows == b.rows &&
         a.cols == b.cols && a.rowStride == b.rowStride && a.chip == b.chip &&
         a.elemBytes == b.elemBytes;
}

TEST(AccessTest, TemplatesGiveTheAccessesOfEveryOpcode) {
  std::mt19937_64 rng(34);
  unsigned checked = 0, remote = 0;
  for (unsigned byte = 0; byte < 256; ++byte) {
    const isa::OpcodeInfo *info = isa::lookup(uint8_t(byte));
    if (!info)
      continue;
    for (int trial = 0; trial < 200; ++trial) {
      isa::Inst in;
      in.op = info->op;
      in.rd = uint8_t(rng());
      in.rs1 = uint8_t(rng());
      in.rs2 = uint8_t(rng());
      in.rs3 = uint8_t(rng());
      in.flags = uint8_t(rng());
      in.a = uint16_t(rng());
      in.b = uint16_t(rng());
      in.s1 = uint16_t(rng());
      in.s2 = uint16_t(rng());
      in.s3 = uint16_t(rng());
      uint32_t chip = uint32_t(rng() % 8);
      uint64_t regs[256];
      for (uint64_t &r : regs)
        r = rng() % 3 == 0 ? rng() : rng() % (uint64_t(1) << 32);
      regs[0] = 0;

      llvm::SmallVector<OperandTemplate, 6> templates;
      unsigned numReads = 0, numWrites = 0;
      bool has = getAccessTemplates(in, chip, templates, numReads, numWrites);
      InstAccess want = getAccesses(
          in, [&](unsigned r) { return regs[r]; }, chip);
      if (in.op == isa::Opcode::DmaIssue && in.dmaRemote()) {
        EXPECT_FALSE(has) << info->mnemonic;
        EXPECT_TRUE(templates.empty());
        ++remote;
        continue;
      }
      ASSERT_TRUE(has) << info->mnemonic;
      ASSERT_EQ(numReads, want.memReads.size()) << info->mnemonic;
      ASSERT_EQ(numWrites, want.memWrites.size()) << info->mnemonic;
      ASSERT_EQ(templates.size(), numReads + numWrites);
      for (unsigned i = 0; i < templates.size(); ++i) {
        const MemOperand &w =
            i < numReads ? want.memReads[i] : want.memWrites[i - numReads];
        TileRef got = templates[i].operand.tile;
        if (templates[i].hasBaseReg)
          got.base += regs[templates[i].baseReg];
        EXPECT_TRUE(sameTile(got, w.tile))
            << info->mnemonic << " operand " << i;
        EXPECT_EQ(templates[i].operand.role, w.role);
      }
      ++checked;
    }
  }
  EXPECT_GT(checked, 1000u);
  EXPECT_GT(remote, 0u);
}

} // namespace
