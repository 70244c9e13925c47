//===- IsaTest.cpp - Encoding, decoding, printing and images --------------===//

#include "accel/ISA/Isa.h"
#include "accel/Support/FloatMax.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <iterator>
#include <cstdint>
#include <limits>
#include <set>
#include <string>
#include <vector>

using namespace accel;
using namespace accel::isa;

namespace {

struct OpcodeRow {
  Opcode op;
  uint8_t value;
  const char *mnemonic;
  Unit unit;
  InstFormat format;
};

// Every opcode of the table, read from the same .def file.
const OpcodeRow kAllOpcodes[] = {
#define ACCEL_OPCODE(Enum, Value, Mnemonic, U, Format, Cost, Flops)            \
  {Opcode::Enum, Value, Mnemonic, Unit::U, InstFormat::Format},
#include "accel/ISA/Opcodes.def"
};

/// An instruction with every field nonzero and distinct.
Inst fullInst(Opcode op) {
  Inst i;
  i.op = op;
  i.rd = 0x11;
  i.rs1 = 0x22;
  i.rs2 = 0x33;
  i.rs3 = 0x44;
  i.flags = 0x55;
  i.a = 0x6677;
  i.b = 0x8899;
  i.s1 = 0xaabb;
  i.s2 = 0xccdd;
  i.s3 = 0xeeff;
  return i;
}

void expectSameInst(const Inst &x, const Inst &y) {
  EXPECT_EQ(x.op, y.op);
  EXPECT_EQ(x.rd, y.rd);
  EXPECT_EQ(x.rs1, y.rs1);
  EXPECT_EQ(x.rs2, y.rs2);
  EXPECT_EQ(x.rs3, y.rs3);
  EXPECT_EQ(x.flags, y.flags);
  EXPECT_EQ(x.a, y.a);
  EXPECT_EQ(x.b, y.b);
  EXPECT_EQ(x.s1, y.s1);
  EXPECT_EQ(x.s2, y.s2);
  EXPECT_EQ(x.s3, y.s3);
}

std::string errorText(llvm::Error e) { return llvm::toString(std::move(e)); }

TEST(IsaTest, OpcodeTableMatchesDef) {
  // 17 scalar + 3 dma + 1 mxu + 28 vpu entries in Opcodes.def.
  EXPECT_EQ(std::size(kAllOpcodes), 49u);
  std::set<uint8_t> values;
  for (const OpcodeRow &row : kAllOpcodes) {
    SCOPED_TRACE(row.mnemonic);
    EXPECT_TRUE(values.insert(row.value).second) << "duplicate opcode value";
    const OpcodeInfo *oi = lookup(row.value);
    ASSERT_NE(oi, nullptr);
    EXPECT_EQ(oi->op, row.op);
    EXPECT_STREQ(oi->mnemonic, row.mnemonic);
    EXPECT_EQ(oi->unit, row.unit);
    EXPECT_EQ(oi->format, row.format);
    EXPECT_EQ(&info(row.op), oi);
  }
  EXPECT_EQ(lookup(0x13), nullptr);
  EXPECT_EQ(lookup(0xff), nullptr);
  EXPECT_EQ(unitName(Unit::Scalar), "scalar");
  EXPECT_EQ(unitName(Unit::Dma), "dma");
  EXPECT_EQ(unitName(Unit::Mxu), "mxu");
  EXPECT_EQ(unitName(Unit::Vpu), "vpu");
  EXPECT_EQ(memSpaceName(MemSpace::HBM), "hbm");
  EXPECT_EQ(memSpaceName(MemSpace::VMEM), "vmem");
}

TEST(IsaTest, EncodingLayoutIsLittleEndian) {
  Inst i = fullInst(Opcode::Matmul);
  auto bytes = encode(i);
  // Word 0: op rd rs1 rs2 rs3 flags a(lo, hi); word 1: b s1 s2 s3 (lo, hi).
  const std::array<uint8_t, kInstBytes> expected = {
      0x30, 0x11, 0x22, 0x33, 0x44, 0x55, 0x77, 0x66,
      0x99, 0x88, 0xbb, 0xaa, 0xdd, 0xcc, 0xff, 0xee};
  EXPECT_EQ(bytes, expected);
  // Word 1 read as imm: 0xeeffccddaabb8899 as a signed 64-bit value.
  EXPECT_EQ(uint64_t(i.imm()), 0xeeffccddaabb8899ULL);
}

TEST(IsaTest, EncodeDecodeRoundTripsEveryOpcode) {
  for (const OpcodeRow &row : kAllOpcodes) {
    SCOPED_TRACE(row.mnemonic);
    Inst in = fullInst(row.op);
    auto bytes = encode(in);
    EXPECT_EQ(bytes[0], row.value);
    auto out = decode(bytes);
    ASSERT_TRUE(bool(out)) << errorText(out.takeError());
    expectSameInst(in, *out);
    // And the re-encoding is byte-identical.
    EXPECT_EQ(encode(*out), bytes);
  }
}

TEST(IsaTest, DecodeUnknownOpcodeFails) {
  for (uint8_t bad :
       {uint8_t(0x13), uint8_t(0x0e), uint8_t(0x5c), uint8_t(0xff)}) {
    std::array<uint8_t, kInstBytes> bytes{};
    bytes[0] = bad;
    auto r = decode(bytes);
    ASSERT_FALSE(bool(r));
    char expected[32];
    snprintf(expected, sizeof(expected), "unknown opcode 0x%02x", bad);
    EXPECT_EQ(errorText(r.takeError()), expected);
  }
}

TEST(IsaTest, DecodeTruncatedInstructionFails) {
  std::array<uint8_t, kInstBytes> bytes = encode(fullInst(Opcode::Add));
  auto r = decode(llvm::ArrayRef<uint8_t>(bytes).take_front(15));
  ASSERT_FALSE(bool(r));
  EXPECT_EQ(errorText(r.takeError()), "truncated instruction: 15 of 16 bytes");
  auto empty = decode(llvm::ArrayRef<uint8_t>());
  ASSERT_FALSE(bool(empty));
  EXPECT_EQ(errorText(empty.takeError()),
            "truncated instruction: 0 of 16 bytes");
}

TEST(IsaTest, ImmSignRoundTrip) {
  const int64_t values[] = {0,
                            1,
                            -1,
                            -2,
                            -128,
                            -65536,
                            -123456789012LL,
                            123456789012LL,
                            std::numeric_limits<int64_t>::min(),
                            std::numeric_limits<int64_t>::max()};
  for (int64_t v : values) {
    SCOPED_TRACE(v);
    Inst i;
    i.op = Opcode::Li;
    i.rd = 7;
    i.setImm(v);
    EXPECT_EQ(i.imm(), v);
    auto out = decode(encode(i));
    ASSERT_TRUE(bool(out)) << errorText(out.takeError());
    EXPECT_EQ(out->imm(), v);
  }
  // -1 is all ones in every 16-bit chunk of word 1.
  Inst m;
  m.setImm(-1);
  EXPECT_EQ(m.b, 0xffff);
  EXPECT_EQ(m.s1, 0xffff);
  EXPECT_EQ(m.s2, 0xffff);
  EXPECT_EQ(m.s3, 0xffff);
  // -2 = 0xffff'ffff'ffff'fffe.
  m.setImm(-2);
  EXPECT_EQ(m.b, 0xfffe);
  EXPECT_EQ(m.s3, 0xffff);
  // 0x0001'0002'0003'0004 splits into four chunks, low first.
  m.setImm(0x0001000200030004LL);
  EXPECT_EQ(m.b, 4);
  EXPECT_EQ(m.s1, 3);
  EXPECT_EQ(m.s2, 2);
  EXPECT_EQ(m.s3, 1);
  Inst li;
  li.op = Opcode::Li;
  li.rd = 3;
  li.setImm(-42);
  EXPECT_EQ(toString(li), "li r3, -42");
}

TEST(IsaTest, DmaFlagsSelectMemSpaces) {
  Inst i;
  i.flags = 0; // bit 0: src, bit 1: dst
  EXPECT_EQ(i.dmaSrc(), MemSpace::HBM);
  EXPECT_EQ(i.dmaDst(), MemSpace::HBM);
  i.flags = 2;
  EXPECT_EQ(i.dmaSrc(), MemSpace::HBM);
  EXPECT_EQ(i.dmaDst(), MemSpace::VMEM);
  i.flags = 1;
  EXPECT_EQ(i.dmaSrc(), MemSpace::VMEM);
  EXPECT_EQ(i.dmaDst(), MemSpace::HBM);
  i.flags = 3;
  EXPECT_EQ(i.dmaSrc(), MemSpace::VMEM);
  EXPECT_EQ(i.dmaDst(), MemSpace::VMEM);
}

TEST(IsaTest, DisassembleDmaIssue) {
  Inst i;
  i.op = Opcode::DmaIssue;
  i.rd = 9;
  i.rs1 = 3;
  i.rs2 = 4;
  i.flags = 2; // src hbm (bit 0 = 0), dst vmem (bit 1 = 1)
  i.a = 128;
  i.b = 128;
  i.s1 = 11008;
  i.s2 = 128;
  // The example of Isa.h.
  EXPECT_EQ(toString(i), "dma.issue r9, r3, r4, hbm->vmem, 128x128, s=11008,128");

  i.rd = 1;
  i.rs1 = 20;
  i.rs2 = 21;
  i.flags = 1; // vmem -> hbm
  i.a = 2;
  i.b = 64;
  i.s1 = 64;
  i.s2 = 4096;
  EXPECT_EQ(toString(i), "dma.issue r1, r20, r21, vmem->hbm, 2x64, s=64,4096");
}

TEST(IsaTest, DisassembleMatmul) {
  Inst i;
  i.op = Opcode::Matmul;
  i.rs3 = 5; // C
  i.rs1 = 6; // A
  i.rs2 = 7; // B
  i.a = 64;  // m
  i.b = 128; // n
  i.s1 = 256; // k
  i.s2 = 256; // A row stride
  i.s3 = 128; // C row stride
  EXPECT_EQ(toString(i), "mxu.matmul r5, r6, r7, m=64 n=128 k=256 sa=256 sc=128");
  i.flags = kFlagAccumulate;
  EXPECT_EQ(toString(i),
            "mxu.matmul r5, r6, r7, m=64 n=128 k=256 sa=256 sc=128 acc");
}

TEST(IsaTest, DisassembleOtherFormats) {
  Inst i;
  i.op = Opcode::Halt;
  EXPECT_EQ(toString(i), "halt");
  i = Inst();
  i.op = Opcode::Add;
  i.rd = 1, i.rs1 = 2, i.rs2 = 3;
  EXPECT_EQ(toString(i), "add r1, r2, r3");
  i = Inst();
  i.op = Opcode::Addi;
  i.rd = 4, i.rs1 = 4;
  i.setImm(-8);
  EXPECT_EQ(toString(i), "addi r4, r4, -8");
  i = Inst();
  i.op = Opcode::Blt;
  i.rs1 = 1, i.rs2 = 2;
  i.setImm(3);
  EXPECT_EQ(toString(i), "blt r1, r2, @3");
  i = Inst();
  i.op = Opcode::Jmp;
  i.setImm(12);
  EXPECT_EQ(toString(i), "jmp @12");
  i = Inst();
  i.op = Opcode::DmaWait;
  i.rs1 = 9;
  EXPECT_EQ(toString(i), "dma.wait r9");
  i = Inst();
  i.op = Opcode::VAdd;
  i.rs3 = 3, i.rs1 = 1, i.rs2 = 2;
  i.a = 2, i.b = 3, i.s1 = 4, i.s2 = 5, i.s3 = 6;
  i.flags = kFlagBroadcast;
  EXPECT_EQ(toString(i), "vpu.add r3, r1, r2, 2x3, s=4,5,6 bcast");
  i.flags = kFlagBroadcastRow;
  EXPECT_EQ(toString(i), "vpu.add r3, r1, r2, 2x3, s=4,5,6 rbcast");
  i = Inst();
  i.op = Opcode::VRSum;
  i.rs3 = 3, i.rs1 = 1;
  i.a = 8, i.b = 16, i.s1 = 16, i.s3 = 1;
  EXPECT_EQ(toString(i), "vpu.rsum r3, r1, 8x16, s=16,1");
  i = Inst();
  i.op = Opcode::VFill;
  i.rs3 = 2;
  i.a = 2, i.b = 3, i.s3 = 3;
  // 2.5f = 0x40200000: s1 = low half, s2 = high half.
  i.s1 = 0x0000;
  i.s2 = 0x4020;
  EXPECT_EQ(i.fillBits(), 0x40200000u);
  EXPECT_EQ(toString(i), "vpu.fill r2, 2x3, s=3, 2.5");
  // ISA version 9: the predicate of vpu.cmp (rd) by name, vpu.iota's base
  // register and axis.
  i = Inst();
  i.op = Opcode::VCmp;
  i.rd = 3; // oge
  i.rs3 = 3, i.rs1 = 1, i.rs2 = 2;
  i.a = 2, i.b = 3, i.s1 = 4, i.s2 = 1, i.s3 = 6;
  i.flags = kFlagBroadcast;
  EXPECT_EQ(toString(i), "vpu.cmp oge, r3, r1, r2, 2x3, s=4,1,6 bcast");
  i.rd = 200;
  EXPECT_EQ(toString(i), "vpu.cmp ?, r3, r1, r2, 2x3, s=4,1,6 bcast");
  i = Inst();
  i.op = Opcode::VIota;
  i.rs3 = 5, i.rs1 = 7;
  i.a = 8, i.b = 1, i.s3 = 1;
  EXPECT_EQ(toString(i), "vpu.iota r5, r7, 8x1, s=1, rows");
  i.flags = kFlagIotaCols | kFlagBf16Rs3;
  EXPECT_EQ(toString(i), "vpu.iota r5, r7, 8x1, s=1, cols out:bf16");
  i = Inst();
  i.op = Opcode::VTranspose;
  i.rs3 = 2, i.rs1 = 1;
  i.a = 8, i.b = 128, i.s1 = 128, i.s3 = 8;
  EXPECT_EQ(toString(i), "vpu.transpose r2, r1, 8x128, s=128,8");
  EXPECT_EQ(getVpuOutputShape(i), std::make_pair(uint64_t(128), uint64_t(8)));
}

// vpu.cmp's predicates are arith.cmpf's: ordered ones are false and
// unordered ones true when an operand is NaN (docs/isa.md, "NaN").
TEST(IsaTest, CmpPredicatesFollowIeee) {
  float nan = std::numeric_limits<float>::quiet_NaN();
  // false oeq ogt oge olt ole one ord ueq ugt uge ult ule une uno true
  const bool lessThan[] = {0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 1, 1, 1, 0, 1};
  const bool equal[] = {0, 1, 0, 1, 0, 1, 0, 1, 1, 0, 1, 0, 1, 0, 0, 1};
  const bool unordered[] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1};
  for (unsigned p = 0; p < kNumCmpPredicates; ++p) {
    EXPECT_EQ(compareF(p, 1.0f, 2.0f), lessThan[p])
        << cmpPredicateName(p).str();
    EXPECT_EQ(compareF(p, 2.0f, 2.0f), equal[p]) << cmpPredicateName(p).str();
    EXPECT_EQ(compareF(p, nan, 2.0f), unordered[p])
        << cmpPredicateName(p).str();
    EXPECT_EQ(compareF(p, 2.0f, nan), unordered[p])
        << cmpPredicateName(p).str();
  }
  EXPECT_TRUE(compareF(1, -0.0f, 0.0f)); // oeq: -0 == +0
  EXPECT_EQ(cmpPredicateName(15), "true");
}

