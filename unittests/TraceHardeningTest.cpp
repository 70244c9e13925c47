//===- TraceHardeningTest.cpp - Hostile trace files and images ------------===//
//
// Regression tests for issue 12 ("Hardening"): every number the trace
// reader and the image decoder read is checked against the file and the
// machine config before anything is allocated or indexed by it, and a bad
// one is one error naming its byte offset and field. Each test below is a
// class of input that used to allocate until out of memory, throw, or read
// or write out of bounds (found by fuzz/fuzz-trace and fuzz/fuzz-image or
// reported by users).
//
// The traces are windows of makeLoopProgram() (TestPrograms.h) written to
// bytes; fields are patched at the offsets Trace::deserialize reports in
// Trace::layout, and the header's size and CRC-32 are recomputed so that
// only the checks under test can reject the result.
//
//===----------------------------------------------------------------------===//

#include "accel/ISA/Isa.h"
#include "accel/Replay/Recorder.h"
#include "accel/Replay/Replayer.h"
#include "accel/Replay/Trace.h"
#include "accel/Sim/Device.h"

#include "TestPrograms.h"

#include "llvm/Support/CRC.h"
#include "llvm/Support/Compression.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace accel;
using namespace accel::sim;
using namespace accel::test;
using accel::replay::DmaDescriptor;
using accel::replay::MemChunk;
using accel::replay::Replayer;
using accel::replay::Trace;
using isa::MemSpace;

namespace {

/// The error of Replayer::create, or of load(), or "" when both succeed.
std::string replayError(const Trace &trace) {
  auto r = Replayer::create(trace);
  if (!r)
    return llvm::toString(r.takeError());
  if (llvm::Error e = (*r)->load())
    return llvm::toString(std::move(e));
  return "";
}

class TraceHardeningTest : public ::testing::Test {
protected:
  MachineConfig config = makeLoopConfig("hardening.json");
  isa::Program program = makeLoopProgram();

