//===- Sweep.h - Config sweeps: one program or trace, many machines -*- C++
//-*-===//
//
// `accel-replay sweep` (docs/sweep.md): the grid of machine configs that
// `--set PATH=V1,V2,...` options span, each point's config built from a base
// config, the points run in parallel on a thread pool (or one shard of them,
// for a cluster's array job), and the rows written as sweep.csv and
// sweep.json. The what-if space of datapath parameters is FAST's (Zhang et
// al., ASPLOS '22, FAST); replaying one recorded trace on many machines
// is SnR's method (Zarkadas et al., SoCC '25, §4.2).
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_FDO_SWEEP_H
#define ACCEL_FDO_SWEEP_H

#include "accel/Sim/MachineConfig.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace accel {

/// Most points a sweep may have (the product of its axes' value counts).
constexpr uint64_t kMaxSweepPoints = 1u << 20;

/// One `--set PATH=V1,V2,...`: a config field and the values it takes.
struct SweepAxis {
  /// The field as written: "vmem.bytes", "dma.links[0].bytes_per_cycle".
  std::string path;
  /// The values as JSON (integers, numbers, true/false, strings) and as
  /// written ("8Mi").
  std::vector<nlohmann::json> values;
  std::vector<std::string> texts;
};

/// Parses "PATH=V1,V2,...". A value is an integer or a number, optionally
/// with a binary suffix (Ki, Mi, Gi, Ti: 2^10 ... 2^40; "8Mi" = 8388608),
/// `true`/`false`, or any other text as a string ("ws"). Errors: no '=',
/// an empty path or value, a path not of the form `a.b[0].c`, a value
/// repeated, more than 4096 values.
llvm::Expected<SweepAxis> parseSweepAxis(llvm::StringRef spec);

/// The grid of a sweep: the cartesian product of its axes, the last axis
/// varying fastest; point i has the value indices getIndices(i).
class SweepGrid {
public:
  /// Errors: no axis, two axes on one path, more than kMaxSweepPoints
  /// points.
  static llvm::Expected<SweepGrid> create(std::vector<SweepAxis> axes);
  uint64_t size() const { return points; }
  const std::vector<SweepAxis> &getAxes() const { return axes; }
  std::vector<unsigned> getIndices(uint64_t point) const;
  /// "vmem.bytes=8Mi dma.links[0].bytes_per_cycle=512".
  std::string describe(uint64_t point) const;
  /// The config of `point`: `baseText` (a whole config document, such as
  /// MachineConfig::jsonText) with each axis's field set to the point's
  /// value, then validated by MachineConfig::fromJson. A point that sets
  /// vmem.bytes but not vmem.blocks also sets vmem.blocks to vmem.bytes /
  /// (pages_per_block x page_bytes), so a VMEM size can be swept alone.
  /// Errors name the point ("point 3 (vmem.bytes=8Mi): ..."): a path the
  /// config does not have, or the validation error of the result.
  llvm::Expected<sim::MachineConfig> getConfig(uint64_t point,
                                               llvm::StringRef baseText) const;

private:
  std::vector<SweepAxis> axes;
  uint64_t points = 0;
};

/// `--shard I/N`: this process runs the points p with p mod N = I.
struct SweepShard {
  unsigned index = 0, count = 1;
  bool contains(uint64_t point) const { return point % count == index; }
};
/// Parses "I/N" (0 <= I < N <= 65536). Errors name the text.
llvm::Expected<SweepShard> parseSweepShard(llvm::StringRef text);

/// The outcome of one point: the row's measured fields (docs/sweep.md), or
/// the error that stopped it.
struct SweepRow {
  uint64_t point = 0;
  std::string configHash;
  bool ok = false;
  std::string error;
  uint64_t totalCycles = 0;
  uint64_t dmaStallBase = 0, dmaStallTransfer = 0;
  double mxuUtilization = 0, vpuUtilization = 0;
  /// Peak VMEM in use (bytes): the analyzer's peak page occupancy.
  uint64_t peakVmemBytes = 0;
  /// For a program, the FDO loop's result on this machine.
  struct Fdo {
    uint64_t bestCycles = 0;
    unsigned bestIteration = 0;
    double cyclesReduction = 0;
    bool resultsIdentical = true;
  };
  std::optional<Fdo> fdo;
};

/// Fills a row from a run's metrics.json (docs/metrics.md).
void fillSweepRow(SweepRow &row, const nlohmann::json &metrics);

/// Runs `evaluate` on every point of `grid` in `shard`, on `jobs` threads
/// (0: every hardware thread) of an llvm::DefaultThreadPool; `onDone` is
/// called (serialized) as each point finishes, with the number done so
/// far. Rows come back in point order. `evaluate` must be thread-safe.
std::vector<SweepRow> runSweep(
    const SweepGrid &grid, const SweepShard &shard, unsigned jobs,
    const std::function<SweepRow(uint64_t point)> &evaluate,
    const std::function<void(const SweepRow &, uint64_t done, uint64_t total)>
        &onDone = nullptr);

/// sweep.csv: a header, then one line per row (docs/sweep.md).
std::string writeSweepCsv(const SweepGrid &grid,
                          const std::vector<SweepRow> &rows);
/// sweep.json (docs/sweep.md).
nlohmann::json writeSweepJson(const SweepGrid &grid, const SweepShard &shard,
                              llvm::StringRef input, llvm::StringRef kind,
                              const std::vector<SweepRow> &rows);

} // namespace accel

#endif // ACCEL_FDO_SWEEP_H