Program sampleProgram() {
  Program p;
  p.name = "sample";
  Inst li;
  li.op = Opcode::Li;
  li.rd = 1;
  li.setImm(-5);
  Inst dma = fullInst(Opcode::DmaIssue);
  Inst mm = fullInst(Opcode::Matmul);
  Inst halt;
  halt.op = Opcode::Halt;
  p.code = {li, dma, mm, halt};
  p.origins = {{1, "accel.const", "a.mlir:1:1"},
               {2, "accel.dma_start", "a.mlir:2:3"},
               {3, "accel.matmul", "a.mlir:3:5"},
               {0, "", ""}};
  Buffer x;
  x.name = "x";
  x.space = MemSpace::HBM;
  x.base = 0x100000000ULL;
  x.bytes = 4096;
  x.shape = {32, 32};
  x.seed = 0xdeadbeef;
  Buffer out;
  out.name = "out";
  out.space = MemSpace::HBM;
  out.base = 0x200000000ULL;
  out.bytes = 64;
  out.shape = {4, 4};
  out.init = isa::BufferInit::Zero;
  Buffer v;
  v.name = "v0";
  v.space = MemSpace::VMEM;
  v.base = 1024;
  v.bytes = 2048;
  v.shape = {-1, 512}; // a negative dimension survives the u64 encoding
  p.buffers = {x, out, v};
  return p;
}