  /// The window of 9 instructions from the first WAIT (pc 19): DMA 0 is in
  /// flight, r13 (its id) and the address registers are saved, and it
  /// writes VMEM (the vpu.add and the matmul of iteration 0, the DMA of
  /// iteration 1) and r6, r10-r13.
  Trace window() {
    Device device(config, program);
    return recordAt(device, program, config, 19, 1, 9);
  }
  /// The window written to bytes (plain payload) and read back, for its
  /// layout.
  std::vector<uint8_t> bytes;
  Trace read;
  void SetUp() override {
    bytes = window().serialize();
    auto t = Trace::deserialize(bytes);
    ASSERT_TRUE(bool(t)) << llvm::toString(t.takeError());
    read = std::move(*t);
    ASSERT_TRUE(read.layout.fromFile);
    ASSERT_EQ(read.pcs.size(), 9u);
    ASSERT_EQ(read.pendingDmas.size(), 1u);
    ASSERT_FALSE(read.writtenRanges.empty());
    ASSERT_FALSE(read.memory.empty());
  }
  /// `bytes` with a u32 / u64 at `at` set to `v`, resealed.
  std::vector<uint8_t> with32(uint64_t at, uint32_t v) const {
    std::vector<uint8_t> b = bytes;
    put32(b, at, v);
    resealHeader(b);
    return b;
  }
  std::vector<uint8_t> with64(uint64_t at, uint64_t v) const {
    std::vector<uint8_t> b = bytes;
    put64(b, at, v);
    resealHeader(b);
    return b;
  }
  std::vector<uint8_t> with8(uint64_t at, uint8_t v) const {
    std::vector<uint8_t> b = bytes;
    b[at] = v;
    resealHeader(b);
    return b;
  }
  /// The error of reading `b`, then (if it reads) of replaying it.
  std::string errorOfFile(const std::vector<uint8_t> &b) {
    auto t = Trace::deserialize(b);
    if (!t)
      return llvm::toString(t.takeError());
    return replayError(*t);
  }
  static std::string at(uint64_t offset) {
    return "invalid trace at byte " + std::to_string(offset) + ": ";
  }
};

TEST_F(TraceHardeningTest, TheRecordedWindowReplays) {
  auto r = Replayer::create(read);
  ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
  ASSERT_FALSE(bool((*r)->load()));
  auto summary = (*r)->run();
  ASSERT_TRUE(bool(summary)) << llvm::toString(summary.takeError());
  llvm::Error e = (*r)->checkResults();
  EXPECT_FALSE(bool(e)) << llvm::toString(std::move(e));
}

//===----------------------------------------------------------------------===//
// Sizes and counts against the file
//===----------------------------------------------------------------------===//

TEST_F(TraceHardeningTest, ZstdDeclaredSizeIsBoundedByTheFrame) {
  // The declared size was allocated before decompressing: 2^31 (or 2^64-1)
  // bytes for a frame of a few hundred.
  if (!Trace::canCompress())
    GTEST_SKIP() << "this LLVM has no zstd";
  std::vector<uint8_t> packed = window().serialize(true);
  ASSERT_EQ(packed[16], 1u);
  std::string frame = std::to_string(packed.size() - 40);
  for (uint64_t size : {uint64_t(1) << 31, ~uint64_t(0)}) {
    SCOPED_TRACE(size);
    put64(packed, 32, size);
    resealHeader(packed);
    EXPECT_EQ(errorOf(Trace::deserialize(packed)),
              at(32) + "the uncompressed size " + std::to_string(size) +
                  " is more than the " + frame +
                  "-byte zstd frame at byte 40 can hold (zstd regenerates at "
                  "most 32768 bytes per compressed byte)");
  }
  // A size the frame could hold but that is not its own: the decompressor
  // says so.
  put64(packed, 32, 7);
  resealHeader(packed);
  EXPECT_EQ(errorOf(Trace::deserialize(packed))
                .rfind("cannot decompress the payload at byte 40: ", 0),
            0u);
}

TEST_F(TraceHardeningTest, ZstdDeclaredSizeMustBeExact) {
  // Issue 31: a declared size one byte larger than the frame regenerates
  // was accepted (the decompressor stops at the frame's end and the reader
  // kept what came); it must equal the frame's size exactly.
  if (!Trace::canCompress())
    GTEST_SKIP() << "this LLVM has no zstd";
  std::vector<uint8_t> packed = window().serialize(true);
  ASSERT_EQ(packed[16], 1u);
  uint64_t size = le64(packed, 32);
  ASSERT_TRUE(bool(Trace::deserialize(packed)));
  put64(packed, 32, size + 1);
  resealHeader(packed);
  EXPECT_EQ(errorOf(Trace::deserialize(packed)),
            at(32) + "the uncompressed size is " + std::to_string(size + 1) +
                " bytes but the zstd frame at byte 40 holds " +
                std::to_string(size));
  // One byte smaller: the frame does not fit, the decompressor's error.
  put64(packed, 32, size - 1);
  resealHeader(packed);
  EXPECT_EQ(errorOf(Trace::deserialize(packed))
                .rfind("cannot decompress the payload at byte 40: ", 0),
            0u);
}

TEST_F(TraceHardeningTest, BytesAfterTheLastFieldAreRejected) {
  // A payload one byte longer than its fields (the header's payload size
  // and CRC-32 resealed): the byte was ignored.
  std::vector<uint8_t> b = bytes;
  b.push_back(0);
  resealHeader(b);
  EXPECT_EQ(errorOf(Trace::deserialize(b)),
            at(bytes.size()) +
                "1 byte after the last field (the written bytes CRC-32); "
                "the payload ends there");
  // The same inside a compressed payload, whose offsets are the payload's.
  if (Trace::canCompress()) {
    Trace t = window();
    std::vector<uint8_t> plain = t.serialize();
    std::vector<uint8_t> payload(plain.begin() + 32, plain.end());
    payload.push_back(7);
    llvm::SmallVector<uint8_t, 0> frame;
    llvm::compression::zstd::compress(payload, frame);
    std::vector<uint8_t> packed(plain.begin(), plain.begin() + 32);
    packed[16] = 1; // the zstd flag
    packed.resize(40);
    put64(packed, 32, payload.size());
    packed.insert(packed.end(), frame.begin(), frame.end());
    resealHeader(packed);
    EXPECT_EQ(errorOf(Trace::deserialize(packed)),
              "invalid trace payload at byte " +
                  std::to_string(payload.size() - 1) +
                  ": 1 byte after the last field (the written bytes "
                  "CRC-32); the payload ends there");
  }
  // A program image block one byte longer than the image: the image's own
  // check, named by the block's offset.
  std::vector<uint8_t> c = bytes;
  uint64_t imageAt = read.layout.image;
  uint64_t imageBytes = le64(c, imageAt - 8);
  put64(c, imageAt - 8, imageBytes + 1);
  c.insert(c.begin() + imageAt + imageBytes, uint8_t(0));
  resealHeader(c);
  EXPECT_EQ(errorOf(Trace::deserialize(c)),
            "program image at byte " + std::to_string(imageAt) +
                ": byte offset " + std::to_string(imageBytes) +
                ": 1 byte after the last field (the loop table); the image "
                "ends there");
}

TEST_F(TraceHardeningTest, CountsAreCheckedAgainstTheBytesLeft) {
  const replay::TraceLayout &l = read.layout;
  uint64_t end = bytes.size();
  struct Case {
    uint64_t countAt; // the count field
    bool wide;        // u64 (the PC count) or u32
    const char *what;
    uint64_t recordBytes;
    uint64_t first; // where the records start
  } cases[] = {
      {l.registers - 4, false, "registers", 9, l.registers},
      {l.memory[0] - 4, false, "memory chunks", 21, l.memory[0]},
      {l.dmas - 4, false, "DMAs in flight", 84, l.dmas},
      {l.pcs - 8, true, "PC sequence", 4, l.pcs},
      {l.finalRegisters - 4, false, "final registers", 9, l.finalRegisters},
      {l.writtenRanges - 4, false, "written ranges", 21, l.writtenRanges},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.what);
    uint64_t count = c.wide ? ~uint64_t(0) : 0xffffffffu;
    std::vector<uint8_t> b =
        c.wide ? with64(c.countAt, count) : with32(c.countAt, uint32_t(count));
    EXPECT_EQ(errorOf(Trace::deserialize(b)),
              "truncated trace at byte " + std::to_string(c.first) +
                  " while reading " + c.what + ": " + std::to_string(count) +
                  " announced, at least " + std::to_string(count) + " x " +
                  std::to_string(c.recordBytes) + " bytes, but " +
                  std::to_string(end - c.first) + " are left");
  }
}

