//===- DmaEngine.h - DMA timing model (SnR Fig. 4) ---------*- C++ -*-===//

#ifndef ACCEL_SIM_DMAENGINE_H
#define ACCEL_SIM_DMAENGINE_H

#include "accel/Sim/ChipPeers.h"
#include "accel/Sim/IciNetwork.h"
#include "accel/Sim/MachineConfig.h"
#include "accel/Sim/Memory.h"

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

namespace accel {
namespace sim {

/// Timing of one DMA, in cycles (SnR §5.2, Fig. 4).
struct DmaTiming {
  uint32_t id = 0;
  /// The link it moved on: an index of MachineConfig::links for a DMA
  /// within a chip; for a remote DMA, links.size() plus the first ICI link
  /// of its route (MachineConfig::getLinkName names both); -1 for a DMA
  /// completed before a replay window.
  int link = -1;
  uint64_t bytes = 0;
  /// Bytes on the bus: `bytes`, or for a DMA that reads or writes HBM the
  /// whole bursts its HBM side touches (getBurstBytes).
  uint64_t busBytes = 0;
  uint64_t issue = 0;         ///< cycle of the ISSUE
  uint64_t baseEnd = 0;       ///< issue + T_b(link)
  uint64_t transferStart = 0; ///< max(baseEnd, link free): FIFO order
  uint64_t complete = 0;      ///< transferStart + ceil(bytes / bandwidth)
  /// A DMA of a replayed run that completed before the trace window: only
  /// its id is known; a WAIT on it finds it complete.
  bool completedBefore = false;
  /// The chip that issued it, the chips of its source and destination
  /// (both the issuing chip's unless the DMA is remote) and the ICI hops
  /// between them.
  uint32_t chip = 0, srcChip = 0, dstChip = 0;
  unsigned hops = 0;
  /// The semaphore of the destination chip its completion signals, or -1.
  int semaphore = -1;
};

/// How a WAIT at some cycle relates to its DMA (SnR Fig. 4, DESIGN §2).
/// For WAIT at w, ISSUE at i, completion c, base latency T_b:
///   w < i + T_b:        stallBase = i + T_b - w, stallTransfer = c - (i+T_b)
///   i + T_b <= w < c:   stallTransfer = c - w
///   w >= c:             slack = w - c
struct WaitOutcome {
  uint64_t stallBase = 0, stallTransfer = 0, slack = 0;
  uint64_t resume = 0; ///< cycle at which the WAIT completes: max(w, c)
};

/// The bytes a DMA moves on HBM's bus for its HBM side `tile`: every
/// `burst`-byte block that any of its rows touches, counted once per row
/// (rows do not share bursts unless the tile is one contiguous range).
/// A contiguous tile costs its span rounded out to bursts; 32-byte rows at
/// a 4 KiB stride cost a whole 64-byte burst each.
uint64_t getBurstBytes(const TileRef &tile, uint64_t burst);

/// The asynchronous DMA engine: per-link FIFOs, constant non-accumulative
/// base latency, transfers at link bandwidth. DMAs must be issued in
/// non-decreasing cycle order; since T_b is constant per link, arrival order
/// at a link equals issue order, so the FIFO position is fixed at ISSUE.
class DmaEngine {
public:
  explicit DmaEngine(const MachineConfig &config);

  /// Issues a DMA of `bytes` on `link` at `cycle`; returns its id: the next
  /// id (0, 1, ... after any reserved ones), or `id` when given (replay of a
  /// DMA already in flight when a trace window began). `busBytes` (0: equal
  /// to `bytes`) is what the transfer moves, bursts included. On a link
  /// that reads or writes HBM the transfer also needs HBM, one transfer at
  /// a time: once its base latency has passed and its link is free, it
  /// takes the earliest gap of HBM time long enough for
  /// busBytes / hbm.bytes_per_cycle cycles (kept exactly, without rounding
  /// per transfer), starts in the cycle that gap begins, and completes
  /// when both its link (ceil(busBytes / the link's bytes_per_cycle)
  /// cycles) and its HBM time are done. So HBM never moves more than
  /// hbm.bytes_per_cycle, whatever the links (docs/isa.md, "DMA timing").
  /// A link a calibration table covers (docs/config.md, "Calibration";
  /// keys bytes and `rows`, the source tile's rows) takes the table's
  /// latency L of a lone DMA instead: base latency min(base_latency, L),
  /// then L - base cycles of transfer, during which it holds its link and,
  /// on an HBM link, HBM (for at most the time busBytes take at
  /// hbm.bytes_per_cycle; a table faster than that is warned about once).
  uint32_t issue(uint64_t cycle, int link, uint64_t bytes,
                 std::optional<uint32_t> id = std::nullopt,
                 uint64_t busBytes = 0, uint64_t rows = 1);
  /// Issues a DMA of `bytes` at `cycle` between two chips (remote DMA;
  /// docs/config.md, "ICI") for chip `chip`, whose engine this is: after
  /// the base latency of `localLink` (the link of its pair of spaces, which
  /// it does not occupy) its packets cross `route` (the directed ICI links
  /// from the source's chip to the destination's, non-empty), contending
  /// with every other remote DMA for each link (ChipPeers::send). `srcHbm` /
  /// `dstHbm` are the chips whose HBM it reads / writes, if any: it reserves
  /// `busBytes` (its HBM bursts) of each as a local DMA does (this engine's
  /// for `chip`, the peers' for another), the source's before the first
  /// packet leaves, the destination's as the packets arrive, and completes
  /// when the last packet has arrived and both shares are done. base_end
  /// (Fig. 4) is the unloaded latency, issue + T_b + hops * ici.hop_latency;
  /// transfer_start the first packet's arrival (at least base_end). Returns
  /// its id.
  uint32_t issueRemote(uint64_t cycle, int localLink, uint64_t bytes,
                       llvm::ArrayRef<unsigned> route, ChipPeers &peers,
                       uint32_t chip, std::optional<uint32_t> srcHbm,
                       std::optional<uint32_t> dstHbm, uint64_t busBytes = 0);
  /// Reserves `length` units of HBM time (1 / hbm.bytes_per_cycle(milli)
  /// cycles each) in the earliest gap starting at or after `from`, dropping
  /// reservations that end by `now`; returns the start. A remote DMA of
  /// another chip calls it on the engine of the chip whose HBM it uses.
  HbmUnits reserveHbm(HbmUnits from, HbmUnits length, HbmUnits now);