void expectSameProgram(const Program &x, const Program &y) {
  EXPECT_EQ(x.isaVersion, y.isaVersion);
  EXPECT_EQ(x.name, y.name);
  EXPECT_EQ(x.fingerprint, y.fingerprint);
  ASSERT_EQ(x.code.size(), y.code.size());
  for (size_t i = 0; i < x.code.size(); ++i) {
    SCOPED_TRACE("instruction " + std::to_string(i));
    expectSameInst(x.code[i], y.code[i]);
  }
  ASSERT_EQ(x.buffers.size(), y.buffers.size());
  for (size_t i = 0; i < x.buffers.size(); ++i) {
    SCOPED_TRACE("buffer " + std::to_string(i));
    EXPECT_EQ(x.buffers[i].name, y.buffers[i].name);
    EXPECT_EQ(x.buffers[i].space, y.buffers[i].space);
    EXPECT_EQ(x.buffers[i].base, y.buffers[i].base);
    EXPECT_EQ(x.buffers[i].bytes, y.buffers[i].bytes);
    EXPECT_EQ(x.buffers[i].shape, y.buffers[i].shape);
    EXPECT_EQ(x.buffers[i].init, y.buffers[i].init);
    EXPECT_EQ(x.buffers[i].getData(), y.buffers[i].getData());
    EXPECT_EQ(x.buffers[i].seed, y.buffers[i].seed);
    EXPECT_EQ(x.buffers[i].elemType, y.buffers[i].elemType);
  }
  ASSERT_EQ(x.origins.size(), y.origins.size());
  for (size_t i = 0; i < x.origins.size(); ++i) {
    SCOPED_TRACE("origin " + std::to_string(i));
    EXPECT_EQ(x.origins[i].opId, y.origins[i].opId);
    EXPECT_EQ(x.origins[i].opName, y.origins[i].opName);
    EXPECT_EQ(x.origins[i].loc, y.origins[i].loc);
  }
}