//===----------------------------------------------------------------------===//
// Written ranges
//===----------------------------------------------------------------------===//

TEST_F(TraceHardeningTest, WrittenRangeWithBeginAfterEndIsRejected) {
  // The functional check resized a buffer to end - begin: std::length_error.
  uint64_t rec = read.layout.writtenRanges;
  const sim::AddrRange &w = read.writtenRanges[0];
  // A record: chip (u32), space (u8), begin, end.
  EXPECT_EQ(errorOfFile(with64(rec + 5, w.end + 1)),
            at(rec) + "written range 0 vmem [" + std::to_string(w.end + 1) +
                ", " + std::to_string(w.end) +
                ") is empty or reversed (begin >= end)");
  // An empty range is no range the recorder writes either.
  EXPECT_EQ(errorOfFile(with64(rec + 5, w.end)),
            at(rec) + "written range 0 vmem [" + std::to_string(w.end) + ", " +
                std::to_string(w.end) +
                ") is empty or reversed (begin >= end)");
  // Nor is one in another space than 0 or 1.
  EXPECT_EQ(errorOfFile(with8(rec + 4, 2)),
            at(rec + 4) + "written range space is 2 (0 = HBM, 1 = VMEM)");
  // Nor one on a chip other than the one the window replays (the last,
  // so that the order holds).
  size_t n = read.writtenRanges.size() - 1;
  uint64_t last = rec + 21 * n;
  EXPECT_EQ(errorOfFile(with32(last, 3)),
            at(last) + "written range " + std::to_string(n) +
                " is on chip 3; a window replays one chip, chip 0");
}

