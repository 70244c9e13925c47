//===- ReplayTest.cpp - Trace files and the replayer ----------------------===//
//
// The trace file (serialize / deserialize and their errors) and the
// replayer of SnR §4.2: after the trace-load step the window replays
// with the same functional results and PC sequence as the full run; when it
// starts with no DMA in flight and every unit idle, with the same timing
// relative to its first instruction; and a PC that differs from the
// recorded one is reported as a divergence.
//
// Timing facts used below (Simulator.cpp header, docs/isa.md "Timing"),
// config: scalar latency 1, hbm->vmem T_b = 100 and 64 B/cycle, default MXU
// 128 x 128, VPU 1024 lanes, pipeline depth 8, simple cost 1:
//  - 64-byte DMA: complete = issue + 100 + 1;
//  - vpu.fill / vpu.add of <= 1024 elements: 8 + 1 = 9 cycles;
//  - 2x2x2 matmul: 1 * 1 * (128 + 2) + 128 = 258 cycles.
//
//===----------------------------------------------------------------------===//

#include "accel/Replay/Recorder.h"
#include "accel/Replay/Replayer.h"
#include "accel/Replay/Trace.h"
#include "accel/Sim/Device.h"

#include "TestPrograms.h"

#include "llvm/Support/CRC.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

using namespace accel;
using namespace accel::sim;
using namespace accel::test;
using accel::replay::DmaDescriptor;
using accel::replay::MemChunk;
using accel::replay::Replayer;
using accel::replay::Trace;
using isa::Buffer;
using isa::MemSpace;

namespace {

// The program under test is makeLoopProgram() (TestPrograms.h).

/// The source name of this file's config in errors.
constexpr const char *kConfigName = "replay-test.json";

class ReplayTest : public ::testing::Test {
protected:
  MachineConfig config = makeLoopConfig(kConfigName);
  isa::Program program = makeLoopProgram();

  /// Records `count` instructions from the `hit`-th arrival at `pc`.
  Trace recordWindow(uint32_t pc, uint64_t hit, uint64_t count) {
    Device device(config, program);
    return recordAt(device, program, config, pc, hit, count);
  }

  /// A device that ran the full program to the same point and then
  /// executed the window (`count` steps).
  void runReference(Device &device, uint32_t pc, uint64_t hit, uint64_t count) {
    device.setBreakpoint(pc, hit);
    llvm::Error e = device.continueToBreakpoint();
    ASSERT_FALSE(bool(e)) << llvm::toString(std::move(e));
    for (uint64_t i = 0; i < count; ++i) {
      llvm::Error s = device.step();
      ASSERT_FALSE(bool(s)) << llvm::toString(std::move(s));
    }
  }

