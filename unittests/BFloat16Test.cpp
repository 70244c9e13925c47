//===- BFloat16Test.cpp - bf16 conversions, VPU, MXU and DMA
//---------------===//
//
// bf16 end to end in the simulator, bit-exact against an independent
// reference: llvm::APFloat in IEEE bfloat16 semantics with
// rmNearestTiesToEven (conversions, and the correctly rounded +, -, *, /
// that the VPU's f32-then-round must equal: f32 has 24 >= 2 * 8 + 2
// significand bits, so rounding twice is innocuous for these operations,
// Figueroa, "When is double rounding innocuous?", SIGNUM 1995), and an
// APFloat IEEE single accumulator for the MXU. Timing of bf16 DMAs by hand
// (2-byte elements; docs/isa.md "Element types").
//
//===----------------------------------------------------------------------===//

#include "accel/Support/BFloat16.h"
#include "accel/Sim/Simulator.h"

#include "TestPrograms.h"

#include "llvm/ADT/APFloat.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

using namespace accel;
using namespace accel::sim;
using namespace accel::test;
using isa::Inst;
using isa::MemSpace;
using isa::Opcode;
using llvm::APFloat;

namespace {

/// `f` rounded to bf16 by APFloat: the reference conversion.
uint16_t apRound(float f) {
  APFloat v(f);
  bool lost;
  v.convert(APFloat::BFloat(), APFloat::rmNearestTiesToEven, &lost);
  return uint16_t(v.bitcastToAPInt().getZExtValue());
}

APFloat apBf16(uint16_t bits) {
  return APFloat(APFloat::BFloat(), llvm::APInt(16, bits));
}

uint16_t bitsOf(const APFloat &v) {
  return uint16_t(v.bitcastToAPInt().getZExtValue());
}

uint32_t f32Bits(float f) {
  uint32_t w;
  std::memcpy(&w, &f, 4);
  return w;
}

float f32Of(uint32_t w) {
  float f;
  std::memcpy(&f, &w, 4);
  return f;
}

bool isNanBf16(uint16_t h) { return (h & 0x7fff) > 0x7f80; }

TEST(BFloat16Test, ConversionsMatchAPFloat) {
  // Hand-picked: ties to even, the largest finite value rounding to
  // infinity, subnormals, signed zeros.
  struct Case {
    uint32_t f32;
    uint16_t bf16;
  } cases[] = {
      {0x3f800000, 0x3f80}, // 1.0
      {0x3f808000, 0x3f80}, // 1 + 2^-8: a tie, to even (down)
      {0x3f818000, 0x3f82}, // 1 + 3 * 2^-8: a tie, to even (up)
      {0x3f808001, 0x3f81}, // just above the tie: up
      {0x3f807fff, 0x3f80}, // just below: down
      {0x7f7fffff, 0x7f80}, // FLT_MAX: overflows to +inf
      {0x7f7f7fff, 0x7f7f}, // the largest that stays finite
      {0xff7fffff, 0xff80}, // -FLT_MAX: -inf
      {0x00008000, 0x0000}, // subnormal tie to even: +0
      {0x00018000, 0x0002}, // subnormal tie to even: up
      {0x80000000, 0x8000}, // -0
      {0x7f800000, 0x7f80}, // +inf
      {0x00800000, 0x0080}, // FLT_MIN, exact
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(testing::Message() << std::hex << "f32 0x" << c.f32);
    EXPECT_EQ(f32ToBf16(f32Of(c.f32)), c.bf16);
    EXPECT_EQ(apRound(f32Of(c.f32)), c.bf16);
  }
  // Every bf16 widens exactly and narrows back to itself; NaNs stay NaN of
  // the same sign and become quiet.
  for (uint32_t h = 0; h <= 0xffff; ++h) {
    float f = bf16ToF32(uint16_t(h));
    EXPECT_EQ(f32Bits(f), h << 16);
    uint16_t back = f32ToBf16(f);
    if (isNanBf16(uint16_t(h))) {
      ASSERT_TRUE(isNanBf16(back)) << h;
      ASSERT_EQ(back & 0x8000, h & 0x8000) << h;
      ASSERT_TRUE(back & 0x0040) << h; // quiet
    } else {
      ASSERT_EQ(back, h) << h;
    }
  }
  // 2^22 f32 patterns spread over the whole range, against APFloat.
  std::mt19937 rng(42);
  for (uint32_t i = 0; i < (1u << 22); ++i) {
    uint32_t w = (i << 10) | (rng() & 0x3ff);
    float f = f32Of(w);
    if (std::isnan(f))
      continue;
    ASSERT_EQ(f32ToBf16(f), apRound(f)) << std::hex << w;
  }
}

// Address map: bf16 tiles in VMEM a, b, c (TestPrograms.h), f32 results in
// d; HBM x (f32), xb (bf16, seed 9) and out.
constexpr uint64_t kD = 12288;
constexpr uint64_t kXb = 0x20000;
constexpr uint64_t kOut = 0x30000;

isa::Program makeProgram(std::vector<Inst> code) {
  isa::Program p;
  p.name = "bf16";
  p.code = std::move(code);
  isa::Buffer xb = hbmBuffer("xb", kXb, 4096, 9);
  xb.elemType = isa::ElemType::BF16;
  xb.shape = {2048};
  p.buffers = {hbmBuffer("x", kX, 4096, kSeed),
               xb,
               hbmBuffer("out", kOut, 4096, 0, /*zero=*/true),
               vmemBuffer("a", kA, 4096),
               vmemBuffer("b", kB, 4096),
               vmemBuffer("c", kC, 4096),
               vmemBuffer("d", kD, 4096)};
  return p;
}

/// Sets the kFlagBf16Rs* bits of `in` for operands x (rs1), y (rs2) and
/// out (rs3).
Inst bf16(Inst in, bool x, bool y, bool out) {
  in.flags |= (x ? isa::kFlagBf16Rs1 : 0) | (y ? isa::kFlagBf16Rs2 : 0) |
              (out ? isa::kFlagBf16Rs3 : 0);
  return in;
}

std::vector<uint16_t> readBf16(Simulator &sim, uint64_t addr, size_t n) {
  std::vector<uint16_t> v(n);
  std::memcpy(v.data(), sim.getMemory().vmemBytePtr(addr), 2 * n);
  return v;
}

void writeBf16(Simulator &sim, uint64_t addr, const std::vector<uint16_t> &v) {
  std::memcpy(sim.getMemory().vmemBytePtr(addr), v.data(), 2 * v.size());
}

std::vector<float> readF32(Simulator &sim, uint64_t addr, size_t n) {
  std::vector<float> v(n);
  std::memcpy(v.data(), sim.getMemory().vmemBytePtr(addr), 4 * n);
  return v;
}

/// n random bf16 values of mixed magnitudes, with specials.
std::vector<uint16_t> randomBf16(std::mt19937 &rng, size_t n) {
  std::vector<uint16_t> v(n);
  std::uniform_real_distribution<float> mant(-2.0f, 2.0f);
  std::uniform_int_distribution<int> exp(-30, 30);
  for (uint16_t &h : v)
    h = f32ToBf16(std::ldexp(mant(rng), exp(rng)));
  const uint16_t specials[] = {0x0000, 0x8000, 0x7f80, 0xff80, 0x0001,
                               0x8001, 0x7f7f, 0x3f80, 0xbf80, 0x0080};
  for (size_t i = 0; i < std::size(specials) && i < n; ++i)
    v[i * 7 % n] = specials[i];
  return v;
}

TEST(BFloat16Test, VpuBinaryIsCorrectlyRounded) {
  // 16 x 64 bf16 tiles (2 KiB): x at a, y at b, out at c.
  std::mt19937 rng(1);
  std::vector<uint16_t> x = randomBf16(rng, 1024), y = randomBf16(rng, 1024);
  struct Op {
    Opcode op;
    APFloat::opStatus (APFloat::*fn)(const APFloat &, APFloat::roundingMode);
  } ops[] = {{Opcode::VAdd, &APFloat::add},
             {Opcode::VSub, &APFloat::subtract},
             {Opcode::VMul, &APFloat::multiply},
             {Opcode::VDiv, &APFloat::divide}};
  for (const Op &o : ops) {
    SCOPED_TRACE(isa::info(o.op).mnemonic);
    isa::Program p = makeProgram(
        {li(1, kA), li(2, kB), li(3, kC),
         bf16(vbinary(o.op, 3, 1, 2, 16, 64, 64, 64, 64), true, true, true),
         halt()});
    MachineConfig config = MachineConfig::getDefault();
    Simulator sim(config, p);
    writeBf16(sim, kA, x);
    writeBf16(sim, kB, y);
    auto r = sim.run();
    ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
    std::vector<uint16_t> out = readBf16(sim, kC, 1024);
    for (size_t i = 0; i < 1024; ++i) {
      APFloat want = apBf16(x[i]);
      (want.*o.fn)(apBf16(y[i]), APFloat::rmNearestTiesToEven);
      if (want.isNaN()) {
        ASSERT_TRUE(isNanBf16(out[i])) << i;
        continue;
      }
      ASSERT_EQ(out[i], bitsOf(want))
          << i << ": x 0x" << std::hex << x[i] << " y 0x" << y[i];
    }
  }
}

TEST(BFloat16Test, VpuMixedTypesConvertsAndReductions) {
  // x bf16 at a (4 x 8), y f32 at d (4 x 8), outputs: c (bf16 / f32).
  std::vector<uint16_t> x;
  for (float f : {1.0f,  2.5f,   -3.0f, 0.1f, 100.0f, -0.5f, 7.0f,  1e-3f,
                  3.0f,  3.0f,   3.0f,  3.0f, 1.0f,   1.0f,  1.0f,  1.0f,
                  -1.0f, 256.0f, 1.0f,  1.0f, 0.0f,   0.0f,  0.0f,  0.0f,
                  1.0f,  2.0f,   4.0f,  8.0f, 16.0f,  32.0f, 64.0f, 128.0f})
    x.push_back(f32ToBf16(f));
  std::vector<float> y(32);
  for (size_t i = 0; i < 32; ++i)
    y[i] = 0.3f * float(i) - 2.0f;
  const uint64_t cF32 = kC, cBf16 = kC + 1024, cCvt = kC + 2048,
                 cSum = kC + 3072, cSumB = kC + 3200, cFill = kC + 3328;
  isa::Program p = makeProgram(
      {li(1, kA), li(2, kD), li(3, cF32), li(4, cBf16), li(5, cCvt),
       li(6, cSum), li(7, cSumB), li(8, cFill),
       // f32 out = bf16 x + f32 y: no rounding to bf16.
       bf16(vadd(3, 1, 2, 4, 8, 8, 8, 8), true, false, false),
       // bf16 out = bf16 x * f32 y: rounded once.
       bf16(vbinary(Opcode::VMul, 4, 1, 2, 4, 8, 8, 8, 8), true, false, true),
       // vcopy f32 -> bf16 (the conversion), and back.
       bf16(vcopy(5, 2, 4, 8, 8, 8), false, false, true),
       // Row sums of bf16 x in f32, to f32 and to bf16.
       bf16(vunary(Opcode::VRSum, 6, 1, 4, 8, 8, 1), true, false, false),
       bf16(vunary(Opcode::VRSum, 7, 1, 4, 8, 8, 1), true, false, true),
       // Fill a bf16 tile with 0.1 (rounded: 0x3dcd).
       bf16(vfill(8, 2, 4, 4, 0.1f), false, false, true), halt()});
  MachineConfig config = MachineConfig::getDefault();
  Simulator sim(config, p);
  writeBf16(sim, kA, x);
  std::memcpy(sim.getMemory().vmemBytePtr(kD), y.data(), 4 * y.size());
  auto r = sim.run();
  ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
  std::vector<float> sumF32 = readF32(sim, cF32, 32);
  std::vector<uint16_t> mul = readBf16(sim, cBf16, 32),
                        cvt = readBf16(sim, cCvt, 32);
  for (size_t i = 0; i < 32; ++i) {
    float xf = bf16ToF32(x[i]);
    EXPECT_EQ(sumF32[i], xf + y[i]) << i;
    APFloat prod(xf);
    prod.multiply(APFloat(y[i]), APFloat::rmNearestTiesToEven);
    EXPECT_EQ(mul[i], apRound(prod.convertToFloat())) << i;
    EXPECT_EQ(cvt[i], apRound(y[i])) << i;
  }
  // Row sums, left to right in f32 from 0, then rounded to bf16 once.
  std::vector<float> rowSums = readF32(sim, cSum, 4);
  std::vector<uint16_t> rowSumsBf16 = readBf16(sim, cSumB, 4);
  for (size_t r = 0; r < 4; ++r) {
    float s = 0.0f;
    for (size_t c = 0; c < 8; ++c)
      s += bf16ToF32(x[r * 8 + c]);
    EXPECT_EQ(rowSums[r], s) << r;
    EXPECT_EQ(rowSumsBf16[r], apRound(s)) << r;
  }
  EXPECT_EQ(rowSums[1], 16.0f);
  EXPECT_EQ(rowSums[2], 257.0f);
  // 257 is not a bf16: the tie 257 = 256 + 1 rounds to even, 256.
  EXPECT_EQ(rowSumsBf16[2], 0x4380);
  EXPECT_EQ(rowSums[3], 255.0f);
  EXPECT_EQ(rowSumsBf16[3], 0x437f); // 255 is exact: 8 significant bits
  for (uint16_t h : readBf16(sim, cFill, 8))
    EXPECT_EQ(h, 0x3dcd);
}

TEST(BFloat16Test, MxuAccumulatesInF32) {
  // A 5 x 40 bf16 (row stride 48) at a, B 40 x 6 bf16 at b; C 5 x 6 f32
  // (stride 8) at d, and C' bf16 at c accumulated onto an initial value.
  const uint16_t m = 5, k = 40, n = 6, sa = 48, sc = 8;
  std::mt19937 rng(7);
  std::vector<uint16_t> a(m * sa), b(k * n);
  std::uniform_real_distribution<float> dist(-4.0f, 4.0f);
  for (uint16_t &h : a)
    h = f32ToBf16(dist(rng));
  for (uint16_t &h : b)
    h = f32ToBf16(dist(rng));
  std::vector<uint16_t> c0(m * sc);
  for (uint16_t &h : c0)
    h = f32ToBf16(dist(rng) * 100.0f);
  isa::Program p = makeProgram(
      {li(1, kA), li(2, kB), li(3, kD), li(4, kC),
       bf16(matmul(3, 1, 2, m, n, k, sa, sc), true, true, false),
       bf16(matmul(4, 1, 2, m, n, k, sa, sc, /*acc=*/true), true, true, true),
       halt()});
  MachineConfig config = MachineConfig::getDefault();
  Simulator sim(config, p);
  writeBf16(sim, kA, a);
  writeBf16(sim, kB, b);
  writeBf16(sim, kC, c0);
  auto r = sim.run();
  ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
  std::vector<float> c = readF32(sim, kD, m * sc);
  std::vector<uint16_t> cAcc = readBf16(sim, kC, m * sc);
  for (uint16_t i = 0; i < m; ++i)
    for (uint16_t j = 0; j < n; ++j) {
      // The reference: APFloat IEEE single, products exact (8 x 8
      // significand bits), summed in k order, rounded to nearest even.
      APFloat acc(0.0f), accB = apBf16(c0[i * sc + j]);
      bool lost;
      accB.convert(APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven, &lost);
      for (uint16_t kk = 0; kk < k; ++kk) {
        APFloat prod = apBf16(a[i * sa + kk]);
        prod.convert(APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven,
                     &lost);
        APFloat bv = apBf16(b[kk * n + j]);
        bv.convert(APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven, &lost);
        EXPECT_EQ(prod.multiply(bv, APFloat::rmNearestTiesToEven),
                  APFloat::opOK); // exact
        acc.add(prod, APFloat::rmNearestTiesToEven);
        accB.add(prod, APFloat::rmNearestTiesToEven);
      }
      EXPECT_EQ(c[i * sc + j], acc.convertToFloat()) << i << "," << j;
      EXPECT_EQ(cAcc[i * sc + j], apRound(accB.convertToFloat()))
          << i << "," << j;
    }
}

TEST(BFloat16Test, DmaMovesTwoByteElements) {
  // HBM xb (bf16, seed 9) holds roundToBf16(initValue(9, i)) at xb + 2i.
  // dma.issue of 4 rows x 100 bf16, source stride 300, destination stride
  // 128 (both in elements): 4 x 100 x 2 = 800 bytes.
  MachineConfig config = configFrom(R"json({
    "scalar": { "latency": 1 },
    "dma": { "burst_bytes": 1, "links": [
      { "src": "hbm", "dst": "vmem", "base_latency": 100,
        "bytes_per_cycle": 64 } ] }
  })json",
                                    "bf16-test.json");
  Inst dma = dmaIssue(3, 1, 2, MemSpace::HBM, MemSpace::VMEM, 4, 100, 300, 128);
  dma.flags |= isa::kFlagDma16;
  isa::Program p =
      makeProgram({li(1, kXb), li(2, kA), dma, dmaWait(3), halt()});
  Simulator sim(config, p);
  auto r = sim.run();
  ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
  const DmaTiming &t = sim.getDmaEngine().get(0);
  EXPECT_EQ(t.bytes, 800u);
  // ISSUE at 2: base latency to 102, 800 / 64 = 12.5 -> 13 cycles: 115.
  EXPECT_EQ(t.complete, 115u);
  std::vector<uint16_t> got = readBf16(sim, kA, 4 * 128);
  for (uint64_t row = 0; row < 4; ++row)
    for (uint64_t col = 0; col < 100; ++col)
      ASSERT_EQ(got[row * 128 + col],
                f32ToBf16(isa::initValue(9, row * 300 + col)))
          << row << "," << col;
  // Elements past a row's 100 stay zero.
  EXPECT_EQ(got[100], 0u);
}