TEST_F(TraceHardeningTest, WrittenRangeNear2To31IsRejectedBeforeTheReplay) {
  // It used to allocate 2 GiB for the functional check.
  uint64_t rec = read.layout.writtenRanges;
  const sim::AddrRange &w = read.writtenRanges.back();
  uint64_t last = rec + 21 * (read.writtenRanges.size() - 1);
  std::string n = std::to_string(read.writtenRanges.size() - 1);
  EXPECT_EQ(errorOfFile(with64(last + 13, w.begin + (1ull << 31))),
            at(last) + "written range " + n + " vmem [" +
                std::to_string(w.begin) + ", " +
                std::to_string(w.begin + (1ull << 31)) +
                ") is not inside the program's buffers");
}

TEST_F(TraceHardeningTest, WrittenRangesMustBeOrderedAndDisjoint) {
  Trace t = read;
  ASSERT_GE(t.writtenRanges.size(), 1u);
  // A copy of the last range after itself overlaps it.
  std::vector<uint8_t> b = bytes;
  uint64_t countAt = t.layout.writtenRanges - 4;
  uint64_t last = t.layout.writtenRanges + 21 * (t.writtenRanges.size() - 1);
  std::vector<uint8_t> record(b.begin() + last, b.begin() + last + 21);
  b.insert(b.begin() + last + 21, record.begin(), record.end());
  put32(b, countAt, uint32_t(t.writtenRanges.size() + 1));
  resealHeader(b);
  const sim::AddrRange &w = t.writtenRanges.back();
  EXPECT_EQ(errorOf(Trace::deserialize(b)),
            at(last + 21) + "written range " +
                std::to_string(t.writtenRanges.size()) + " vmem [" +
                std::to_string(w.begin) + ", " + std::to_string(w.end) +
                ") overlaps or precedes the previous one (ranges are by "
                "chip, HBM first, by address, disjoint)");
}

TEST_F(TraceHardeningTest, WrittenRangesLargerThanTheWindowWritesAreRejected) {
  // Inside the buffers, but more bytes than the window's instructions
  // write: reading them back would materialize memory the replay never
  // wrote. Checked once the replay has followed the trace's PCs.
  Trace t = read;
  t.writtenRanges = {{MemSpace::VMEM, kA, kC + 4096}}; // a, b and c: 12 KiB
  auto r = Replayer::create(t);
  ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
  ASSERT_FALSE(bool((*r)->load()));
  auto summary = (*r)->run();
  ASSERT_TRUE(bool(summary)) << llvm::toString(summary.takeError());
  // The window: WAIT, vpu.add (32 bytes), matmul (2x2, 16 bytes), addi,
  // blt, mul, add, add, dma.issue (64 bytes).
  EXPECT_EQ(errorOf((*r)->checkResults()),
            at(t.layout.writtenRanges) +
                "the written ranges hold 12288 bytes but the window's 9 "
                "instructions write at most 112");
}

//===----------------------------------------------------------------------===//
// DMA ids and DMAs in flight
//===----------------------------------------------------------------------===//

TEST_F(TraceHardeningTest, NextDmaIdNear2To31IsRejected) {
  // The replay's DMA engine keeps a record per id below it: 2^31 of them
  // exhausted memory.
  uint64_t nextAt = read.layout.nextDmaId;
  EXPECT_EQ(errorOfFile(with32(nextAt, 1u << 31)),
            at(nextAt) + "the next DMA id 2147483648 is more than the 19 "
                         "instructions before the window could have issued");
  // With a start index that allows it, the trace is valid: the replay's
  // DMA engine and collector keep no record for the ids before the window
  // (the engine reserves them; DmaEngineTest checks the numbering).
  std::vector<uint8_t> b = with64(read.layout.startIndex, 1ull << 40);
  put32(b, nextAt, 1u << 31);
  resealHeader(b);
  EXPECT_EQ(errorOfFile(b), "");
}