TEST(IsaTest, ImageRoundTrip) {
  Program p = sampleProgram();
  std::vector<uint8_t> image = p.toImage();
  // Header: "ACCELBIN", version 10 (u32 LE), name length 6, "sample", an
  // empty fingerprint (length 0).
  ASSERT_GE(image.size(), 26u);
  EXPECT_EQ(std::string(image.begin(), image.begin() + 8), "ACCELBIN");
  EXPECT_EQ(image[8], 10);
  EXPECT_EQ(image[9], 0);
  EXPECT_EQ(image[12], 6);
  EXPECT_EQ(std::string(image.begin() + 16, image.begin() + 22), "sample");
  // Size: 8 magic + 4 version + (4+6) name + 4 fingerprint + 4 count
  //   + 4*16 code
  //   + 4 buffer count
  //   + x:   (4+1) + 1 + 1 + 1 + 4 + 8 + 8 + 4 + 2*8 = 48
  //   + out: (4+3) + 1 + 1 + 1 + 4 + 8 + 8 + 4 + 2*8 = 50
  //   + v0:  (4+2) + 1 + 1 + 1 + 4 + 8 + 8 + 4 + 2*8 = 49
  //   + 4 origin count
  //   + (4 + 4+11 + 4+10 + 4) + (4 + 4+15 + 4+10 + 4) + (4 + 4+12 + 4+10 + 4)
  //   + (4 + 4 + 4 + 4) = 37 + 41 + 38 + 16   (each origin ends with its
  //   loop id)
  //   + 4 loop count (no loops)
  EXPECT_EQ(image.size(), 8u + 4 + 10 + 4 + 4 + 64 + 4 + 48 + 50 + 49 + 4 + 37 +
                              41 + 38 + 16 + 4);

  auto back = Program::fromImage(image);
  ASSERT_TRUE(bool(back)) << errorText(back.takeError());
  expectSameProgram(p, *back);
  EXPECT_EQ(back->toImage(), image);

  // The fingerprint round-trips (4 bytes of length, then its 16 digits).
  p.fingerprint = "0123456789abcdef";
  std::vector<uint8_t> withFingerprint = p.toImage();
  EXPECT_EQ(withFingerprint.size(), image.size() + 16);
  auto fp = Program::fromImage(withFingerprint);
  ASSERT_TRUE(bool(fp)) << errorText(fp.takeError());
  EXPECT_EQ(fp->fingerprint, "0123456789abcdef");
  expectSameProgram(p, *fp);

  // An empty program round-trips too.
  Program empty;
  auto e = Program::fromImage(empty.toImage());
  ASSERT_TRUE(bool(e)) << errorText(e.takeError());
  expectSameProgram(empty, *e);
}

