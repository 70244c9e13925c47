//===- ChipPeers.h - The rest of a system, as one chip sees it --*- C++ -*-===//
//
// Everything a chip of a system asks of, or tells, the other chips goes
// through a ChipPeers: the ICI network and the other chips' HBM for a
// remote DMA's timing, their memory for its data, their data-race checks,
// and the notices it leaves them (an incoming DMA, a semaphore signal). A
// System answers with its live chips; a replay of one chip of a system
// (replay::Replayer) answers from the trace's record of the window, so the
// chip runs alone with the timing it had in the system (SnR, Zarkadas et
// al., SoCC '25, §4.1-4.2, extended to one chip of the §5.2.1 system).
//
// The other direction, what other chips do to this one (write its memory,
// reserve its HBM, signal its semaphores), is a list of ExternalEvent: a
// System can log them for one chip (System::setEventLog) and a replay
// applies them (Simulator::applyExternal) at the same point of the chip's
// instruction stream.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_SIM_CHIPPEERS_H
#define ACCEL_SIM_CHIPPEERS_H

#include "accel/Sim/IciNetwork.h"
#include "accel/Sim/Memory.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <vector>

namespace accel {
namespace sim {

class Memory;

/// HBM time in units of 1 / hbm.bytes_per_cycle(milli) cycles, exact
/// (DmaEngine's HBM reservations).
using HbmUnits = unsigned __int128;

/// What one chip of a system reaches through the others. `fromChip` is
/// always the chip asking.
class ChipPeers {
public:
  virtual ~ChipPeers();
  /// The number of chips of the system.
  virtual unsigned getNumChips() const = 0;
  /// Whether the peers check this chip's memory footprint with their own
  /// (a System does, for all its chips at once: System::checkMemory).
  virtual bool checksMemory() const { return false; }
  /// The data-race check of the chip `tile` is on (Simulator::
  /// checkRemoteAccess): a DMA of `fromChip` reads (`writes` false) or
  /// writes `tile` from `cycle` on.
  virtual llvm::Error checkRemoteAccess(const TileRef &tile, bool writes,
                                        uint64_t cycle, uint32_t fromChip) = 0;
  /// The packets of a remote DMA of `fromChip` issued at `cycle`, ready at
  /// `ready`, cross `route` (IciNetwork::send).
  virtual IciTransfer send(uint32_t fromChip, uint64_t cycle, uint64_t ready,
                           llvm::ArrayRef<unsigned> route, uint64_t bytes) = 0;
  /// A remote DMA of `fromChip` reserves `length` units of chip `chip`'s
  /// HBM in its earliest gap at or after `from` (DmaEngine::reserveHbm);
  /// returns the start.
  virtual HbmUnits reserveHbm(uint32_t fromChip, uint32_t chip, HbmUnits from,
                              HbmUnits length, HbmUnits now) = 0;
  /// The data of a remote DMA of `fromChip`: tile `src` to tile `dst`, on
  /// different chips, one of them `fromChip` (whose memory is `own`).
  virtual void copy(uint32_t fromChip, Memory &own, const TileRef &src,
                    const TileRef &dst) = 0;
  /// A remote DMA of `fromChip` (id `dmaId`, issued at `pc`) reads
  /// (`writes` false) or writes `tile` of another chip until `complete`
  /// (Simulator::addIncoming on that chip).
  virtual void notifyIncoming(const TileRef &tile, bool writes,
                              uint64_t complete, uint32_t fromChip,
                              uint32_t dmaId, uint32_t pc) = 0;
  /// The DMA `dmaId` of `fromChip` signals semaphore `sem` of chip `chip`
  /// (not `fromChip`) at `cycle` (Simulator::signal).
  virtual void signal(uint32_t chip, unsigned sem, uint64_t cycle,
                      uint32_t fromChip, uint32_t dmaId) = 0;
};

/// What another chip did to this one between two of its instructions:
/// before this chip's instruction number `index` (0-based, since the start
/// of the run) executed.
struct ExternalEvent {
  enum class Kind : uint8_t {
    /// A remote DMA reserved HBM time of this chip (`from`, `length`,
    /// `now`: DmaEngine::reserveHbm's arguments).
    HbmReserve = 0,
    /// A remote DMA wrote `tile` of this chip: `bytes`, its elements row by
    /// row (rows * cols * elemBytes).
    MemWrite = 1,
    /// A remote DMA (`fromChip`, `dmaId`) signals semaphore `semaphore` at
    /// `cycle`.
    Signal = 2,
    /// A remote DMA (`fromChip`, `dmaId`, issued at `pc`) reads or
    /// (`writes`) writes `tile` until `cycle`.
    Incoming = 3,
  };
  static constexpr uint8_t kNumKinds = 4;
  uint64_t index = 0;
  Kind kind = Kind::HbmReserve;
  HbmUnits from = 0, length = 0, now = 0;
  TileRef tile;
  bool writes = false;
  std::vector<uint8_t> bytes;
  uint32_t semaphore = 0;
  uint64_t cycle = 0;
  uint32_t fromChip = 0, dmaId = 0, pc = 0;
};

/// What the rest of the system answered one remote DMA of this chip, in
/// issue order: its ICI transfer, the start of its HBM share on the other
/// chip (when it reads or writes HBM there), and for a remote read the
/// bytes it read there (row by row).
struct RemoteAnswer {
  IciTransfer transfer;
  bool hasPeerHbm = false;
  HbmUnits peerHbmAt = 0;
  std::vector<uint8_t> readBytes;
};

/// One chip's exchange with the rest of its system over a stretch of its
/// run: System::setEventLog fills it; a replay consumes it.
struct ChipEventLog {
  uint32_t chip = 0;
  std::vector<ExternalEvent> events;
  std::vector<RemoteAnswer> answers;
};

/// The bytes of `tile` of `memory`, row by row (rows * rowBytes()); the
/// caller checked its bounds. Errors: Memory::read's.
llvm::Error readTileBytes(Memory &memory, const TileRef &tile,
                          std::vector<uint8_t> &out);
/// Writes `bytes` (row by row) to `tile` of `memory`. Errors:
/// Memory::install's, or a size that is not the tile's.
llvm::Error writeTileBytes(Memory &memory, const TileRef &tile,
                           llvm::ArrayRef<uint8_t> bytes);

/// A ChipPeers that answers from a ChipEventLog: the rest of the system of
/// a replayed chip. Its answers go in order; asking for more than the log
/// holds, or for an HBM share it has not, sets an error (takeError) and
/// answers zeros.
class LoggedPeers : public ChipPeers {
public:
  LoggedPeers(const ChipEventLog &log, unsigned numChips)
      : log(log), numChips(numChips) {}
  unsigned getNumChips() const override { return numChips; }
  llvm::Error checkRemoteAccess(const TileRef &, bool, uint64_t,
                                uint32_t) override {
    return llvm::Error::success();
  }
  IciTransfer send(uint32_t, uint64_t, uint64_t, llvm::ArrayRef<unsigned>,
                   uint64_t) override;
  HbmUnits reserveHbm(uint32_t, uint32_t, HbmUnits, HbmUnits,
                      HbmUnits) override;
  void copy(uint32_t fromChip, Memory &own, const TileRef &src,
            const TileRef &dst) override;
  void notifyIncoming(const TileRef &, bool, uint64_t, uint32_t, uint32_t,
                      uint32_t) override {}
  void signal(uint32_t, unsigned, uint64_t, uint32_t, uint32_t) override {}
  /// The first problem met, once ("" when none).
  const std::string &getError() const { return error; }
  /// Remote DMAs answered so far.
  size_t getAnswered() const { return next; }

private:
  const RemoteAnswer *current(const char *what);
  const ChipEventLog &log;
  unsigned numChips;
  /// The answer of the remote DMA being issued (copy() moves on to the
  /// next).
  size_t next = 0;
  std::string error;
};

} // namespace sim
} // namespace accel

#endif // ACCEL_SIM_CHIPPEERS_H