TEST_F(TraceHardeningTest, DmasInFlightAreCheckedAgainstTheProgram) {
  uint64_t rec = read.layout.dmas;
  // Its id: below the next id (1).
  EXPECT_EQ(errorOfFile(with32(rec, 0x7fffffff)),
            at(rec) + "DMA in flight 0 (id 2147483647) is not below the next "
                      "DMA id 1");
  // Its issuing PC: a dma.issue of the program (the analyzer indexes the
  // origin table by it).
  EXPECT_EQ(errorOfFile(with32(rec + 4, 1u << 31)),
            at(rec) + "DMA in flight 0 (id 0) has issue pc 2147483648, which "
                      "is not a dma.issue of the program");
  EXPECT_EQ(errorOfFile(with32(rec + 4, 17)),
            at(rec) + "DMA in flight 0 (id 0) has issue pc 17, which is not a "
                      "dma.issue of the program");
  // Its tiles (chip u32, space u8, base, rows, cols, stride, element size
  // u8): the dma.issue's shape (rows at record + 8 + 5 + 8) and inside a
  // buffer (the destination's base at record + 8 + 38 + 5).
  std::string inst = isa::toString(read.program.code[18]);
  EXPECT_EQ(errorOfFile(with64(rec + 21, 1ull << 31)),
            at(rec) +
                "DMA in flight 0 (id 0) differs from its dma.issue at "
                "pc 18 (" +
                inst + ")");
  EXPECT_EQ(errorOfFile(with64(rec + 51, ~uint64_t(0) - 8)),
            at(rec) + "DMA in flight 0 (id 0): its destination at vmem "
                      "address 18446744073709551607 is not inside one buffer "
                      "of the program");
  // A tile's space byte.
  EXPECT_EQ(errorOfFile(with8(rec + 12, 9)),
            at(rec + 12) + "DMA source is 9 (0 = HBM, 1 = VMEM)");
  // A tile of another chip.
  EXPECT_EQ(errorOfFile(with32(rec + 46, 1)),
            at(rec) + "DMA in flight 0 (id 0) moves data of chip 1; a window "
                      "replays one chip, chip 0");
  // A tile's element size: 2 or 4 bytes (the source's at record + 8 + 37),
  // and the dma.issue's (this f32 DMA's 4).
  EXPECT_EQ(errorOfFile(with8(rec + 45, 3)),
            at(rec + 45) +
                "DMA source has 3-byte elements (2 = bf16, 4 = f32 or i32)");
  EXPECT_EQ(errorOfFile(with8(rec + 45, 2)),
            at(rec) +
                "DMA in flight 0 (id 0) differs from its dma.issue at "
                "pc 18 (" +
                inst + ")");
}

TEST_F(TraceHardeningTest, DmasInFlightNeedALinkAndUniqueIds) {
  Trace t = read;
  // A config with only a vmem->hbm link; the DMA in flight is hbm->vmem.
  t.configJson = R"({"dma": {"links": [{"src": "vmem", "dst": "hbm",
                    "base_latency": 1, "bytes_per_cycle": 1}]}})";
  EXPECT_EQ(replayError(t), "invalid trace at byte " +
                                std::to_string(t.layout.dmas) +
                                ": DMA in flight 0 (id 0): the config has no "
                                "DMA link hbm->vmem");
  // Two DMAs with one id (a trace built in memory: no offsets).
  Trace u = read;
  u.layout = replay::TraceLayout();
  u.nextDmaId = 2;
  u.pendingDmas.push_back(u.pendingDmas[0]);
  EXPECT_EQ(replayError(u), "invalid trace: two DMAs in flight have id 0");
}

//===----------------------------------------------------------------------===//
// PCs, memory, registers
//===----------------------------------------------------------------------===//

TEST_F(TraceHardeningTest, PcOutsideTheProgramIsRejected) {
  uint64_t pc3 = read.layout.pcs + 12;
  EXPECT_EQ(errorOfFile(with32(pc3, 0xffffffffu)),
            at(pc3) + "PC 3 of the window is 4294967295, outside the "
                      "program's 25 instructions");
}

