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
#include "accel/Support/BulkVector.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <iterator>
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

/// The PCs of a window's instructions, in order, kept as runs of
/// consecutive PCs (pc, pc + 1, ...): a stretch of straight-line code is
/// one run of 8 bytes, where a vector held 4 bytes per instruction (issue
/// 34: a --timing-only replay of a 16 M-instruction layernorm_loop trace
/// peaked at 150 MB with the vector, 101 MB with the runs; its CPU time is
/// about the same, the page faults saved paying for reading the PCs into
/// runs). The runs are maximal, so two equal sequences have equal runs.
/// The file keeps one u32 per PC either way (docs/trace-format.md).
class PcSequence {
public:
  struct Run {
    uint32_t first; ///< the run's first PC
    uint32_t count; ///< its length, at least 1
  };
  /// Walks the PCs in order.
  class iterator {
  public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = uint32_t;
    using difference_type = std::ptrdiff_t;
    using pointer = const uint32_t *;
    using reference = uint32_t;
    iterator() = default;
    uint32_t operator*() const { return run->first + offset; }
    iterator &operator++() {
      if (++offset == run->count) {
        ++run;
        offset = 0;
      }
      return *this;
    }
    iterator operator++(int) {
      iterator old = *this;
      ++*this;
      return old;
    }
    bool operator==(const iterator &o) const {
      return run == o.run && offset == o.offset;
    }
    bool operator!=(const iterator &o) const { return !(*this == o); }

  private:
    friend class PcSequence;
    iterator(const Run *run, uint32_t offset) : run(run), offset(offset) {}
    const Run *run = nullptr;
    uint32_t offset = 0;
  };
  using const_iterator = iterator;
  using value_type = uint32_t;

  PcSequence() = default;
  PcSequence(std::initializer_list<uint32_t> pcs) { append(pcs); }
  explicit PcSequence(llvm::ArrayRef<uint32_t> pcs) { append(pcs); }

  /// Appends `pc`, extending the last run when it follows it.
  void push_back(uint32_t pc) { append(llvm::ArrayRef<uint32_t>(pc)); }
  /// Appends each of `pcs`, each extending the last run when it follows
  /// it (a run stops at UINT32_MAX PCs).
  void append(llvm::ArrayRef<uint32_t> pcs);
  void clear() {
    runs.clear();
    total = 0;
  }
  /// Instructions (PCs), not runs.
  uint64_t size() const { return total; }
  bool empty() const { return total == 0; }
  iterator begin() const { return iterator(runs.data(), 0); }
  iterator end() const { return iterator(runs.data() + runs.size(), 0); }
  /// The last PC (the sequence is not empty).
  uint32_t back() const { return runs.back().first + runs.back().count - 1; }
  /// The PC of instruction `i` (< size()), found by a walk over the runs:
  /// for messages and tests, not for a loop over the window.
  uint32_t operator[](uint64_t i) const;
  /// Sets instruction `i`'s PC (< size()); rebuilds the runs (tests that
  /// edit a window).
  void set(uint64_t i, uint32_t pc);
  /// Keeps the first `n` PCs (n <= size()).
  void truncate(uint64_t n);
  /// The PCs one per element.
  std::vector<uint32_t> toVector() const {
    return std::vector<uint32_t>(begin(), end());
  }
  llvm::ArrayRef<Run> getRuns() const { return {runs.data(), runs.size()}; }

  bool operator==(const PcSequence &o) const {
    return total == o.total &&
           std::equal(runs.begin(), runs.end(), o.runs.begin(), o.runs.end(),
                      [](const Run &a, const Run &b) {
                        return a.first == b.first && a.count == b.count;
                      });
  }
  bool operator!=(const PcSequence &o) const { return !(*this == o); }
  friend bool operator==(const PcSequence &a, const std::vector<uint32_t> &b) {
    return a.size() == b.size() && std::equal(b.begin(), b.end(), a.begin());
  }
  friend bool operator==(const std::vector<uint32_t> &a, const PcSequence &b) {
    return b == a;
  }

private:
  /// A BulkVector: a 16 M-instruction loop has millions of runs, which a
  /// std::vector copied at each doubling (93% of a --timing-only replay's
  /// page faults, with those of the copies' new pages).
  BulkVector<Run> runs;
  uint64_t total = 0;
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
  PcSequence pcs;
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