  /// The events of a full run.
  EventLog fullRun() {
    EventLog events;
    Simulator sim(config, program);
    sim.addObserver(&events);
    auto r = sim.run();
    EXPECT_TRUE(bool(r)) << llvm::toString(r.takeError());
    return events;
  }
};

std::unique_ptr<Replayer> loadReplayer(const Trace &trace,
                                       Observer *observer = nullptr) {
  auto r = Replayer::create(trace);
  EXPECT_TRUE(bool(r)) << llvm::toString(r.takeError());
  if (!r)
    return nullptr;
  if (observer)
    (*r)->addObserver(observer);
  llvm::Error e = (*r)->load();
  EXPECT_FALSE(bool(e)) << llvm::toString(std::move(e));
  return std::move(*r);
}

std::vector<uint8_t> readSim(Simulator &sim, MemSpace space, uint64_t addr,
                             uint64_t n) {
  std::vector<uint8_t> out(n, 0xee);
  llvm::Error e = sim.getMemory().read(space, addr, n, out.data());
  EXPECT_FALSE(bool(e)) << llvm::toString(std::move(e));
  return out;
}

//===----------------------------------------------------------------------===//
// Trace file
//===----------------------------------------------------------------------===//

/// A trace with every field set to a distinctive value.
Trace makeFullTrace() {
  Trace t;
  t.configJson = R"({"scalar": {"latency": 2}})";
  t.program = makeLoopProgram();
  Buffer idx;
  idx.name = "idx";
  idx.space = MemSpace::HBM;
  idx.base = 0x20000;
  idx.bytes = 256;
  idx.shape = {8, 8};
  idx.iota = true;
  t.program.buffers.push_back(idx);
  t.startIndex = 0x123456789ull;
  t.startPc = 19;
  t.nextDmaId = 7;
  t.fullStateBytes = 0xabcdef0123ull;
  t.registers = {{255, ~0ull}, {1, kX}, {13, 6}};
  MemChunk hbm{MemSpace::HBM, kX + 64, {1, 2, 3}};
  MemChunk empty{MemSpace::VMEM, kC, {}};
  MemChunk vmem{MemSpace::VMEM, kB, {}};
  for (int i = 0; i < 200; ++i)
    vmem.bytes.push_back(uint8_t(i * 7 + 1));
  t.memory = {hbm, empty, vmem};
  DmaDescriptor d0{5,
                   18,
                   {MemSpace::HBM, kX + 64, 1, 16, 16},
                   {MemSpace::VMEM, 64, 1, 16, 16}};
  DmaDescriptor d1{
      6, 3, {MemSpace::VMEM, 4096, 3, 5, 9}, {MemSpace::HBM, 0x20000, 3, 5, 7}};
  t.pendingDmas = {d0, d1};
  t.pcs = {19, 20, 21, 0xffffffffu};
  t.finalRegisters = {{3, 42}, {200, ~0ull}};
  t.writtenRanges = {{MemSpace::HBM, 0x20000, 0x20040},
                     {MemSpace::VMEM, 4096, 8192}};
  t.writtenCrc = 0xcafef00d;
  return t;
}

void expectSameProgram(const isa::Program &a, const isa::Program &b) {
  EXPECT_EQ(a.isaVersion, b.isaVersion);
  EXPECT_EQ(a.name, b.name);
  ASSERT_EQ(a.code.size(), b.code.size());
  for (size_t i = 0; i < a.code.size(); ++i)
    EXPECT_EQ(isa::encode(a.code[i]), isa::encode(b.code[i])) << i;
  ASSERT_EQ(a.origins.size(), b.origins.size());
  for (size_t i = 0; i < a.origins.size(); ++i) {
    EXPECT_EQ(a.origins[i].opId, b.origins[i].opId) << i;
    EXPECT_EQ(a.origins[i].opName, b.origins[i].opName) << i;
    EXPECT_EQ(a.origins[i].loc, b.origins[i].loc) << i;
  }
  ASSERT_EQ(a.buffers.size(), b.buffers.size());
  for (size_t i = 0; i < a.buffers.size(); ++i) {
    SCOPED_TRACE("buffer " + std::to_string(i));
    EXPECT_EQ(a.buffers[i].name, b.buffers[i].name);
    EXPECT_EQ(a.buffers[i].space, b.buffers[i].space);
    EXPECT_EQ(a.buffers[i].base, b.buffers[i].base);
    EXPECT_EQ(a.buffers[i].bytes, b.buffers[i].bytes);
    EXPECT_EQ(a.buffers[i].shape, b.buffers[i].shape);
    EXPECT_EQ(a.buffers[i].zeroInit, b.buffers[i].zeroInit);
    EXPECT_EQ(a.buffers[i].iota, b.buffers[i].iota);
    EXPECT_EQ(a.buffers[i].seed, b.buffers[i].seed);
  }
}

void expectSameTile(const TileRef &a, const TileRef &b) {
  EXPECT_EQ(a.space, b.space);
  EXPECT_EQ(a.base, b.base);
  EXPECT_EQ(a.rows, b.rows);
  EXPECT_EQ(a.cols, b.cols);
  EXPECT_EQ(a.rowStride, b.rowStride);
}

std::string deserializeError(const std::vector<uint8_t> &bytes) {
  return errorOf(Trace::deserialize(bytes));
}

TEST(ReplayTraceFileTest, RoundTripKeepsEveryField) {
  Trace t = makeFullTrace();
  std::vector<uint8_t> bytes = t.serialize();

  // Header (docs: magic, format version, ISA version, flags, CRC-32 of the
  // payload, payload size), then the payload starting with the config
  // length and text.
  ASSERT_GE(bytes.size(), 48u);
  EXPECT_EQ(std::string(bytes.begin(), bytes.begin() + 8), "ACCELTRC");
  EXPECT_EQ(le32(bytes, 8), replay::kTraceFormatVersion);
  EXPECT_EQ(le32(bytes, 12), isa::kIsaVersion);
  EXPECT_EQ(le32(bytes, 16), 0u);
  EXPECT_EQ(le64(bytes, 24), bytes.size() - 32);
  EXPECT_EQ(le32(bytes, 20),
            llvm::crc32(llvm::ArrayRef<uint8_t>(bytes).drop_front(32)));
  EXPECT_EQ(le64(bytes, 32), t.configJson.size());
  EXPECT_EQ(
      std::string(bytes.begin() + 40, bytes.begin() + 40 + t.configJson.size()),
      t.configJson);

  auto back = Trace::deserialize(bytes);
  ASSERT_TRUE(bool(back)) << llvm::toString(back.takeError());
  EXPECT_EQ(back->formatVersion, replay::kTraceFormatVersion);
  EXPECT_EQ(back->isaVersion, isa::kIsaVersion);
  EXPECT_EQ(back->configJson, t.configJson);
  expectSameProgram(back->program, t.program);
  EXPECT_EQ(back->startIndex, 0x123456789ull);
  EXPECT_EQ(back->startPc, 19u);
  EXPECT_EQ(back->nextDmaId, 7u);
  EXPECT_EQ(back->fullStateBytes, 0xabcdef0123ull);
  EXPECT_EQ(back->registers, t.registers);
  ASSERT_EQ(back->memory.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    SCOPED_TRACE("chunk " + std::to_string(i));
    EXPECT_EQ(back->memory[i].space, t.memory[i].space);
    EXPECT_EQ(back->memory[i].addr, t.memory[i].addr);
    EXPECT_EQ(back->memory[i].bytes, t.memory[i].bytes);
  }
  ASSERT_EQ(back->pendingDmas.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    SCOPED_TRACE("DMA " + std::to_string(i));
    EXPECT_EQ(back->pendingDmas[i].id, t.pendingDmas[i].id);
    EXPECT_EQ(back->pendingDmas[i].issuePc, t.pendingDmas[i].issuePc);
    expectSameTile(back->pendingDmas[i].src, t.pendingDmas[i].src);
    expectSameTile(back->pendingDmas[i].dst, t.pendingDmas[i].dst);
  }
  EXPECT_EQ(back->pcs, t.pcs);
  EXPECT_EQ(back->finalRegisters, t.finalRegisters);
  ASSERT_EQ(back->writtenRanges.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(back->writtenRanges[i].space, t.writtenRanges[i].space);
    EXPECT_EQ(back->writtenRanges[i].begin, t.writtenRanges[i].begin);
    EXPECT_EQ(back->writtenRanges[i].end, t.writtenRanges[i].end);
  }
  EXPECT_EQ(back->writtenCrc, 0xcafef00du);
  EXPECT_EQ(back->stateBytes(), 3u * 8 + 3 + 0 + 200);
  // Serialising again gives the same bytes.
  EXPECT_EQ(back->serialize(), bytes);
}

TEST(ReplayTraceFileTest, RecordedTraceRoundTrips) {
  MachineConfig config = makeLoopConfig(kConfigName);
  isa::Program program = makeLoopProgram();
  Device device(config, program);
  device.setBreakpoint(19, 2);
  ASSERT_FALSE(bool(device.continueToBreakpoint()));
  auto t = replay::record(device, program, config.jsonText, 1000);
  ASSERT_TRUE(bool(t)) << llvm::toString(t.takeError());
  auto back = Trace::deserialize(t->serialize());
  ASSERT_TRUE(bool(back)) << llvm::toString(back.takeError());
  EXPECT_EQ(back->configJson, t->configJson);
  expectSameProgram(back->program, t->program);
  EXPECT_EQ(back->startIndex, t->startIndex);
  EXPECT_EQ(back->startPc, t->startPc);
  EXPECT_EQ(back->nextDmaId, t->nextDmaId);
  EXPECT_EQ(back->fullStateBytes, t->fullStateBytes);
  EXPECT_EQ(back->registers, t->registers);
  ASSERT_EQ(back->memory.size(), t->memory.size());
  for (size_t i = 0; i < t->memory.size(); ++i)
    EXPECT_EQ(back->memory[i].bytes, t->memory[i].bytes);
  ASSERT_EQ(back->pendingDmas.size(), 1u);
  EXPECT_EQ(back->pendingDmas[0].id, 1u);
  EXPECT_EQ(back->pcs, t->pcs);
}

TEST(ReplayTraceFileTest, BadMagic) {
  std::vector<uint8_t> bytes = makeFullTrace().serialize();
  bytes[0] ^= 0x20; // 'A' -> 'a'
  EXPECT_EQ(deserializeError(bytes),
            "not an accel trace (bad magic at byte 0)");
  EXPECT_EQ(deserializeError({}), "not an accel trace (bad magic at byte 0)");
  // 7 bytes cannot hold the 8-byte magic.
  EXPECT_EQ(deserializeError({'A', 'C', 'C', 'E', 'L', 'T', 'R'}),
            "not an accel trace (bad magic at byte 0)");
  // An ISA image is not a trace.
  EXPECT_EQ(deserializeError(makeLoopProgram().toImage()),
            "not an accel trace (bad magic at byte 0)");
}

TEST(ReplayTraceFileTest, UnsupportedVersions) {
  // Versions other than this build's are refused (the numbers are read
  // from the constants: other work may bump them).
  const uint32_t badFormat = replay::kTraceFormatVersion + 8;
  Trace t = makeFullTrace();
  t.formatVersion = badFormat;
  EXPECT_EQ(deserializeError(t.serialize()),
            "unsupported trace format version " + std::to_string(badFormat) +
                " at byte 8 (this build reads version " +
                std::to_string(replay::kTraceFormatVersion) + ")");
  const uint32_t badIsa = isa::kIsaVersion + 1;
  Trace u = makeFullTrace();
  u.isaVersion = badIsa;
  EXPECT_EQ(deserializeError(u.serialize()),
            "unsupported ISA version " + std::to_string(badIsa) +
                " at byte 12 (this build runs version " +
                std::to_string(isa::kIsaVersion) + ")");
  // Only bit 0 (zstd) of the flags is defined.
  std::vector<uint8_t> bytes = makeFullTrace().serialize();
  bytes[16] = 2;
  EXPECT_EQ(deserializeError(bytes), "unsupported trace flags 0x2 at byte 16");
}

TEST(ReplayTraceFileTest, CompressedRoundTrip) {
  if (!Trace::canCompress())
    GTEST_SKIP() << "this LLVM has no zstd";
  Trace t = makeFullTrace();
  std::vector<uint8_t> plain = t.serialize(false);
  std::vector<uint8_t> packed = t.serialize(true);
  EXPECT_EQ(packed[16], 1u); // the zstd flag
  auto back = Trace::deserialize(packed);
  ASSERT_TRUE(bool(back)) << llvm::toString(back.takeError());
  EXPECT_TRUE(back->compressed);
  // Same content: re-serialized plain, the bytes are the plain file's.
  EXPECT_EQ(back->serialize(false), plain);
  // A plain payload claimed compressed cannot be decompressed.
  plain[16] = 1;
  std::vector<uint8_t> claimed = plain;
  // Re-seal the CRC so only the decompression can fail.
  uint32_t crc = llvm::crc32(llvm::ArrayRef<uint8_t>(claimed).drop_front(32));
  for (int i = 0; i < 4; ++i)
    claimed[20 + i] = uint8_t(crc >> (8 * i));
  std::string err = deserializeError(claimed);
  EXPECT_EQ(err.rfind("cannot decompress the payload at byte 40: ", 0), 0u)
      << err;
}

TEST(ReplayTraceFileTest, TruncatedHeader) {
  std::vector<uint8_t> full = makeFullTrace().serialize();
  auto prefix = [&](size_t n) {
    return std::vector<uint8_t>(full.begin(), full.begin() + n);
  };
  // Fields: format version [8, 12), ISA version [12, 16), flags [16, 20),
  // checksum [20, 24), payload size [24, 32).
  EXPECT_EQ(deserializeError(prefix(8)),
            "truncated trace at byte 8 while reading format version");
  EXPECT_EQ(deserializeError(prefix(11)),
            "truncated trace at byte 8 while reading format version");
  EXPECT_EQ(deserializeError(prefix(14)),
            "truncated trace at byte 12 while reading ISA version");
  EXPECT_EQ(deserializeError(prefix(16)),
            "truncated trace at byte 16 while reading flags");
  EXPECT_EQ(deserializeError(prefix(22)),
            "truncated trace at byte 20 while reading checksum");
  EXPECT_EQ(deserializeError(prefix(31)),
            "truncated trace at byte 24 while reading payload size");
}

TEST(ReplayTraceFileTest, TruncatedPayload) {
  std::vector<uint8_t> full = makeFullTrace().serialize();
  uint64_t payload = full.size() - 32;
  // One byte missing: the header's size no longer matches.
  std::vector<uint8_t> cut(full.begin(), full.end() - 1);
  EXPECT_EQ(deserializeError(cut),
            "truncated trace: the header at byte 24 announces " +
                std::to_string(payload) + " payload bytes but the file has " +
                std::to_string(payload - 1) + " after the 32-byte header");
  // Only the header.
  std::vector<uint8_t> headerOnly(full.begin(), full.begin() + 32);
  EXPECT_EQ(deserializeError(headerOnly),
            "truncated trace: the header at byte 24 announces " +
                std::to_string(payload) +
                " payload bytes but the file has 0 after the 32-byte header");

  // A consistent header (size and CRC fixed up) over a payload missing its
  // last field, the u32 CRC-32 of the window's written bytes, which starts
  // at byte size - 4.
  std::vector<uint8_t> shortCrc(full.begin(), full.end() - 4);
  resealHeader(shortCrc);
  EXPECT_EQ(deserializeError(shortCrc), "truncated trace at byte " +
                                            std::to_string(full.size() - 4) +
                                            " while reading written bytes "
                                            "CRC-32");

  // An empty payload: the config length is the first thing missing.
  resealHeader(headerOnly);
  EXPECT_EQ(deserializeError(headerOnly),
            "truncated trace at byte 32 while reading config");
}

TEST(ReplayTraceFileTest, ChecksumMismatch) {
  // Hand-made: payload "123456789" (its CRC-32 is the standard check value
  // 0xcbf43926) under a header that claims CRC 0: magic, format version,
  // ISA version, flags 0, CRC 0, payload size 9.
  std::vector<uint8_t> bytes = {'A', 'C', 'C', 'E', 'L', 'T', 'R', 'C'};
  bytes.resize(32, 0);
  put32(bytes, 8, replay::kTraceFormatVersion);
  put32(bytes, 12, isa::kIsaVersion);
  put64(bytes, 24, 9);
  for (char c : std::string("123456789"))
    bytes.push_back(uint8_t(c));
  EXPECT_EQ(deserializeError(bytes),
            "checksum mismatch: the header at byte 20 says CRC-32 0x00000000, "
            "the payload has 0xcbf43926 (the trace is corrupt)");
  // With the right CRC it gets past the check: the config length at bytes
  // [32, 40) is "12345678" read as a u64, far more than the 1 byte left, so
  // the config text starting at byte 40 is truncated.
  put32(bytes, 20, 0xcbf43926u);
  EXPECT_EQ(deserializeError(bytes),
            "truncated trace at byte 40 while reading config");

  // Flip one payload byte of a real trace (the first config character).
  std::vector<uint8_t> real = makeFullTrace().serialize();
  uint32_t good = le32(real, 20);
  real[40] ^= 0x01;
  uint32_t bad = llvm::crc32(llvm::ArrayRef<uint8_t>(real).drop_front(32));
  ASSERT_NE(good, bad);
  char expected[160];
  snprintf(expected, sizeof(expected),
           "checksum mismatch: the header at byte 20 says CRC-32 0x%08x, the "
           "payload has 0x%08x (the trace is corrupt)",
           good, bad);
  EXPECT_EQ(deserializeError(real), expected);
}

TEST(ReplayTraceFileTest, CorruptProgramImage) {
  Trace t = makeFullTrace();
  std::vector<uint8_t> bytes = t.serialize();
  // The image starts after the header (32), the config (8 + length) and its
  // own length (8): byte 48 + length. Break its magic, reseal the header.
  size_t imageAt = 48 + t.configJson.size();
  ASSERT_EQ(bytes[imageAt], 'A');
  bytes[imageAt] = 'X';
  resealHeader(bytes);
  EXPECT_EQ(deserializeError(bytes),
            "program image at byte " + std::to_string(imageAt) +
                ": not an accel image: bad magic at byte offset 0");
}

//===----------------------------------------------------------------------===//
// Replayer: creation and trace-load errors
//===----------------------------------------------------------------------===//

TEST_F(ReplayTest, CreateRejectsBadConfig) {
  Trace t = recordWindow(15, 2, 9);
  t.configJson = "[1]";
  EXPECT_EQ(errorOf(Replayer::create(t)),
            "trace config: byte 0: the config must be a JSON object");
}

TEST_F(ReplayTest, LoadRejectsMemoryOutsideBuffers) {
  Trace t = recordWindow(15, 2, 9);
  t.memory.push_back({MemSpace::VMEM, 20000, {1, 2, 3, 4}});
  auto r = Replayer::create(t);
  ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
  EXPECT_EQ(errorOf((*r)->load()),
            "trace-load: no buffer holds vmem [20000, 20004)");
}

//===----------------------------------------------------------------------===//
// (a) Functional equality
//===----------------------------------------------------------------------===//

TEST_F(ReplayTest, WindowReproducesTheFullRunFunctionally) {
  // Iteration 1 of the loop: pcs 15..23, instructions 24..32 of the run.
  const uint64_t count = 9;
  Trace trace = recordWindow(15, 2, count);
  ASSERT_EQ(trace.pcs,
            (std::vector<uint32_t>{15, 16, 17, 18, 19, 20, 21, 22, 23}));
  ASSERT_EQ(trace.startIndex, 24u);
  EventLog replayEvents;
  auto replayer = loadReplayer(trace, &replayEvents);
  ASSERT_TRUE(replayer);
  auto summary = replayer->run();
  ASSERT_TRUE(bool(summary)) << llvm::toString(summary.takeError());
  EXPECT_EQ(summary->instructions, count);
  Simulator &sim = replayer->getSimulator();
  // i = 2 after pc 22 and 2 < 2 is false: both stop on the halt's pc.
  EXPECT_EQ(sim.getPc(), 24u);
  EXPECT_FALSE(sim.isHalted());
  Device reference(config, program);
  runReference(reference, 15, 2, count);
  EXPECT_EQ(reference.getPc(), 24u);
  EXPECT_EQ(reference.getInstructionCount(), 33u);

  // Registers the window wrote, with their hand-derived values:
  //  r10 = 1 * 64 (pc 15), r11 = X + 64 (pc 16), r12 = A + 64 (pc 17),
  //  r13 = 1, the second DMA id (pc 18), r6 = 2 (pc 22).
  struct Reg {
    unsigned r;
    uint64_t value;
  } written[] = {{10, 64}, {11, kX + 64}, {12, kA + 64}, {13, 1}, {6, 2}};
  for (const Reg &w : written) {
    SCOPED_TRACE("r" + std::to_string(w.r));
    EXPECT_EQ(reference.readRegister(w.r), w.value);
    EXPECT_EQ(sim.getRegister(w.r), w.value);
  }

  // Memory the window wrote:
  //  VMEM [64, 128): the DMA of pc 18, x[16..32);
  //  VMEM [5120, 5152): pc 20, out[j] = x[16 + j] + 1.5;
  //  VMEM [8192, 8208): pc 21, C after both iterations.
  std::vector<float> out;
  for (int j = 0; j < 8; ++j)
    out.push_back(vaddOut(1, j));
  struct Range {
    uint64_t addr;
    std::vector<uint8_t> bytes;
  } ranges[] = {{kA + 64, initBytes(16, 16)},
                {5120, floatBytes(out)},
                {kC, floatBytes(cAfter(1))}};
  for (const Range &w : ranges) {
    SCOPED_TRACE("VMEM " + std::to_string(w.addr));
    EXPECT_EQ(readMem(reference, MemSpace::VMEM, w.addr, w.bytes.size()),
              w.bytes);
    EXPECT_EQ(readSim(sim, MemSpace::VMEM, w.addr, w.bytes.size()), w.bytes);
  }

  // Minimal state: r16 (written at pc 13, never read by the window) is not
  // in the trace, so the replay holds 0 where the device holds 6.
  EXPECT_EQ(reference.readRegister(16), 6u);
  EXPECT_EQ(sim.getRegister(16), 0u);

  // Per instruction: the replay retires the same PCs as instructions
  // 24..32 of a full run.
  EventLog full = fullRun();
  ASSERT_EQ(full.retired.size(), 34u);
  ASSERT_EQ(replayEvents.retired.size(), count);
  for (uint64_t i = 0; i < count; ++i) {
    SCOPED_TRACE("window instruction " + std::to_string(i));
    EXPECT_EQ(replayEvents.retired[i].pc, full.retired[24 + i].pc);
    EXPECT_EQ(replayEvents.retired[i].pc, trace.pcs[i]);
    EXPECT_EQ(replayEvents.retired[i].index, i);
  }
}

/// Runs both loaded replayers and expects the same timing: total and stall
/// cycles, and every instruction's PC, issue cycle and stall.
static void expectSameTiming(Replayer &ra, const EventLog &a, Replayer &rb,
                             const EventLog &b) {
  auto sa = ra.run();
  auto sb = rb.run();
  ASSERT_TRUE(bool(sa)) << llvm::toString(sa.takeError());
  ASSERT_TRUE(bool(sb)) << llvm::toString(sb.takeError());
  EXPECT_EQ(sa->totalCycles, sb->totalCycles);
  EXPECT_EQ(sa->stallCycles, sb->stallCycles);
  ASSERT_EQ(a.retired.size(), b.retired.size());
  for (size_t i = 0; i < a.retired.size(); ++i) {
    EXPECT_EQ(a.retired[i].pc, b.retired[i].pc);
    EXPECT_EQ(a.retired[i].issueCycle, b.retired[i].issueCycle);
    EXPECT_EQ(a.retired[i].stallCycles, b.retired[i].stallCycles);
  }
}

TEST_F(ReplayTest, DeserializedTraceReplaysLikeTheOriginal) {
  Trace trace = recordWindow(20, 1, 1000);
  auto back = Trace::deserialize(trace.serialize());
  ASSERT_TRUE(bool(back)) << llvm::toString(back.takeError());
  EventLog a, b;
  auto ra = loadReplayer(trace, &a);
  auto rb = loadReplayer(*back, &b);
  ASSERT_TRUE(ra && rb);
  expectSameTiming(*ra, a, *rb, b);
  EXPECT_EQ(readSim(ra->getSimulator(), MemSpace::VMEM, kC, 16),
            readSim(rb->getSimulator(), MemSpace::VMEM, kC, 16));
}

TEST_F(ReplayTest, TimingOnlyReplayKeepsTheTiming) {
  // The same window replayed twice, the second time without the MXU/VPU
  // arithmetic: every instruction issues at the same cycle with the same
  // stall, the totals agree, and only the computed data differs (C, the
  // VPU's and MXU's output, stays as the trace-load left it).
  Trace trace = recordWindow(20, 1, 1000);
  EventLog a, b;
  auto ra = loadReplayer(trace, &a);
  auto rb = loadReplayer(trace, &b);
  ASSERT_TRUE(ra && rb);
  rb->getSimulator().setTimingOnly(true);
  expectSameTiming(*ra, a, *rb, b);
  EXPECT_FALSE(bool(ra->checkResults()));
  EXPECT_NE(readSim(ra->getSimulator(), MemSpace::VMEM, kC, 16),
            readSim(rb->getSimulator(), MemSpace::VMEM, kC, 16));
}

//===----------------------------------------------------------------------===//
// (b) Timing equality
//===----------------------------------------------------------------------===//

TEST_F(ReplayTest, WindowStartingIdleReproducesTheTiming) {
  // Full-run timeline up to the window (absolute cycles):
  //   pcs 0..7 at 0..7; pc 8 vfill [8, 17); pc 9 vfill waits for the VPU
  //   (stall 8) [17, 26); pc 10 at 18; pc 11 vfill waits for pc 9 (writes
  //   the same C bytes) [26, 35); pcs 12..17 at 27..32; pc 18 ISSUE at 33,
  //   complete 134; pc 19 WAIT ready 34, resumes at 134.
  // The window starts at the first arrival at pc 20 (instruction 20), ready
  // at 135: no DMA in flight (DMA 0 complete and WAITed), the VPU free
  // since 35, the MXU never used. Its instructions (absolute issue, stall,
  // cause):
  //   20 vpu.add     135    0  -           VPU busy [135, 144)
  //   21 matmul      144    8  data_hazard A = [5120, 5144) is vpu.add's
  //                                         output; MXU [144, 527) (m 2,
  //                                         one fold: 128 + 2 + 254 - 1)
  //   22 addi        145; 23 blt 146; 15 147; 16 148; 17 149
  //   18 dma.issue   150                    base end 250, complete 251
  //   19 dma.wait    251  100  dma_wait_base (ready 151: 99 + 1)
  //   20 vpu.add     527  275  data_hazard its output overlaps the A the
  //                                         matmul (until 527) reads
  //   21 matmul      536    8  data_hazard A is vpu.add's output (until
  //                                         536); MXU [536, 919)
  //   22 addi 537; 23 blt 538 (falls through); 24 halt 539.
  // Total: max(539 + 1, MXU 919, VPU 536, DMA 251) = 919. The replay starts
  // its window at cycle 0, so it must see every issue 135 cycles earlier.
  struct Expect {
    uint32_t pc;
    uint64_t rel, stall;
    StallCause cause;
  } expected[] = {
      {20, 0, 0, StallCause::None},
      {21, 9, 8, StallCause::DataHazard},
      {22, 10, 0, StallCause::None},
      {23, 11, 0, StallCause::None},
      {15, 12, 0, StallCause::None},
      {16, 13, 0, StallCause::None},
      {17, 14, 0, StallCause::None},
      {18, 15, 0, StallCause::None},
      {19, 116, 100, StallCause::DmaWaitBase},
      {20, 392, 275, StallCause::DataHazard},
      {21, 401, 8, StallCause::DataHazard},
      {22, 402, 0, StallCause::None},
      {23, 403, 0, StallCause::None},
      {24, 404, 0, StallCause::None},
  };
  const size_t n = std::size(expected);

  Trace trace = recordWindow(20, 1, 1000);
  ASSERT_EQ(trace.startIndex, 20u);
  ASSERT_EQ(trace.pcs.size(), n);
  EXPECT_TRUE(trace.pendingDmas.empty());
  EXPECT_EQ(trace.nextDmaId, 1u);

  EventLog full = fullRun();
  ASSERT_EQ(full.retired.size(), 34u);
  ASSERT_EQ(full.halts.size(), 1u);
  EXPECT_EQ(full.halts[0], 919u);
  const uint64_t base = full.retired[20].issueCycle;
  EXPECT_EQ(base, 135u);

  EventLog rep;
  auto replayer = loadReplayer(trace, &rep);
  ASSERT_TRUE(replayer);
  auto summary = replayer->run();
  ASSERT_TRUE(bool(summary)) << llvm::toString(summary.takeError());
  ASSERT_EQ(rep.retired.size(), n);
  const uint64_t repBase = rep.retired[0].issueCycle;
  EXPECT_EQ(repBase, 0u);

  for (size_t i = 0; i < n; ++i) {
    SCOPED_TRACE("window instruction " + std::to_string(i) + " (pc " +
                 std::to_string(expected[i].pc) + ")");
    const RetireEvent &f = full.retired[20 + i];
    const RetireEvent &r = rep.retired[i];
    EXPECT_EQ(f.pc, expected[i].pc);
    EXPECT_EQ(r.pc, expected[i].pc);
    EXPECT_EQ(f.issueCycle - base, expected[i].rel);
    EXPECT_EQ(r.issueCycle - repBase, expected[i].rel);
    EXPECT_EQ(f.stallCycles, expected[i].stall);
    EXPECT_EQ(r.stallCycles, expected[i].stall);
    EXPECT_EQ(f.cause, expected[i].cause);
    EXPECT_EQ(r.cause, expected[i].cause);
    EXPECT_EQ(r.unitEnd - r.unitStart, f.unitEnd - f.unitStart);
  }
  // The WAIT of the window: same split in both runs.
  ASSERT_EQ(full.waits.size(), 2u);
  ASSERT_EQ(rep.waits.size(), 1u);
  EXPECT_EQ(rep.waits[0].dmaId, 1u);
  EXPECT_EQ(full.waits[1].dmaId, 1u);
  EXPECT_EQ(rep.waits[0].outcome.stallBase, 99u);
  EXPECT_EQ(full.waits[1].outcome.stallBase, 99u);
  EXPECT_EQ(rep.waits[0].outcome.stallTransfer, 1u);
  EXPECT_EQ(full.waits[1].outcome.stallTransfer, 1u);
  // The replay ends 919 - 135 cycles after its first issue.
  EXPECT_EQ(summary->totalCycles, 919u - 135u);
  EXPECT_EQ(summary->stallCycles[size_t(StallCause::DataHazard)], 8u + 275 + 8);
  EXPECT_EQ(summary->stallCycles[size_t(StallCause::DmaWaitBase)], 99u);
  EXPECT_EQ(summary->stallCycles[size_t(StallCause::DmaWaitTransfer)], 1u);
}

//===----------------------------------------------------------------------===//
// (c) A window that starts with a DMA in flight
//===----------------------------------------------------------------------===//

TEST_F(ReplayTest, WindowStartingWithDmaInFlight) {
  // The second arrival at the WAIT (instruction 28): DMA 1 (pc 18) is in
  // flight.
  Trace trace = recordWindow(19, 2, 1000);
  ASSERT_EQ(trace.pendingDmas.size(), 1u);
  ASSERT_EQ(trace.pcs, (std::vector<uint32_t>{19, 20, 21, 22, 23, 24}));
  EventLog rep;
  auto replayer = loadReplayer(trace, &rep);
  ASSERT_TRUE(replayer);
  // The trace-load step issues the in-flight DMA at cycle 0 of the window:
  // 64 bytes, base end 0 + 100, complete 100 + 1.
  ASSERT_EQ(rep.issued.size(), 1u);
  EXPECT_EQ(rep.issued[0].first, 18u);
  EXPECT_EQ(rep.issued[0].second.id, 1u);
  EXPECT_EQ(rep.issued[0].second.bytes, 64u);
  EXPECT_EQ(rep.issued[0].second.issue, 0u);
  EXPECT_EQ(rep.issued[0].second.baseEnd, 100u);
  EXPECT_EQ(rep.issued[0].second.complete, 101u);

  auto summary = replayer->run();
  ASSERT_TRUE(bool(summary)) << llvm::toString(summary.takeError());
  EXPECT_EQ(summary->instructions, 6u);
  // The WAIT is the window's first instruction, ready at 0: 100 cycles of
  // base latency and 1 of transfer; it issues at 101.
  ASSERT_EQ(rep.waits.size(), 1u);
  EXPECT_EQ(rep.waits[0].pc, 19u);
  EXPECT_EQ(rep.waits[0].dmaId, 1u);
  EXPECT_EQ(rep.waits[0].cycle, 0u);
  EXPECT_EQ(rep.waits[0].outcome.stallBase, 100u);
  EXPECT_EQ(rep.waits[0].outcome.stallTransfer, 1u);
  EXPECT_EQ(rep.waits[0].outcome.slack, 0u);
  EXPECT_EQ(rep.waits[0].outcome.resume, 101u);
  ASSERT_EQ(rep.retired.size(), 6u);
  EXPECT_EQ(rep.retired[0].pc, 19u);
  EXPECT_EQ(rep.retired[0].issueCycle, 101u);
  EXPECT_EQ(rep.retired[0].stallCycles, 101u);
  EXPECT_EQ(rep.retired[0].cause, StallCause::DmaWaitBase);
  EXPECT_TRUE(replayer->getSimulator().getPendingDmas().empty());
  EXPECT_TRUE(replayer->getSimulator().isHalted());

  // Functionally the same end state as the full run.
  Device reference(config, program);
  ASSERT_FALSE(bool(reference.continueToBreakpoint()));
  Simulator &sim = replayer->getSimulator();
  EXPECT_EQ(readSim(sim, MemSpace::VMEM, kC, 16), floatBytes(cAfter(1)));
  EXPECT_EQ(readMem(reference, MemSpace::VMEM, kC, 16), floatBytes(cAfter(1)));
  EXPECT_EQ(sim.getRegister(6), 2u);
  EXPECT_EQ(reference.readRegister(6), 2u);
}

//===----------------------------------------------------------------------===//
// (d) PC divergence
//===----------------------------------------------------------------------===//

TEST_F(ReplayTest, ModifiedPcSequenceIsADivergence) {
  Trace trace = recordWindow(15, 2, 9); // pcs 15..23
  trace.pcs[3] = 22;                    // the replay will be at 18
  auto replayer = loadReplayer(trace);
  ASSERT_TRUE(replayer);
  std::string msg = errorOf(replayer->run());
  EXPECT_EQ(msg,
            "PC divergence at instruction 3 of the window: the trace has pc 22 "
            "(addi r6, r6, 1, op 13 'accel.for' at src/model.mlir:11:5) but "
            "the replay is at pc 18 (dma.issue r13, r11, r12, hbm->vmem, "
            "1x16, s=16,16, op 9 'accel.dma_start' at src/model.mlir:13:7); "
            "the previous instruction was pc 17 (add r12, r2, r10, op 8 "
            "'accel.index' at src/model.mlir:12:7)");
  EXPECT_EQ(msg.rfind("PC divergence at instruction 3 of the window", 0), 0u);
  // It stopped before executing the diverging instruction.
  EXPECT_EQ(replayer->getSimulator().getInstructionCount(), 3u);

  // At the first instruction there is no previous one.
  Trace first = recordWindow(15, 2, 9);
  first.pcs[0] = 16;
  auto r0 = loadReplayer(first);
  ASSERT_TRUE(r0);
  EXPECT_EQ(errorOf(r0->run()),
            "PC divergence at instruction 0 of the window: the trace has pc 16 "
            "(add r11, r1, r10, op 8 'accel.index' at src/model.mlir:12:7) "
            "but the replay is at pc 15 (mul r10, r6, r7, op 8 'accel.index' "
            "at src/model.mlir:12:7)");
}

TEST_F(ReplayTest, BranchGoingTheOtherWayIsADivergence) {
  // Window from the first arrival at pc 20 to the halt: 20, 21, 22, 23,
  // 15..23, 24. Saving the loop bound r5 as 3 instead of 2 makes iteration
  // 1's blt (i = 2 < 3) jump back to 15 where the trace has the halt
  // (instruction 13).
  Trace trace = recordWindow(20, 1, 1000);
  ASSERT_EQ(trace.pcs.size(), 14u);
  bool patched = false;
  for (auto &[reg, value] : trace.registers)
    if (reg == 5) {
      ASSERT_EQ(value, 2u);
      value = 3;
      patched = true;
    }
  ASSERT_TRUE(patched);
  auto replayer = loadReplayer(trace);
  ASSERT_TRUE(replayer);
  EXPECT_EQ(errorOf(replayer->run()),
            "PC divergence at instruction 13 of the window: the trace has pc "
            "24 (halt, op 14 'accel.halt' at src/model.mlir:18:3) but the "
            "replay is at pc 15 (mul r10, r6, r7, op 8 'accel.index' at "
            "src/model.mlir:12:7); the previous instruction was pc 23 (blt "
            "r6, r5, @15, op 13 'accel.for' at src/model.mlir:11:5)");
}

TEST_F(ReplayTest, PcsPastTheHaltAreADivergence) {
  Trace trace = recordWindow(20, 1, 1000);
  ASSERT_EQ(trace.pcs.back(), 24u);
  trace.pcs.push_back(24); // instruction 14, after the halt
  auto replayer = loadReplayer(trace);
  ASSERT_TRUE(replayer);
  EXPECT_EQ(errorOf(replayer->run()),
            "PC divergence at instruction 14 of the window: the trace has pc "
            "24 (halt, op 14 'accel.halt' at src/model.mlir:18:3) but the "
            "replay halted at pc 24 (halt, op 14 'accel.halt' at "
            "src/model.mlir:18:3); the previous instruction was pc 24 (halt, "
            "op 14 'accel.halt' at src/model.mlir:18:3)");
}

//===----------------------------------------------------------------------===//
// A WAIT in the window on a DMA WAITed before it
//===----------------------------------------------------------------------===//

TEST_F(ReplayTest, WaitAgainOnDmaCompletedBeforeWindow) {
  // docs/isa.md: a DMA is pending "until the first WAIT on its id"; a second
  // WAIT on a valid id is legal (the full run accepts it, with slack).
  isa::Program p = makeLoopProgram();
  p.origins.clear();
  p.code = {
      li(1, kX),                                                       // 0
      li(2, kA),                                                       // 1
      dmaIssue(3, 1, 2, MemSpace::HBM, MemSpace::VMEM, 1, 16, 16, 16), // 2
      dmaWait(3),                                                      // 3
      addi(4, 3, 5),                                                   // 4
      dmaWait(3),                                                      // 5
      halt(),                                                          // 6
  };
  // Full run: ISSUE at 2 completes at 103; the first WAIT resumes at 103,
  // addi at 104, the second WAIT is ready at 105: slack 2, no stall.
  Simulator full(config, p);
  EventLog fe;
  full.addObserver(&fe);
  auto fr = full.run();
  ASSERT_TRUE(bool(fr)) << llvm::toString(fr.takeError());
  ASSERT_EQ(fe.waits.size(), 2u);
  EXPECT_EQ(fe.waits[1].outcome.slack, 2u);

  Device device(config, p);
  device.setBreakpoint(4);
  ASSERT_FALSE(bool(device.continueToBreakpoint()));
  auto trace = replay::record(device, p, config.jsonText, 100);
  ASSERT_TRUE(bool(trace)) << llvm::toString(trace.takeError());
  // r3 = 0 (the DMA id) is read by the addi first; DMA 0 is not pending.
  EXPECT_EQ(trace->registers,
            (std::vector<std::pair<uint8_t, uint64_t>>{{3, 0}}));
  EXPECT_TRUE(trace->pendingDmas.empty());
  EXPECT_EQ(trace->nextDmaId, 1u);

  auto replayer = Replayer::create(*trace);
  ASSERT_TRUE(bool(replayer)) << llvm::toString(replayer.takeError());
  EventLog re;
  (*replayer)->addObserver(&re);
  ASSERT_FALSE(bool((*replayer)->load()));
  auto rr = (*replayer)->run();
  ASSERT_TRUE(bool(rr)) << llvm::toString(rr.takeError());
  // The DMA completed before the window: the WAIT does not stall.
  ASSERT_EQ(re.retired.size(), 3u);
  EXPECT_EQ(re.retired[1].pc, 5u);
  EXPECT_EQ(re.retired[1].stallCycles, 0u);
  EXPECT_EQ(re.retired[1].cause, StallCause::None);
}

} // namespace