TEST_F(TraceHardeningTest, MemoryChunksMustFitTheMachine) {
  // addr + size wrapped around 2^64 and passed the buffer check, then was
  // copied out of bounds.
  uint64_t rec = read.layout.memory[0];
  const MemChunk &c = read.memory[0];
  std::string space = isa::memSpaceName(c.space).str();
  uint64_t addr = ~uint64_t(0) - 1;
  EXPECT_EQ(errorOfFile(with64(rec + 5, addr)),
            at(rec) + "memory chunk 0 at " + space + " address " +
                std::to_string(addr) + " with " +
                std::to_string(c.bytes.size()) +
                " bytes does not fit the config's " +
                (c.space == MemSpace::VMEM ? "vmem.bytes " : "hbm.bytes ") +
                std::to_string(c.space == MemSpace::VMEM ? config.vmemBytes
                                                         : config.hbmBytes));
  // Inside the machine but in no buffer: the trace-load step names the
  // chunk's offset.
  uint64_t nowhere = 1u << 20;
  EXPECT_EQ(errorOfFile(with64(rec + 5, nowhere)),
            "trace-load: memory chunk 0 at byte " + std::to_string(rec) +
                ": no buffer holds " + space + " [" + std::to_string(nowhere) +
                ", " + std::to_string(nowhere + c.bytes.size()) + ")");
  EXPECT_EQ(errorOfFile(with8(rec + 4, 7)),
            at(rec + 4) + "memory space is 7 (0 = HBM, 1 = VMEM)");
  EXPECT_EQ(errorOfFile(with32(rec, 2)),
            at(rec) + "memory chunk 0 is on chip 2; a window replays one "
                      "chip, chip 0");
}

TEST_F(TraceHardeningTest, RegisterHoldingAllOnesFaultsCleanly) {
  // A saved register may hold any value; as an address, 2^64 - 1 is a
  // fault of the replay, not an access outside VMEM.
  Trace t = read;
  bool found = false;
  for (auto &[reg, value] : t.registers)
    if (reg == 12) { // A + 64 i: the vpu.add's input at pc 20
      value = ~uint64_t(0);
      found = true;
    }
  ASSERT_TRUE(found);
  auto r = Replayer::create(t);
  ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
  ASSERT_FALSE(bool((*r)->load()));
  std::string err = errorOf((*r)->run());
  EXPECT_EQ(err.rfind("fault at pc 20 (vpu.add r15, r12, r3, 1x8, s=8,8,8), "
                      "op 11 'accel.vadd' at inc/helpers.mlir:16:9: VMEM "
                      "access out of bounds: VPU operand x",
                      0),
            0u)
      << err;
}

//===----------------------------------------------------------------------===//
// The program image
//===----------------------------------------------------------------------===//

TEST_F(TraceHardeningTest, ProgramBuffersMustFitTheConfig) {
  Trace t = read;
  t.program.buffers[1].base = config.vmemBytes - 1024; // a: 4 KiB
  EXPECT_EQ(replayError(t),
            "invalid trace at byte " + std::to_string(t.layout.image) +
                ": program image: buffer 1 'a' vmem [" +
                std::to_string(config.vmemBytes - 1024) + ", " +
                std::to_string(config.vmemBytes + 3072) +
                ") does not fit the config's vmem.bytes " +
                std::to_string(config.vmemBytes));
}

TEST(ImageHardeningTest, OriginCountMustMatchTheInstructions) {
  // Tools index the origin table by PC (the analyzer, the breakpoint
  // resolver): fewer origins than instructions read past its end.
  isa::Program p = makeLoopProgram();
  isa::Program bare = p;
  bare.origins.clear();
  bare.loops.clear();
  // The origin count is followed only by the loop count in an image
  // without origins and loops.
  size_t countAt = bare.toImage().size() - 8;
  p.origins.pop_back();
  EXPECT_EQ(errorOf(isa::Program::fromImage(p.toImage())),
            "byte offset " + std::to_string(countAt) +
                ": the origin count is 24 but the program has 25 "
                "instructions (one origin per instruction)");
  // None at all is no table either.
  EXPECT_EQ(errorOf(isa::Program::fromImage(bare.toImage())),
            "byte offset " + std::to_string(countAt) +
                ": the origin count is 0 but the program has 25 instructions "
                "(one origin per instruction)");
}