TEST(IsaTest, ImageBadMagic) {
  std::vector<uint8_t> image = sampleProgram().toImage();
  image[3] = 'X';
  auto r = Program::fromImage(image);
  ASSERT_FALSE(bool(r));
  EXPECT_EQ(errorText(r.takeError()),
            "not an accel image: bad magic at byte offset 0");
}

TEST(IsaTest, ImageWrongIsaVersion) {
  std::vector<uint8_t> image = sampleProgram().toImage();
  image[8] = 1; // version field: bytes 8..11 (version 1 had no loop table)
  auto r = Program::fromImage(image);
  ASSERT_FALSE(bool(r));
  EXPECT_EQ(errorText(r.takeError()),
            "unsupported ISA version 1 at byte offset 8 (this build reads 10)");
}

TEST(IsaTest, ImageUnknownOpcode) {
  std::vector<uint8_t> image = sampleProgram().toImage();
  // Code starts at 8 + 4 + (4 + 6) + 4 + 4 = 30; instruction 1 at 30 + 16
  // = 46.
  ASSERT_EQ(image[46], uint8_t(Opcode::DmaIssue));
  image[46] = 0x13;
  auto r = Program::fromImage(image);
  ASSERT_FALSE(bool(r));
  EXPECT_EQ(errorText(r.takeError()),
            "byte offset 46 (instruction 1): unknown opcode 0x13");
}

