//===- Trace.h - The trace file: minimal state of a window ------*- C++ -*-===//
//
// What the recorder (seed 000 §4.1, Algorithm 1) captures and the replayer
// (§4.2) loads: the program (code image, origin table, buffer table), the
// machine config it ran on, the PC sequence of the window, and the minimal
// initial state: the registers and memory ranges the window reads before it
// writes them, plus the DMAs in flight at its start. Byte layout:
// docs/trace-format.md.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_REPLAY_TRACE_H
#define ACCEL_REPLAY_TRACE_H

#include "accel/ISA/Isa.h"
#include "accel/Sim/Memory.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace accel {
namespace replay {

/// Version of the trace format; readers refuse others.
constexpr uint32_t kTraceFormatVersion = 1;

/// A saved memory range.
struct MemChunk {
  isa::MemSpace space = isa::MemSpace::HBM;
  uint64_t addr = 0;
  std::vector<uint8_t> bytes;
};

/// A DMA issued before the window and not yet WAITed when it began.
struct DmaDescriptor {
  uint32_t id = 0;
  uint32_t issuePc = 0;
  sim::TileRef src, dst;
};

struct Trace {
  uint32_t formatVersion = kTraceFormatVersion;
  uint32_t isaVersion = isa::kIsaVersion;
  std::string configJson;
  isa::Program program;
  /// Index in the recorded run of the window's first instruction.
  uint64_t startIndex = 0;
  uint32_t startPc = 0;
  /// The id the DMA engine gives the window's first ISSUE.
  uint32_t nextDmaId = 0;
  std::vector<std::pair<uint8_t, uint64_t>> registers;
  std::vector<MemChunk> memory;
  std::vector<DmaDescriptor> pendingDmas;
  /// The PC of every instruction of the window, in order.
  std::vector<uint32_t> pcs;
  /// Bytes of a full-state snapshot of the same window (all registers, all
  /// of VMEM and every HBM buffer): the baseline of the minimal-state saving.
  uint64_t fullStateBytes = 0;

  /// The window's results on the recording device, for the replay's
  /// functional check: the final value of every register the window wrote,
  /// the byte ranges it wrote (coalesced, by space then address), and the
  /// CRC-32 of those ranges' final bytes, in order.
  std::vector<std::pair<uint8_t, uint64_t>> finalRegisters;
  std::vector<sim::AddrRange> writtenRanges;
  uint32_t writtenCrc = 0;

  /// Bytes of recorded state (registers and memory).
  uint64_t stateBytes() const;
  /// Whether the file it was read from had a zstd-compressed payload.
  bool compressed = false;

  /// Serialises to the file format (header, payload, checksum); with
  /// `compress`, the payload is zstd-compressed when this LLVM has zstd.
  std::vector<uint8_t> serialize(bool compress = false) const;
  /// Whether serialize(true) can compress (LLVM built with zstd).
  static bool canCompress();
  /// Parses a trace file. Errors name the byte offset: "not an accel trace
  /// (bad magic at byte 0)", "unsupported trace format version 9 at byte 8",
  /// "truncated trace at byte N while reading X", "checksum mismatch ...".
  static llvm::Expected<Trace> deserialize(llvm::ArrayRef<uint8_t> bytes);
};

} // namespace replay
} // namespace accel

#endif // ACCEL_REPLAY_TRACE_H