TEST(ImageHardeningTest, ElementTypesAreCheckedAgainstTheInit) {
  // An element type byte of another value, and an iota (i32 indices)
  // buffer of bf16: both refused, naming the byte of the element type
  // (after the code, the buffer count, the name "x", space and init).
  isa::Program p = makeLoopProgram();
  size_t typeAt = 8 + 4 + 4 + p.name.size() + 4 + p.fingerprint.size() + 4 +
                  16 * p.code.size() + 4 + 5 + 2;
  std::vector<uint8_t> image = p.toImage();
  image[typeAt] = 3;
  EXPECT_EQ(errorOf(isa::Program::fromImage(image)),
            "byte offset " + std::to_string(typeAt) +
                " (buffer 0 'x'): element type 3 is none of 0 (f32), 1 "
                "(i32), 2 (bf16)");
  p.buffers[0].init = isa::BufferInit::Iota;
  p.buffers[0].elemType = isa::ElemType::BF16;
  EXPECT_EQ(errorOf(isa::Program::fromImage(p.toImage())),
            "byte offset " + std::to_string(typeAt) +
                " (buffer 0 'x'): an iota buffer (init 2) of bf16 elements; "
                "iota holds 32-bit indices");
}

TEST(ImageHardeningTest, BufferPastTwoTo64IsRejected) {
  // base + size wrapped, and the simulator's bounds checks compared the
  // wrapped end.
  isa::Program p = makeLoopProgram();
  p.buffers[0].base = ~uint64_t(0) - 15;
  std::vector<uint8_t> image = p.toImage();
  // Buffer 0's base: after the code and the buffer count, its name ("x",
  // 4 + 1 bytes), space, init, element type and seed (7 bytes).
  size_t baseAt = 8 + 4 + 4 + p.name.size() + 4 + p.fingerprint.size() + 4 +
                  16 * p.code.size() + 4 + 5 + 7;
  EXPECT_EQ(errorOf(isa::Program::fromImage(image)),
            "byte offset " + std::to_string(baseAt) +
                " (buffer 0 'x'): base 0xfffffffffffffff0 plus size 0x1000 "
                "passes 2^64");
  // Ending at 2^64 exactly cannot be written as [base, base + size) in 64
  // bits either; just below it is fine.
  p.buffers[0].base = ~uint64_t(0) - 4095;
  EXPECT_FALSE(bool(isa::Program::fromImage(p.toImage())));
  p.buffers[0].base = ~uint64_t(0) - 8191;
  EXPECT_TRUE(bool(isa::Program::fromImage(p.toImage())));
}

TEST(ImageHardeningTest, BytesAfterTheLoopTableAreRejected) {
  // Issue 31: an image is exactly its fields; a byte after the loop table
  // was ignored.
  isa::Program p = makeLoopProgram();
  std::vector<uint8_t> image = p.toImage();
  ASSERT_TRUE(bool(isa::Program::fromImage(image)));
  size_t end = image.size();
  image.push_back(0x42);
  EXPECT_EQ(errorOf(isa::Program::fromImage(image)),
            "byte offset " + std::to_string(end) +
                ": 1 byte after the last field (the loop table); the image "
                "ends there");
}

TEST(ImageHardeningTest, HugeInstructionCountAllocatesOnlyWhatIsThere) {
  // 2^32 - 1 instructions (64 GiB) announced in a small image: the reader
  // reserves only what the bytes left can hold and stops at the first
  // instruction that is not there.
  isa::Program p = makeLoopProgram();
  std::vector<uint8_t> image = p.toImage();
  size_t countAt = 8 + 4 + 4 + p.name.size() + 4 + p.fingerprint.size();
  put32(image, countAt, 0xffffffffu);
  std::string err = errorOf(isa::Program::fromImage(image));
  EXPECT_NE(err.find("byte offset"), std::string::npos) << err;
}

} // namespace