TEST(IsaTest, ImageTruncatedAtEveryPrefixFails) {
  std::vector<uint8_t> image = sampleProgram().toImage();
  llvm::ArrayRef<uint8_t> all(image);
  for (size_t len = 0; len < image.size(); ++len) {
    SCOPED_TRACE("prefix length " + std::to_string(len));
    auto r = Program::fromImage(all.take_front(len));
    ASSERT_FALSE(bool(r));
    std::string msg = errorText(r.takeError());
    if (len < 8)
      EXPECT_EQ(msg, "not an accel image: bad magic at byte offset 0");
    else
      EXPECT_EQ(msg.rfind("truncated image at byte offset ", 0), 0u) << msg;
  }
}

TEST(IsaTest, ImageTruncatedMessagesNameTheOffset) {
  std::vector<uint8_t> image = sampleProgram().toImage();
  llvm::ArrayRef<uint8_t> all(image);
  auto cut = [&](size_t len) {
    auto r = Program::fromImage(all.take_front(len));
    EXPECT_FALSE(bool(r));
    return r ? std::string("<success>") : errorText(r.takeError());
  };
  // Layout: magic [0,8), version [8,12), name length [12,16), name [16,22),
  // fingerprint length [22,26) (no digits), instruction count [26,30),
  // code [30,94), buffer count [94,98), ...
  EXPECT_EQ(cut(0), "not an accel image: bad magic at byte offset 0");
  EXPECT_EQ(cut(7), "not an accel image: bad magic at byte offset 0");
  EXPECT_EQ(cut(8),
            "truncated image at byte offset 8 while reading ISA version");
  EXPECT_EQ(cut(11),
            "truncated image at byte offset 8 while reading ISA version");
  EXPECT_EQ(cut(14),
            "truncated image at byte offset 12 while reading program name");
  EXPECT_EQ(cut(19),
            "truncated image at byte offset 16 while reading program name");
  EXPECT_EQ(cut(24), "truncated image at byte offset 22 while reading "
                     "program fingerprint");
  EXPECT_EQ(cut(26),
            "truncated image at byte offset 26 while reading instruction count");
  EXPECT_EQ(cut(30),
            "truncated image at byte offset 30 while reading instruction");
  EXPECT_EQ(cut(54), // inside instruction 1, which starts at 46
            "truncated image at byte offset 46 while reading instruction");
  EXPECT_EQ(cut(94),
            "truncated image at byte offset 94 while reading buffer count");
  EXPECT_EQ(cut(100),
            "truncated image at byte offset 98 while reading buffer name");
  // Buffer x: name [98,103), space 103, init 104, element type 105, seed
  // [106,110), base [110,118).
  EXPECT_EQ(cut(103),
            "truncated image at byte offset 103 while reading buffer space");
  EXPECT_EQ(cut(104),
            "truncated image at byte offset 104 while reading buffer init");
  EXPECT_EQ(cut(105), "truncated image at byte offset 105 while reading "
                      "buffer element type");
  EXPECT_EQ(cut(108),
            "truncated image at byte offset 106 while reading buffer seed");
  EXPECT_EQ(cut(114),
            "truncated image at byte offset 110 while reading buffer base");
  // The last four bytes are the loop count; before them the last origin's
  // loop id.
  EXPECT_EQ(cut(image.size() - 1),
            "truncated image at byte offset " +
                std::to_string(image.size() - 4) + " while reading loop count");
  EXPECT_EQ(cut(image.size() - 5),
            "truncated image at byte offset " +
                std::to_string(image.size() - 8) +
                " while reading origin loop id");
}

