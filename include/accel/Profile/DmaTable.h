//===- DmaTable.h - metrics.json "dmas" as rows -----------------*- C++ -*-===//
//
// metrics.json lists every DMA of a run ("dmas", docs/metrics.md): 8374
// entries of about 25 JSON values each for the Llama MLP block, 95% of the
// document. Held as an nlohmann::json tree they cost a node allocation per
// value to build, to walk when written, and to free (about 30% of an
// `fdo` loop's CPU time and half its peak memory, issue 34; bench/
// RESULTS.md, session 37). A DmaTable holds them as rows, one struct per
// DMA, and writes the array straight to the file with JsonWriter, byte for
// byte what dumping the tree wrote (writeMetricsJson). In memory a run's
// metrics are then the tree of every other section plus this table.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_PROFILE_DMATABLE_H
#define ACCEL_PROFILE_DMATABLE_H

#include "accel/Profile/DmaStallAnalysis.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"

#include <nlohmann/json_fwd.hpp>

#include <optional>
#include <string>
#include <vector>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace accel {
class JsonWriter;
namespace profile {

/// A DMA's backtail under one dependence model (SnR, Zarkadas et al., SoCC
/// '25, §5.4, Fig. 9; docs/metrics.md "dmas"): how far its ISSUE could
/// move earlier before meeting the instruction it depends on (the bound).
struct Backtail {
  /// Instructions between the bound and the ISSUE (without a bound: every
  /// instruction of the run before the ISSUE).
  uint64_t instructions = 0;
  /// Cycles from the bound's result (without a bound: the run's first
  /// issue) to the ISSUE.
  uint64_t cycles = 0;
  /// The bound: its instruction index in the run and its PC; nullopt:
  /// nothing inside the run binds the ISSUE.
  std::optional<uint64_t> boundIndex;
  uint32_t boundPc = 0;
  /// The DMA whose WAIT the bound is, if it is one.
  std::optional<uint32_t> boundDma;
  /// Which input of the ISSUE the bound feeds: "address", "source" or
  /// "destination" (a string of static storage; unused without a bound).
  const char *via = "address";

  /// {"bound": {"dma", "index", "loc", "op", "op_id", "pc"} or null,
  /// "cycles", "instructions", "via"}: its entry in metrics.json, naming
  /// the bound by `program`'s origins.
  nlohmann::json toJson(const isa::Program &program) const;
};

/// One entry of metrics.json "dmas": a DMA that crossed a link, its timing
/// and stall split (DmaRecord) and, when the analyzer ran, its backtails.
struct DmaRow {
  DmaRecord record;
  /// Whether the analyzer gave the backtails below (a DMA in flight at the
  /// start of a replay window, or never issued in it, has none).
  bool hasBacktail = false;
  Backtail conservative, relaxed;
  /// Cycles the ISSUE could move earlier (the relaxed backtail's cycles
  /// when something binds it); nullopt: unbounded.
  std::optional<uint64_t> pushLimit;
};

/// metrics.json "dmas" of a run, as rows instead of a JSON tree (see the
/// file comment). Keeps what its entries name of the program (the op id
/// and location of each PC they refer to) and the machine (link names), so
/// it can be written after the run's program is gone.
class DmaTable {
public:
  DmaTable() = default;
  /// The DMAs of `collector` that crossed a link (DmaTiming::link >= 0),
  /// in its order, run by `program` on `config`.
  DmaTable(const isa::Program &program, const sim::MachineConfig &config,
           const DmaStallCollector &collector);

  llvm::ArrayRef<DmaRow> getRows() const { return rows; }
  size_t size() const { return rows.size(); }
  /// The row of DMA `id`, or nullptr. Ids increase along the rows of a
  /// one-chip run; a system's table repeats them (one series per chip)
  /// and has no lookup by id.
  DmaRow *find(uint32_t id);
  /// Sets the backtails of DMA `id`'s row (nothing if it has none), naming
  /// the bounds' PCs by `program`'s origins.
  void setBacktails(uint32_t id, const Backtail &conservative,
                    const Backtail &relaxed, std::optional<uint64_t> pushLimit,
                    const isa::Program &program);

  /// The origin of PC `pc` of a row (its ISSUE, WAIT or a bound), or
  /// nullptr (a PC past the program's end).
  const isa::Origin *getOrigin(uint32_t pc) const;

  /// Writes the array as one value of `w` (indented or not as `w` is),
  /// the bytes toJson() would dump to.
  void write(JsonWriter &w) const;
  /// The array as a JSON tree (what write() writes).
  nlohmann::json toJson() const;

private:
  /// Keeps the origin of `pc` (nothing for a PC past the program's end).
  void keepOrigin(const isa::Program &program, uint32_t pc);
  void writeBacktail(JsonWriter &w, const Backtail &b) const;

  std::vector<DmaRow> rows;
  /// MachineConfig::getLinkName of each link index the rows use.
  std::vector<std::string> linkNames;
  /// Whether the machine has several chips (rows then name their chip).
  bool multiChip = false;
  /// Whether ids increase along the rows (find() may bisect).
  bool sortedIds = true;
  /// The origins of the PCs the rows name (issue, WAIT, bounds).
  llvm::DenseMap<uint32_t, isa::Origin> origins;
};

/// metrics.json's "vmem" "heatmap" (docs/metrics.md#vmem): for each time
/// bucket, the used pages of each VMEM block (200 x 128 values by default,
/// about a sixth of a small run's host instructions when held as JSON
/// nodes to build, write and free). A run keeps it as rows beside its
/// metrics tree, as it keeps the DMA table.
using VmemHeatmap = std::vector<std::vector<uint32_t>>;

/// Writes a metrics.json document: `tree` (an object without "dmas") with
/// `dmas` as its "dmas" member (none when null), and `heatmap` (when not
/// null) as the "heatmap" member of its "vmem" object (which must then
/// have none), indented by 2 and ending in a newline, byte for byte as
/// writeJsonFile writes a tree holding them all.
void writeMetricsJson(llvm::raw_ostream &os, const nlohmann::json &tree,
                      const DmaTable *dmas,
                      const VmemHeatmap *heatmap = nullptr);
/// `heatmap` as the JSON array writeMetricsJson writes.
nlohmann::json heatmapToJson(const VmemHeatmap &heatmap);

} // namespace profile
} // namespace accel

#endif // ACCEL_PROFILE_DMATABLE_H
