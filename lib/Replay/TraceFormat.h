//===- TraceFormat.h - Records of the trace file ----------------*- C++ -*-===//
//
// Private to lib/Replay: the sizes of the trace file's fixed-size records
// and the readers and writers of the records that several sections share
// (docs/trace-format.md). Trace.cpp reads and writes the file and its
// window sections, TraceSystem.cpp the system section of a version-4
// trace, TraceValidate.cpp checks what was read.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_LIB_REPLAY_TRACEFORMAT_H
#define ACCEL_LIB_REPLAY_TRACEFORMAT_H

#include "accel/ISA/ByteStream.h"
#include "accel/Replay/Trace.h"

#include <string>

namespace accel {
namespace replay {

/// Bytes of the fixed-size records (docs/trace-format.md).
constexpr uint64_t kRegisterRecord = 1 + 8;
constexpr uint64_t kMemoryId = 4 + 1;
constexpr uint64_t kMemoryRecordMin = kMemoryId + 8 + 8;
constexpr uint64_t kTileRecord = kMemoryId + 4 * 8 + 1;
constexpr uint64_t kDmaRecord = 4 + 4 + 2 * kTileRecord;
constexpr uint64_t kPcRecord = 4;
constexpr uint64_t kWrittenRecord = kMemoryId + 8 + 8;
constexpr uint64_t kTimingRecord = 4 + 4 + 6 * 8 + 5 * 4;
constexpr uint64_t kSignalRecord = 4 + 8 + 4 + 4;
constexpr uint64_t kIncomingRecord = kTileRecord + 1 + 8 + 3 * 4;
constexpr uint64_t kHbmRecord = 2 * 16;
/// The smallest event (a Signal) and answer (no read bytes).
constexpr uint64_t kEventRecordMin = 8 + 1 + kSignalRecord;
constexpr uint64_t kAnswerRecordMin = 3 * 8 + 1 + 16 + 8;

/// A memory: the chip (u32) and the space (u8) of a range or tile.
void writeMemory(ByteWriter &w, uint32_t chip, isa::MemSpace space);
/// A tile: its memory, base, rows, cols, row stride (u64 each) and element
/// bytes (u8).
void writeTile(ByteWriter &w, const sim::TileRef &t);
/// A 128-bit HBM quantity: its low, then its high u64.
void writeWide(ByteWriter &w, sim::HbmUnits v);

/// Reads a memory space byte: 0 (HBM) or 1 (VMEM); any other value is an
/// error `invalid` + "OFFSET: WHAT is V (0 = HBM, 1 = VMEM)".
isa::MemSpace readSpace(ByteReader &r, const std::string &invalid,
                        const char *what);
/// Reads a tile (writeTile's record); elements of other than 2 or 4 bytes
/// are an error naming the offset.
sim::TileRef readTile(ByteReader &r, const std::string &invalid,
                      const char *what);
/// Reads writeWide's record.
sim::HbmUnits readWide(ByteReader &r, const char *what);

/// Writes the system section of a version-4 trace (docs/trace-format.md).
void writeSystem(ByteWriter &p, const SystemWindow &sys);
/// Reads the system section of a version-4 trace into `t.system` (and its
/// offsets into `t.layout`), checking every count against the bytes left
/// before allocating for it. Errors go to `r` (`invalid` starts the
/// message of an invalid value).
void readSystem(ByteReader &r, const std::string &invalid, Trace &t);

} // namespace replay
} // namespace accel

#endif // ACCEL_LIB_REPLAY_TRACEFORMAT_H