TEST(IsaTest, ImageHugeCountsFailCleanly) {
  Program p = sampleProgram();
  std::vector<uint8_t> image = p.toImage();
  // Instruction count at [26, 30) set to 0xffffffff: the reader runs into
  // the buffer table (decoding garbage or running out of bytes) and fails.
  for (int i = 26; i < 30; ++i)
    image[i] = 0xff;
  auto r = Program::fromImage(image);
  ASSERT_FALSE(bool(r));
  EXPECT_NE(errorText(r.takeError()).find("byte offset"), std::string::npos);

  // Name length at [12, 16) set to 0xffffffff.
  image = p.toImage();
  for (int i = 12; i < 16; ++i)
    image[i] = 0xff;
  auto r2 = Program::fromImage(image);
  ASSERT_FALSE(bool(r2));
  EXPECT_EQ(errorText(r2.takeError()),
            "truncated image at byte offset 16 while reading program name");
}

// ISA version 10: a constant of the program is an HBM buffer whose data the
// image carries right after its record (docs/isa.md, "Binary image
// format"); init bytes past 3 and data on a VMEM buffer are errors.
TEST(IsaTest, ImageCarriesBufferData) {
  Program p;
  p.name = "k";
  Buffer c;
  c.name = "@c";
  c.space = MemSpace::HBM;
  c.base = 65536;
  c.bytes = 8;
  c.shape = {2};
  c.init = BufferInit::Data;
  c.data = std::make_shared<const std::vector<uint8_t>>(
      std::vector<uint8_t>{1, 2, 3, 4, 5, 6, 7, 8});
  p.buffers = {c};
  std::vector<uint8_t> image = p.toImage();
  // 8 magic + 4 version + (4+1) name + 4 fingerprint + 4 count + 4 buffer
  // count + the record (4+2) + 1 + 1 + 1 + 4 + 8 + 8 + 4 + 8 = 41, its 8
  // data bytes, 4 origin count, 4 loop count.
  ASSERT_EQ(image.size(), 8u + 4 + 5 + 4 + 4 + 4 + 41 + 8 + 4 + 4);
  EXPECT_EQ(image[8], 10);
  const size_t initAt = 29 + 6 + 1, dataAt = 29 + 41;
  EXPECT_EQ(image[initAt], 3);
  EXPECT_EQ(
      std::vector<uint8_t>(image.begin() + dataAt, image.begin() + dataAt + 8),
      c.getData().vec());
  auto back = Program::fromImage(image);
  ASSERT_TRUE(bool(back)) << errorText(back.takeError());
  expectSameProgram(p, *back);
  EXPECT_EQ(back->toImage(), image);

  // The data stops short of the size.
  auto r =
      Program::fromImage(llvm::ArrayRef<uint8_t>(image).take_front(dataAt + 7));
  ASSERT_FALSE(bool(r));
  EXPECT_EQ(errorText(r.takeError()), "truncated image at byte offset " +
                                          std::to_string(dataAt) +
                                          " while reading buffer data");
  // An init byte no version defines.
  std::vector<uint8_t> bad = image;
  bad[initAt] = 4;
  r = Program::fromImage(bad);
  ASSERT_FALSE(bool(r));
  EXPECT_EQ(errorText(r.takeError()),
            "byte offset " + std::to_string(initAt) +
                " (buffer 0 '@c'): init 4 is none of 0 (initValue), 1 "
                "(zeros), 2 (iota), 3 (data)");
  // Initial data on a VMEM buffer.
  bad = image;
  bad[initAt - 1] = 1;
  r = Program::fromImage(bad);
  ASSERT_FALSE(bool(r));
  EXPECT_EQ(errorText(r.takeError()),
            "byte offset " + std::to_string(initAt) +
                " (buffer 0 '@c'): a VMEM buffer with initial data (init "
                "3); only HBM buffers have initial contents");
}

