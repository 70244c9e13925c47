//===- SystemAnalysis.h - What a system of chips did, as a whole -*- C++
//-*-===//
//
// The parts of metrics.json that belong to a system rather than to one of
// its chips (docs/metrics.md, "Systems of chips"): the load of every ICI
// link, the semaphore waits of each chip (which signals each consumed, and
// when), and lower bounds on the system's cycles that count every chip and
// every link, so `measured / bound` means the same for one chip and for 64.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_PROFILE_SYSTEMANALYSIS_H
#define ACCEL_PROFILE_SYSTEMANALYSIS_H

#include "accel/Sim/Simulator.h"

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <vector>

namespace accel {
namespace sim {
class System;
} // namespace sim

namespace profile {

class DmaTable;

/// Records the sem.waits of one chip: the semaphore, the signals each
/// consumed (chip and DMA id), the cycle it was ready and the cycle it
/// issued. A few bytes per sem.wait; nothing per other instruction.
class SemWaitLog : public sim::Observer {
public:
  struct Entry {
    uint32_t pc = 0;
    unsigned semaphore = 0;
    uint64_t ready = 0, resume = 0; ///< cycles
    std::vector<sim::Signal> consumed;
  };
  void onSemWait(const sim::SemWaitEvent &event) override;
  void onRetire(const sim::RetireEvent &event) override;
  const std::vector<Entry> &getEntries() const { return entries; }
  /// metrics.json's `sem_waits` of a chip: one object per sem.wait, in
  /// program order (docs/metrics.md, "Systems of chips").
  nlohmann::json toJson() const;

private:
  std::vector<Entry> entries;
  bool pending = false;
};

/// metrics.json's top-level `system` object for a run of `system` to its
/// end (docs/metrics.md, "Systems of chips"): the chip count and topology,
/// `ici` (the network's parameters and, per directed link that carried
/// anything, its bytes and busy cycles; the busiest link) and `bound`, the
/// system-wide lower bounds:
///   - `link_bound_cycles`: per ICI link l, busy(l) + min over the DMAs
///     crossing it of the hop latencies before l plus T_b (a packet cannot
///     reach l earlier) + min over them of the hop latencies from l on (the
///     last packet still crosses the rest of its route), the largest over
///     the links. Every packet's serialization is fixed, so busy(l) is the
///     same in every schedule.
///   - `chip_bound_cycles`: the largest `latency_lower_bound_cycles` (else
///     `lower_bound_cycles`) of the chips' rooflines in `chipMetrics`
///     (each chip's own work and critical path).
///   - `lower_bound_cycles`: the larger of the two, and
///     `measured_over_bound` = total cycles / it.
/// `dmas` is the system's DMA table (metrics.json's `dmas`: its remote
/// rows, src_chip != dst_chip, give the hops and base_end - issue).
nlohmann::json
buildSystemMetrics(const sim::System &system, uint64_t totalCycles,
                   const DmaTable &dmas,
                   const std::vector<nlohmann::json> &chipMetrics);

} // namespace profile
} // namespace accel

#endif // ACCEL_PROFILE_SYSTEMANALYSIS_H
