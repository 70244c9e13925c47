//===- DmaStallAnalysis.h - Per-DMA stall split and metrics.json -*- C++
//-*-===//
//
// The performance tracker of SnR §4.2 for the DMA stall analysis of
// §5.2: it observes ISSUE and WAIT events of a run and splits every WAIT's
// stall into base-latency and transfer-latency parts, or slack (Fig. 4).
// The result is written as metrics.json (schema: docs/metrics.md).
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_PROFILE_DMASTALLANALYSIS_H
#define ACCEL_PROFILE_DMASTALLANALYSIS_H

#include "accel/ISA/Isa.h"
#include "accel/Sim/Simulator.h"
#include "accel/Support/MetricsSchema.h"

#include <nlohmann/json_fwd.hpp>

#include <optional>
#include <vector>

namespace accel {
namespace profile {

/// One DMA's lifetime (cycles) and, when it was waited on, the split of the
/// first WAIT (SnR Fig. 4). Later WAITs on a completed DMA add nothing.
struct DmaRecord {
  sim::DmaTiming timing;
  uint32_t issuePc = 0;
  std::optional<uint64_t> waitCycle; ///< cycle the first WAIT was reached
  uint32_t waitPc = 0;
  uint64_t stallBase = 0, stallTransfer = 0, slack = 0;
};

/// Observer that records DMAs and per-PC executions and stall cycles by
/// cause (unit busy time is in sim::RunSummary).
class DmaStallCollector : public sim::Observer {
public:
  void onDmaIssue(uint32_t pc, const sim::DmaTiming &dma) override;
  void onDmaWait(const sim::WaitEvent &event) override;
  void onRetire(const sim::RetireEvent &event) override;

  /// Every DMA seen issued, in id order (one record each; ids need not
  /// start at 0: a replayed window continues the recorded run's numbering).
  const std::vector<DmaRecord> &dmas() const { return records; }
  /// Stall cycles charged to each PC, by cause.
  struct PcStats {
    uint64_t executions = 0;
    uint64_t stall[size_t(sim::StallCause::NumCauses)] = {};
    /// Executions that waited for a DMA slot (cause dma_slots).
    uint64_t slotWaits = 0;
  };
  const std::vector<PcStats> &pcStats() const { return perPc; }
  /// Adds the records of another chip's collector (a system's metrics sum
  /// every chip's): its DMAs after these (ids repeat across chips: each
  /// record's timing names its chip), its per-PC counts added to these.
  /// Call it after the run: find() no longer holds.
  void merge(const DmaStallCollector &other);

private:
  /// The record of DMA `id`, or nullptr (binary search: records are sorted
  /// by id).
  DmaRecord *find(uint32_t id);

  std::vector<DmaRecord> records;
  std::vector<PcStats> perPc;
};

/// Builds metrics.json for a finished run: totals, stall cycles by cause,
/// unit utilization, per-link traffic and per-op-id aggregates (the keys
/// `accel-opt --accel-attach-metrics` reads). Every DMA ("dmas") is not in
/// the tree: it is the run's DmaTable (DmaTable.h), which
/// writeMetricsJson writes in its place.
nlohmann::json buildMetrics(const isa::Program &program,
                            const sim::MachineConfig &config,
                            const sim::RunSummary &summary,
                            const DmaStallCollector &collector);

/// Writes the human summary (report.txt): totals and the top stalled DMA
/// ops with their locations, in the words of SnR §5.2.
void writeReport(const nlohmann::json &metrics, llvm::raw_ostream &os,
                 unsigned topN = 10);

} // namespace profile
} // namespace accel

#endif // ACCEL_PROFILE_DMASTALLANALYSIS_H