TEST(IsaTest, InitValueIsDeterministicAndInRange) {
  // splitmix64 of index + 0x9e3779b97f4a7c15 * (seed + 1). For seed 0 and
  // index 0 this is the first splitmix64 output of state 0,
  // 0xe220a8397b1dcdaf; its top 24 bits are 0xe220a8 = 14819496, so
  // (14819496 / 2^24 - 0.5) * 0.25 = (14819496 - 8388608) / 2^26
  // = 6430888 / 2^26 (exact in f32).
  EXPECT_EQ(initValue(0, 0), 6430888.0f / 67108864.0f);
  // Seed 1, index 0: state 2 * golden = second splitmix64 output of state 0,
  // 0x6e789e6aa1b965f4; top 24 bits 0x6e789e = 7239838;
  // (7239838 - 8388608) / 2^26 = -1148770 / 2^26.
  EXPECT_EQ(initValue(1, 0), -1148770.0f / 67108864.0f);

  bool sawNegative = false, sawPositive = false;
  for (uint32_t seed : {0u, 1u, 7u, 0xdeadbeefu, 0xffffffffu}) {
    for (uint64_t idx = 0; idx < 4096; ++idx) {
      float v = initValue(seed, idx);
      ASSERT_EQ(v, initValue(seed, idx)); // deterministic
      ASSERT_GE(v, -0.125f);
      ASSERT_LT(v, 0.125f);
      sawNegative |= v < 0;
      sawPositive |= v > 0;
    }
  }
  EXPECT_TRUE(sawNegative);
  EXPECT_TRUE(sawPositive);
  // Large indices are fine too.
  float far = initValue(3, uint64_t(1) << 40);
  EXPECT_GE(far, -0.125f);
  EXPECT_LT(far, 0.125f);
  // Different seeds give different streams.
  int same = 0;
  for (uint64_t idx = 0; idx < 256; ++idx)
    same += initValue(1, idx) == initValue(2, idx);
  EXPECT_LT(same, 4);
}

TEST(IsaTest, ListingNamesEveryInstruction) {
  Program p = sampleProgram();
  std::string text;
  llvm::raw_string_ostream os(text);
  p.printListing(os);
  EXPECT_EQ(
      text.rfind("; accel ISA v10 listing of 'sample': 4 instructions\n", 0),
      0u);
  EXPECT_NE(text.find("; buffer x hbm [0x100000000, 0x100001000) 4096 bytes\n"),
            std::string::npos);
  EXPECT_NE(text.find("    0: 02010000000000"), std::string::npos);
  EXPECT_NE(text.find("li r1, -5"), std::string::npos);
  EXPECT_NE(text.find(" ; op 3 accel.matmul @ a.mlir:3:5\n"), std::string::npos);
}

} // namespace
