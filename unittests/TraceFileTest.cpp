//===- TraceFileTest.cpp - The trace file format --------------------------===//
//
// The trace file (docs/trace-format.md): serialize and deserialize keep
// every field, compressed or plain, and a damaged file (bad magic, an
// unsupported version, a truncated header or payload, a checksum mismatch,
// a corrupt program image) is one error naming what is wrong.
//
//===----------------------------------------------------------------------===//

#include "accel/Replay/Recorder.h"
#include "accel/Replay/Trace.h"
#include "accel/Sim/Device.h"

#include "TestPrograms.h"

#include "llvm/Support/CRC.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <iterator>
#include <random>
#include <string>
#include <vector>

using namespace accel;
using namespace accel::sim;
using namespace accel::test;
using accel::replay::DmaDescriptor;
using accel::replay::MemChunk;
using accel::replay::Trace;
using isa::Buffer;
using isa::MemSpace;

namespace {

/// The source name of this file's config in errors.
constexpr const char *kConfigName = "trace-file-test.json";

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
  idx.init = isa::BufferInit::Iota;
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
    EXPECT_EQ(a.buffers[i].init, b.buffers[i].init);
    EXPECT_EQ(a.buffers[i].getData(), b.buffers[i].getData());
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

// PcSequence keeps runs of consecutive PCs: built one PC at a time, in
// chunks of any size, or from a vector, it holds the same PCs and the same
// (maximal) runs; indexing, truncating and editing agree with a vector; a
// long window round-trips through the file, whose reader takes the PCs 4096
// at a time (runs crossing those chunks); and the check that every PC is an
// instruction names the first one past the program inside a run.
TEST(ReplayTraceFileTest, PcSequenceRuns) {
  std::mt19937_64 rng(3441);
  for (int trial = 0; trial < 200; ++trial) {
    SCOPED_TRACE("trial " + std::to_string(trial));
    std::vector<uint32_t> pcs;
    size_t n = rng() % 300;
    uint32_t pc =
        uint32_t(rng() % 4 == 0 ? UINT32_MAX - rng() % 20 : rng() % 100);
    for (size_t i = 0; i < n; ++i) {
      pcs.push_back(pc);
      switch (rng() % 6) {
      case 0:
        pc = uint32_t(rng() % 100);
        break; // a branch
      case 1:
        break; // the same PC again
      default:
        ++pc; // straight on (may wrap)
      }
    }
    replay::PcSequence one, chunked, whole{llvm::ArrayRef<uint32_t>(pcs)};
    for (uint32_t p : pcs)
      one.push_back(p);
    for (size_t k = 0; k < pcs.size();) {
      size_t c = std::min<size_t>(pcs.size() - k, rng() % 20);
      chunked.append(llvm::ArrayRef<uint32_t>(pcs).slice(k, c));
      k += c;
    }
    ASSERT_EQ(one.size(), pcs.size());
    EXPECT_EQ(one, pcs);
    EXPECT_EQ(chunked, one); // the same runs
    EXPECT_EQ(whole, one);
    EXPECT_EQ(one.toVector(), pcs);
    size_t breaks = 0;
    for (size_t i = 1; i < pcs.size(); ++i)
      breaks += uint64_t(pcs[i]) != uint64_t(pcs[i - 1]) + 1;
    EXPECT_EQ(one.getRuns().size(), pcs.empty() ? 0 : breaks + 1);
    if (pcs.empty())
      continue;
    EXPECT_EQ(one.back(), pcs.back());
    size_t i = rng() % pcs.size();
    EXPECT_EQ(one[i], pcs[i]);
    size_t keep = rng() % (pcs.size() + 1);
    replay::PcSequence cut = one;
    cut.truncate(keep);
    EXPECT_EQ(cut, std::vector<uint32_t>(pcs.begin(), pcs.begin() + keep));
    std::vector<uint32_t> edited = pcs;
    edited[i] = uint32_t(rng());
    replay::PcSequence set = one;
    set.set(i, edited[i]);
    EXPECT_EQ(set, edited);
    EXPECT_EQ(set, replay::PcSequence(llvm::ArrayRef<uint32_t>(edited)));
  }

  // 10,000 PCs in runs of 13 (a loop body) and 5,000 (a run across the
  // reader's 4096-PC chunks) through the file.
  Trace t = makeFullTrace();
  t.pcs.clear();
  std::vector<uint32_t> pcs;
  for (int k = 0; k < 769; ++k)
    for (uint32_t p = 4; p < 17; ++p)
      pcs.push_back(p);
  for (uint32_t p = 0; p < 5000; ++p)
    pcs.push_back(p);
  t.pcs.append(pcs);
  auto back = Trace::deserialize(t.serialize(/*compress=*/true));
  ASSERT_TRUE(bool(back)) << llvm::toString(back.takeError());
  EXPECT_EQ(back->pcs, pcs);
  EXPECT_EQ(back->pcs.getRuns().size(), 770u);

  // A program of N instructions: the run N - 2 .. N + 2 leaves it at PC
  // N, its third, instruction 3 + 2 of the window.
  MachineConfig config = makeLoopConfig(kConfigName);
  Trace bad;
  bad.configJson = config.jsonText;
  bad.program = makeLoopProgram();
  uint32_t numInsts = uint32_t(bad.program.code.size());
  bad.pcs = {1, 2, 3};
  for (uint32_t p = numInsts - 2; p <= numInsts + 2; ++p)
    bad.pcs.push_back(p);
  std::string err = errorOf(bad.validate(config));
  std::string want = "PC 5 of the window is " + std::to_string(numInsts) +
                     ", outside the program's " + std::to_string(numInsts) +
                     " instructions";
  EXPECT_NE(err.find(want), std::string::npos) << err;
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
  const uint32_t badFormat = replay::kSystemTraceFormatVersion + 8;
  Trace t = makeFullTrace();
  t.formatVersion = badFormat;
  EXPECT_EQ(deserializeError(t.serialize()),
            "unsupported trace format version " + std::to_string(badFormat) +
                " at byte 8 (this build reads versions " +
                std::to_string(replay::kTraceFormatVersion) +
                ", a chip alone, and " +
                std::to_string(replay::kSystemTraceFormatVersion) +
                ", a chip of a system)");
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

} // namespace
