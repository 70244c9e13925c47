//===- MachineConfig.h - The machine model's parameters ---------*- C++ -*-===//
//
// One object holds every number the simulator uses (docs/config.md):
// an embedded default (docs/config.md; each field names its source under
// "sources") that a JSON file may override field by field.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_SIM_MACHINECONFIG_H
#define ACCEL_SIM_MACHINECONFIG_H

#include "accel/ISA/Isa.h"
#include "accel/Sim/Calibration.h"
#include "accel/Sim/Topology.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace accel {
namespace sim {

/// Ranges of the config's numbers (docs/config.md, "Limits"): values
/// outside them are one error naming the field, so no later arithmetic in
/// cycles or bytes can overflow 64 bits or allocate without bound.
/// VMEM is allocated in full when a program runs: at most 4 GiB.
constexpr uint64_t kMaxVmemBytes = 1ull << 32;
/// HBM is allocated by 64 KiB page as it is touched: at most 2^48 bytes.
constexpr uint64_t kMaxHbmBytes = 1ull << 48;
/// MXU rows/cols and VPU lanes.
constexpr uint64_t kMaxUnitSize = 1ull << 16;
/// Per-instruction latencies and VPU costs, in cycles.
constexpr uint64_t kMaxUnitLatency = 1ull << 16;
constexpr uint64_t kMaxOutstandingDmas = 1ull << 16;
/// HBM's burst, in bytes.
constexpr uint64_t kMaxBurstBytes = 1ull << 16;
/// A DMA link's base latency, in cycles (about 1 s at 1 GHz).
constexpr uint64_t kMaxBaseLatency = 1ull << 30;
/// A DMA link's bandwidth, in bytes per cycle.
constexpr double kMinBytesPerCycle = 0.001;
constexpr double kMaxBytesPerCycle = double(1ull << 30);
/// Bandwidths are kept as integers of 1/kBandwidthScale bytes per cycle
/// (the config's number rounded to the nearest 0.001), so transfer times
/// are integer divisions with one rounding: 6100 bytes at 6.1 B/cycle take
/// exactly 1000 cycles.
constexpr uint64_t kBandwidthScale = 1000;

/// Cycles to move `bytes` at `milliBytesPerCycle` / kBandwidthScale bytes
/// per cycle: ceil(bytes * kBandwidthScale / milliBytesPerCycle), in
/// integers (bytes < 2^54; milliBytesPerCycle >= 1).
inline uint64_t getTransferCycles(uint64_t bytes, uint64_t milliBytesPerCycle) {
  return (bytes * kBandwidthScale + milliBytesPerCycle - 1) /
         milliBytesPerCycle;
}

/// A DMA link: a (source memory, destination memory) pair. A link moves one
/// transfer at a time (FIFO) at `bytesPerCycle`; every DMA on it first pays
/// `baseLatency` cycles, constant and non-accumulative (SnR §5.2,
/// Fig. 4).
struct LinkConfig {
  std::string name; ///< "hbm->vmem", ...
  isa::MemSpace src = isa::MemSpace::HBM, dst = isa::MemSpace::VMEM;
  uint64_t baseLatency = 0; ///< cycles (T_b)
  double bytesPerCycle = 1; ///< bytes / cycle, as the config gave it
  /// bytesPerCycle * kBandwidthScale, rounded: what timing uses.
  uint64_t milliBytesPerCycle = kBandwidthScale;
};

/// Which operand a systolic MXU holds in its PEs while the others stream
/// (SCALE-Sim's dataflows, Samajdar et al., ISPASS 2020): for
/// C[m x n] = A[m x k] * B[k x n], weight-stationary holds B, input-
/// stationary holds A, output-stationary accumulates C in place.
enum class MxuDataflow : uint8_t {
  WeightStationary,
  InputStationary,
  OutputStationary
};
/// "ws", "is", "os".
llvm::StringRef mxuDataflowName(MxuDataflow dataflow);

/// How an ICI router forwards a packet (Dally and Towles, Principles and
/// Practices of Interconnection Networks, 2004, ch. 13): virtual
/// cut-through sends it on as soon as its head has arrived (and buffers
/// it whole when the next link is busy); store-and-forward waits for the
/// whole packet first.
enum class IciSwitching : uint8_t { CutThrough, StoreAndForward };
/// "cut_through", "store_and_forward".
llvm::StringRef iciSwitchingName(IciSwitching switching);
/// The inverse of iciSwitchingName; std::nullopt for another name.
std::optional<IciSwitching> parseIciSwitching(llvm::StringRef name);

/// The machine model. Units: cycles and bytes.
struct MachineConfig {
  std::string name;
  double clockGHz = 1.0;
  uint64_t hbmBytes = 0;
  /// HBM's bandwidth (hbm.bytes_per_cycle), shared by every transfer of
  /// the links that read or write HBM (DmaEngine; docs/isa.md "DMA
  /// timing"), as an integer of 1/kBandwidthScale bytes per cycle: stored
  /// once, in the form every use reads.
  uint64_t hbmMilliBytesPerCycle = kBandwidthScale;
  /// HBM moves whole bursts of this many bytes: a DMA row is charged every
  /// burst it touches (getBurstBytes).
  uint64_t dmaBurstBytes = 1;
  uint64_t vmemBytes = 0;
  uint64_t vmemPageBytes = 0;
  unsigned vmemBlocks = 0, vmemPagesPerBlock = 0;
  unsigned mxuRows = 0, mxuCols = 0;
  /// The MXU's dataflow and whether its folds overlap (docs/isa.md, "MXU").
  MxuDataflow mxuDataflow = MxuDataflow::WeightStationary;
  bool mxuOverlap = true;
  /// The VPU's register shape: a pass covers a tile of up to vpuSublanes
  /// rows x vpuLanes columns (docs/isa.md, "VPU").
  unsigned vpuSublanes = 0, vpuLanes = 0;
  unsigned vpuPipelineDepth = 0; ///< cycles added to every VPU op
  unsigned vpuCostSimple = 1, vpuCostDiv = 1, vpuCostExp = 1, vpuCostSqrt = 1,
           vpuCostReduce = 1,
           vpuCostTranspose = 1; ///< cycles per lane-pass
  unsigned scalarLatency = 1;    ///< cycles per scalar instruction
  unsigned maxOutstandingDmas = 0;
  std::vector<LinkConfig> links;
  /// The system: `chips` chips, each with its own HBM, VMEM, core and DMA
  /// engine, joined by the directed ICI links of `topology`. A remote DMA
  /// (one that reads or writes another chip) is cut into packets of
  /// `iciPacketBytes` that cross the links of its route one after the
  /// other, each link serving one packet at a time at `iciBytesPerCycle`,
  /// each hop adding `iciHopLatency` cycles, with virtual cut-through or
  /// store-and-forward switching (IciNetwork; docs/config.md, "ICI").
  unsigned chips = 1;
  Topology topology;
  uint64_t iciHopLatency = 0;  ///< cycles per hop
  double iciBytesPerCycle = 1; ///< bytes / cycle of one ICI link
  uint64_t iciMilliBytesPerCycle = kBandwidthScale; ///< as for links
  uint64_t iciPacketBytes = 256;                    ///< bytes per packet
  IciSwitching iciSwitching = IciSwitching::CutThrough;
  /// Measured latency tables (docs/config.md, "Calibration"), in config
  /// order; TimingModel and DmaEngine use the first that covers an
  /// instruction instead of the formula.
  std::vector<CalibrationEntry> calibration;
  /// The merged JSON text the object was built from (recorded in outputs;
  /// calibration files as absolute paths).
  std::string jsonText;