  /// The engine's state between two instructions beyond its DMAs' timings:
  /// when each link is free, the latest remote completion, and HBM's
  /// reservations ([start, end) in HBM units, by start). A replay of one
  /// chip of a system installs it to continue the recorded run's timing.
  struct State {
    std::vector<uint64_t> linkFree;
    uint64_t remoteDrain = 0;
    std::vector<std::pair<HbmUnits, HbmUnits>> hbmBusy;
  };
  State getState() const;
  /// Installs `state` (linkFree has one entry per link of the config).
  void setState(const State &state);
  /// Installs the timing of a DMA issued before a replay window and not yet
  /// WAITed, as recorded (its id below the reserved ids).
  void install(const DmaTiming &timing) { record(timing); }
  /// Sets the chips and semaphore of DMA `id` (records only; no timing).
  void annotate(uint32_t id, uint32_t chip, uint32_t srcChip,
                uint32_t dstChip, int semaphore);
  /// Makes the next issued DMA get id `next` (a replay window continues the
  /// numbering of the recorded run). Ids below it that are not issued
  /// later (in-flight DMAs are, by the replayer, with their ids) count as
  /// DMAs completed before the window: a WAIT on them does not stall. Call
  /// it before the first issue(). Costs no memory per reserved id, so any
  /// `next` up to 2^32 - 1 is fine.
  void reserveIds(uint32_t next);
  /// Timing of DMA `id` (isValid(id)); a reserved id that was not issued
  /// reads as a DMA with `completedBefore`.
  const DmaTiming &get(uint32_t id) const;
  bool isValid(uint32_t id) const {
    return id < nextId() && (id < firstSequentialId ||
                             sequential[id - firstSequentialId].link >= 0);
  }
  /// The id the next ISSUE gets.
  uint32_t nextId() const {
    return firstSequentialId + uint32_t(sequential.size());
  }
  /// Number of DMAs issued (not counting reserved ids).
  size_t numIssued() const { return sequential.size() + early.size(); }
  /// Splits the wait of a WAIT on `id` at `cycle` per Fig. 4.
  WaitOutcome wait(uint32_t id, uint64_t cycle) const;
  /// Number of DMAs issued at or before `cycle` and not complete at `cycle`.
  unsigned outstandingAt(uint64_t cycle) const;
  /// Earliest completion cycle strictly after `cycle` among DMAs in flight.
  uint64_t nextCompletionAfter(uint64_t cycle) const;
  /// Cycle at which every issued DMA has completed.
  uint64_t drainCycle() const;
  /// Transfer cycles for `bytes` on `link`: ceil(bytes / bytes_per_cycle),
  /// in integers (getTransferCycles).
  uint64_t transferCycles(int link, uint64_t bytes) const;

private:
  DmaTiming &lookup(uint32_t id);
  /// Retires the DMAs complete by `cycle` from the in-flight list and
  /// returns a timing with `id`, `bytes` and `issue` set: the part of an
  /// ISSUE every link model shares.
  DmaTiming start(uint64_t cycle, uint64_t bytes, uint32_t id);
  /// Stores `t` under its id and counts it in flight; returns the id.
  uint32_t record(const DmaTiming &t);

  const MachineConfig &config;
  /// DMAs with ids from firstSequentialId on, by id: the ids issue() hands
  /// out in order. One record per DMA that ran (the metrics list every DMA
  /// too).
  std::vector<DmaTiming> sequential;
  uint32_t firstSequentialId = 0;
  /// DMAs issued with an explicit id below firstSequentialId: a replay's
  /// DMAs in flight when its window began (few).
  std::map<uint32_t, DmaTiming> early;
  /// What get() returns for a reserved id that was not issued.
  DmaTiming completedBefore;
  std::vector<uint64_t> linkFree;
  /// By link of `config.links`: the calibration table covering its DMAs
  /// (one naming the link, else one naming none), or null.
  std::vector<const CalibrationEntry *> linkCalibration;
  using Wide = HbmUnits;
  /// HBM's reservations, [start, end) in units of 1 / hbmMilliBytesPerCycle
  /// cycles (exact: no rounding per transfer), disjoint and not touching.
  std::map<Wide, Wide> hbmBusy;
  /// The latest completion of a remote DMA (their ICI links are the
  /// system's).
  uint64_t remoteDrain = 0;
  std::vector<uint32_t> inFlight; ///< ids possibly not complete yet
};

} // namespace sim
} // namespace accel

#endif // ACCEL_SIM_DMAENGINE_H