TEST(BFloat16Test, Bf16TilesAlignToTwoBytes) {
  // A bf16 tile may start at any even address; an odd one faults.
  isa::Program ok =
      makeProgram({li(1, kA + 2), li(2, kB + 6),
                   bf16(vcopy(2, 1, 1, 8, 8, 8), true, false, true), halt()});
  MachineConfig config = MachineConfig::getDefault();
  Simulator sim(config, ok);
  EXPECT_TRUE(bool(sim.run()));
  isa::Program bad =
      makeProgram({li(1, kA + 1), li(2, kB),
                   bf16(vcopy(2, 1, 1, 8, 8, 8), true, false, true), halt()});
  Simulator badSim(config, bad);
  auto r = badSim.run();
  ASSERT_FALSE(bool(r));
  EXPECT_NE(llvm::toString(r.takeError())
                .find("VMEM access misaligned: VPU operand x at byte "
                      "address 1, which is not a multiple of 2"),
            std::string::npos);
}

TEST(BFloat16Test, AdjacentBf16BandsNeitherRaceNorWait) {
  // Two DMAs store adjacent 2 x 8 bf16 column bands of the same rows of
  // HBM out (row stride 48 elements), the second band first: bytes
  // [16, 32) and then [0, 16) of each row, disjoint, though 4-byte elements
  // would make the second overlap the first (a false data race). Then
  // vpu.fill writes a 2 x 8 bf16 band of VMEM b (row stride 16) and
  // vpu.copy reads the band next to it while the fill is in flight: no
  // data-hazard stall.
  MachineConfig config = configFrom(kTwoLinkConfig, "bf16-test.json");
  auto store = [](uint8_t rd, uint8_t src, uint8_t dst) {
    Inst d = dmaIssue(rd, src, dst, MemSpace::VMEM, MemSpace::HBM, 2, 8, 8, 48);
    d.flags |= isa::kFlagDma16;
    return d;
  };
  isa::Program p = makeProgram(
      {li(3, kA + 32), li(4, kOut + 16), store(7, 3, 4), li(1, kA), li(2, kOut),
       store(8, 1, 2), li(10, kB), li(11, kB + 16), li(12, kC),
       bf16(vfill(10, 2, 8, 16, 1.0f), false, false, true),
       bf16(vcopy(12, 11, 2, 8, 16, 8), true, false, false), dmaWait(7),
       dmaWait(8), halt()});
  Simulator sim(config, p);
  auto r = sim.run();
  ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
  EXPECT_EQ(r->stallCycles[size_t(StallCause::DataHazard)], 0u);
}

TEST(BFloat16Test, DisassemblyNamesBf16Operands) {
  EXPECT_EQ(isa::toString(bf16(matmul(3, 1, 2, 8, 128, 128, 128, 128), true,
                               true, false)),
            "mxu.matmul r3, r1, r2, m=8 n=128 k=128 sa=128 sc=128 a:bf16 "
            "b:bf16");
  EXPECT_EQ(
      isa::toString(bf16(vcopy(2, 1, 8, 128, 128, 128), false, false, true)),
      "vpu.copy r2, r1, 8x128, s=128,128 out:bf16");
  Inst dma = dmaIssue(3, 1, 2, MemSpace::HBM, MemSpace::VMEM, 8, 128, 256, 128);
  dma.flags |= isa::kFlagDma16;
  EXPECT_EQ(isa::toString(dma),
            "dma.issue r3, r1, r2, hbm->vmem, 8x128, s=256,128, bf16");
}

} // namespace