  /// The link index for a (src, dst) pair, or -1.
  int findLink(isa::MemSpace src, isa::MemSpace dst) const;
  /// The links a DMA may move on (DmaTiming::link): `links`, then the
  /// system's directed ICI links.
  unsigned getNumDmaLinks() const {
    return unsigned(links.size()) + topology.getNumLinks();
  }
  /// "hbm->vmem" for a link of `links`, "ici 0->1" for an ICI link.
  std::string getLinkName(unsigned link) const;
  /// The xxh3-64 hash (llvm::xxh3_64bits) of `jsonText`, as 16 hex digits.
  std::string hash() const;

  /// The embedded default configuration as JSON text.
  static llvm::StringRef defaultJson();
  /// The default configuration.
  static MachineConfig getDefault();
  /// Builds a config from the default overridden by the JSON object in
  /// `overrideText` (`sourceName` is used in errors). Errors: JSON syntax
  /// ("FILE: byte N: ..."), unknown field, wrong type or out-of-range value
  /// ("FILE: field 'dma.links[0].bytes_per_cycle': must be >= 0.001"),
  /// a number out of double's range or JSON nested deeper than 64 levels
  /// ("FILE: byte N: ..."). Never throws.
  /// With `baseText` (a whole config document, such as a trace's merged
  /// config) the override applies to it instead of the embedded default;
  /// a base that is not a JSON object is an error ("base config: ...").
  /// Calibration files are read (LatencyTable::load) relative to the
  /// directory of `sourceName`; their errors come as
  /// "FILE: field 'calibration[0].file': PATH: ...".
  static llvm::Expected<MachineConfig> fromJson(llvm::StringRef overrideText,
                                                llvm::StringRef sourceName,
                                                llvm::StringRef baseText = {});
  /// The config to run a program that asks for `programChips` chips (the
  /// module attribute `accel.chips`, docs/isa.md "Chips") on: this one when
  /// it has that many chips; this one with `chips` set to it when it has
  /// one (the default), its other fields and sources unchanged. Errors: a
  /// config with another chip count ("the program asks for N chips
  /// (accel.chips) but the config has M"), or a topology that cannot hold
  /// them (the fromJson errors).
  llvm::Expected<MachineConfig> forProgramChips(unsigned programChips) const;
  /// Reads and parses a JSON override file (accel::readInputFile, kind
  /// Json: at most 64 MiB; "-" is standard input). Errors: "PATH: cannot
  /// read: REASON" (missing, not a regular file, too large), or fromJson's.
  static llvm::Expected<MachineConfig> fromFile(llvm::StringRef path);
};

} // namespace sim
} // namespace accel

#endif // ACCEL_SIM_MACHINECONFIG_H
