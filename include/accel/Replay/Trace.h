//===- Trace.h - The trace file: minimal state of a window ------*- C++ -*-===//
//
// What the recorder (SnR §4.1, Algorithm 1) captures and the replayer
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
#include "accel/Sim/MachineConfig.h"
#include "accel/Sim/Memory.h"
#include "accel/Sim/Simulator.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace accel {
namespace replay {

/// Version of the trace format of a chip alone; readers refuse versions
/// other than it and kSystemTraceFormatVersion.
/// Version 2: every memory range and tile names its chip (u32) before its
/// space. Version 3: every tile ends with its element size in bytes (u8: 2
/// for bf16, 4 for f32 and i32).
constexpr uint32_t kTraceFormatVersion = 3;
/// Version of the trace format of one chip of a system: version 3 followed
/// by the system section (SystemWindow).
constexpr uint32_t kSystemTraceFormatVersion = 4;

/// The latest cycle a version-4 trace may name (its timing state, events
/// and answers): 2^48, three days at 1 GHz, so that no sum of cycles and
/// latencies in the replay wraps around 2^64.
constexpr uint64_t kMaxTraceCycle = 1ull << 48;

/// The most bytes a zstd frame can produce per compressed byte: a 4-byte
/// RLE block regenerates at most one 128 KiB block (RFC 8878), so a
/// declared uncompressed size above 32768 times the compressed size is
/// rejected before anything is allocated for it.
constexpr uint64_t kMaxZstdRatio = (128 * 1024) / 4;

/// A saved memory range.
struct MemChunk {
  isa::MemSpace space = isa::MemSpace::HBM;
  uint64_t addr = 0;
  std::vector<uint8_t> bytes;
  uint32_t chip = 0;
};

/// A DMA issued before the window and not yet WAITed when it began.
struct DmaDescriptor {
  uint32_t id = 0;
  uint32_t issuePc = 0;
  sim::TileRef src, dst;
};

/// A window of one chip of a system (format version 4): which chip, its
/// timing state when the window began (so that the replay's cycles are the
/// recorded run's, not a fresh start's), and its exchange with the other
/// chips during the window (ChipPeers.h): the writes, HBM reservations,
/// semaphore signals and incoming DMAs the other chips sent it, each
/// before the chip instruction it preceded, and the answers (ICI transfer,
/// the other chip's HBM time, the bytes of a remote read) to each of its
/// remote DMAs.
struct SystemWindow {
  uint32_t chip = 0;
  uint32_t chips = 0;
  sim::Simulator::TimingState timing;
  sim::ChipEventLog log;
};

/// Where the fields of a trace read by Trace::deserialize begin: byte
/// offsets in the file or, for a zstd-compressed payload, in the
/// decompressed payload (`inflated`). Trace::validate names them in its
/// errors. A trace built in memory has none (`fromFile` false).
struct TraceLayout {
  bool fromFile = false;
  bool inflated = false;
  uint64_t config = 0, image = 0, startIndex = 0, startPc = 0, nextDmaId = 0;
  /// The first record of each fixed-size list (record I is at
  /// first + I * size: registers 9 bytes, DMAs 82, PCs 4, written ranges
  /// 21).
  uint64_t registers = 0, dmas = 0, pcs = 0, finalRegisters = 0,
           writtenRanges = 0;
  /// Version 4: the system section, its DMA timings (76 bytes each), and
  /// each event's and each answer's record.
  uint64_t system = 0, timings = 0;
  std::vector<uint64_t> events, answers;
  /// Each memory chunk's record (they differ in size).
  std::vector<uint64_t> memory;
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
  /// the byte ranges it wrote (coalesced, by chip, space, then address), and
  /// the CRC-32 of those ranges' final bytes, in order.
  std::vector<std::pair<uint8_t, uint64_t>> finalRegisters;
  std::vector<sim::AddrRange> writtenRanges;
  uint32_t writtenCrc = 0;

  /// Set for a window of one chip of a system (format version 4).
  std::optional<SystemWindow> system;

  /// Bytes of recorded state (registers and memory).
  uint64_t stateBytes() const;
  /// Whether the file it was read from had a zstd-compressed payload.
  bool compressed = false;
  /// Byte offsets of the fields, when read from a file.
  TraceLayout layout;

  /// Serialises to the file format (header, payload, checksum); with
  /// `compress`, the payload is zstd-compressed when this LLVM has zstd.
  std::vector<uint8_t> serialize(bool compress = false) const;
  /// Whether serialize(true) can compress (LLVM built with zstd).
  static bool canCompress();
  /// Parses a trace file, checking every size and count against the bytes
  /// that are left before allocating for it, and what needs no machine
  /// config: memory spaces are 0 or 1, written ranges are non-empty, in
  /// order and disjoint. Errors name the byte offset: "not an accel trace
  /// (bad magic at byte 0)", "unsupported trace format version 9 at byte
  /// 8", "truncated trace at byte N while reading X", "checksum mismatch
  /// ...", "invalid trace at byte N: ..." (docs/trace-format.md, "Errors").
  /// Every size is exact: a compressed payload's declared size must be what
  /// its frame regenerates, and the payload must end with its last field
  /// (the program image with its own, Program::fromImage). Never throws; allocates at most the file's size plus, for a compressed
  /// payload, its declared uncompressed size (at most kMaxZstdRatio times
  /// the compressed bytes).
  static llvm::Expected<Trace> deserialize(llvm::ArrayRef<uint8_t> bytes);

  /// Checks the trace against its program and the machine `config` it
  /// replays on, so that the replay indexes and allocates nothing by a
  /// number it has not checked: the program's buffers fit the config's
  /// VMEM and HBM; every PC of the window is an instruction of the program;
  /// memory chunks do not wrap around 2^64 and end inside the config's
  /// VMEM or HBM (the buffers that hold them are checked when the replay
  /// installs them); each DMA in flight has a unique id
  /// below the next DMA id, was issued by a dma.issue of the same shape and
  /// spaces on a link of the config, and reads and writes inside one
  /// buffer each; the next DMA id is at most the start index and
  /// kMaxTraceDmaIds; the written ranges lie in the program's buffers.
  /// Whether the window's PCs are the ones the program reaches is the
  /// replay's PC check. Errors: one message naming the byte offset of the
  /// field when the trace was read from a file ("invalid trace at byte N:
  /// ..."; "invalid trace payload at byte N: ..." for a compressed one;
  /// "invalid trace: ..." otherwise).
  /// A version-4 trace is also checked against its system section: the
  /// config has the recorded number of chips; every tile of the timing
  /// state and of the events is on the recorded chip and inside one
  /// buffer; the DMA timings match the DMAs in flight one to one; each
  /// event lies in the window, in order; semaphores and chips exist.
  llvm::Error validate(const sim::MachineConfig &config) const;

  /// Checks that the written ranges hold no more bytes than the window's
  /// instructions (the PCs in `pcs`) can write: the replay checks this once
  /// it has followed those PCs, before it reads the ranges back. Errors:
  /// "invalid trace at byte N: the written ranges hold B bytes but the
  /// window's I instructions write at most M".
  llvm::Error checkWrittenSize() const;

private:
  llvm::Error validateSystem(const sim::MachineConfig &config) const;
};

} // namespace replay
} // namespace accel

#endif // ACCEL_REPLAY_TRACE_H
