//===- DmaEngine.h - DMA timing model (seed 000 Fig. 4) ---------*- C++ -*-===//

#ifndef ACCEL_SIM_DMAENGINE_H
#define ACCEL_SIM_DMAENGINE_H

#include "accel/Sim/MachineConfig.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace accel {
namespace sim {

/// Timing of one DMA, in cycles (seed 000 §5.2, Fig. 4).
struct DmaTiming {
  uint32_t id = 0;
  int link = -1;
  uint64_t bytes = 0;
  uint64_t issue = 0;         ///< cycle of the ISSUE
  uint64_t baseEnd = 0;       ///< issue + T_b(link)
  uint64_t transferStart = 0; ///< max(baseEnd, link free): FIFO order
  uint64_t complete = 0;      ///< transferStart + ceil(bytes / bandwidth)
  /// A DMA of a replayed run that completed before the trace window: only
  /// its id is known; a WAIT on it finds it complete.
  bool completedBefore = false;
};

/// How a WAIT at some cycle relates to its DMA (seed 000 Fig. 4, DESIGN §2).
/// For WAIT at w, ISSUE at i, completion c, base latency T_b:
///   w < i + T_b:        stallBase = i + T_b - w, stallTransfer = c - (i+T_b)
///   i + T_b <= w < c:   stallTransfer = c - w
///   w >= c:             slack = w - c
struct WaitOutcome {
  uint64_t stallBase = 0, stallTransfer = 0, slack = 0;
  uint64_t resume = 0; ///< cycle at which the WAIT completes: max(w, c)
};

/// The asynchronous DMA engine: per-link FIFOs, constant non-accumulative
/// base latency, transfers at link bandwidth. DMAs must be issued in
/// non-decreasing cycle order; since T_b is constant per link, arrival order
/// at a link equals issue order, so the FIFO position is fixed at ISSUE.
class DmaEngine {
public:
  explicit DmaEngine(const MachineConfig &config);

  /// Issues a DMA of `bytes` on `link` at `cycle`; returns its id: the next
  /// id (0, 1, ... after any reserved ones), or `id` when given (replay of a
  /// DMA already in flight when a trace window began).
  uint32_t issue(uint64_t cycle, int link, uint64_t bytes,
                 std::optional<uint32_t> id = std::nullopt);
  /// Makes the next issued DMA get id `next` (a replay window continues the
  /// numbering of the recorded run). Ids below it that are not issued
  /// later (in-flight DMAs are, by the replayer) count as DMAs completed
  /// before the window: a WAIT on them does not stall.
  void reserveIds(uint32_t next);
  /// Timing of DMA `id` (must have been issued).
  const DmaTiming &get(uint32_t id) const { return dmas[id]; }
  bool isValid(uint32_t id) const {
    return id < dmas.size() && (dmas[id].link >= 0 || dmas[id].completedBefore);
  }
  /// The id the next ISSUE gets.
  uint32_t nextId() const { return uint32_t(dmas.size()); }
  /// Splits the wait of a WAIT on `id` at `cycle` per Fig. 4.
  WaitOutcome wait(uint32_t id, uint64_t cycle) const;
  /// Number of DMAs issued at or before `cycle` and not complete at `cycle`.
  unsigned outstandingAt(uint64_t cycle) const;
  /// Earliest completion cycle strictly after `cycle` among DMAs in flight.
  uint64_t nextCompletionAfter(uint64_t cycle) const;
  /// Cycle at which every issued DMA has completed.
  uint64_t drainCycle() const;
  const std::vector<DmaTiming> &all() const { return dmas; }
  /// Transfer cycles for `bytes` on `link`: ceil(bytes / bytesPerCycle).
  uint64_t transferCycles(int link, uint64_t bytes) const;

private:
  const MachineConfig &config;
  std::vector<DmaTiming> dmas;
  std::vector<uint64_t> linkFree;
  std::vector<uint32_t> inFlight; ///< ids possibly not complete yet
};

} // namespace sim
} // namespace accel

#endif // ACCEL_SIM_DMAENGINE_H
