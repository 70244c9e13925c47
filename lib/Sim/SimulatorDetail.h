//===- SimulatorDetail.h - Helpers of Simulator*.cpp ------------*- C++ -*-===//
//
// Shared by Simulator.cpp (the issue stage) and SimulatorChips.cpp (systems
// and replays): a DMA's bus bytes and the names data-race messages give.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_LIB_SIM_SIMULATORDETAIL_H
#define ACCEL_LIB_SIM_SIMULATORDETAIL_H

#include "accel/Sim/Simulator.h"

#include "llvm/ADT/Twine.h"

#include <algorithm>
#include <string>

namespace accel {
namespace sim {

/// The bytes a DMA from `src` to `dst` moves on the bus: its HBM side's
/// whole bursts (getBurstBytes; the larger side when both are in HBM),
/// else its bytes.
inline uint64_t getBusBytes(const TileRef &src, const TileRef &dst,
                            uint64_t burst) {
  uint64_t bus = 0;
  for (const TileRef *t : {&src, &dst})
    if (t->space == isa::MemSpace::HBM)
      bus = std::max(bus, getBurstBytes(*t, burst));
  return bus ? bus : src.rows * src.rowBytes();
}

/// "VMEM [b, e)": a byte range as data-race messages name it.
inline std::string describeRange(const AddrRange &r) {
  return (isa::memSpaceName(r.space).upper() + " [" + llvm::Twine(r.begin) +
          ", " + llvm::Twine(r.end) + ")")
      .str();
}

/// "DMA 3<ofChip> (issued at pc 12)": a DMA not yet waited for, as
/// data-race messages name it.
inline std::string describePending(const Simulator::PendingDma &p,
                                   llvm::StringRef ofChip) {
  return ("DMA " + llvm::Twine(p.id) + ofChip + " (issued at pc " +
          llvm::Twine(p.pc) + ")")
      .str();
}

} // namespace sim
} // namespace accel

#endif // ACCEL_LIB_SIM_SIMULATORDETAIL_H
