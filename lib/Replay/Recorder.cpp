//===- Recorder.cpp - Algorithm 1 (SnR §4.1) -------------------------===//

#include "accel/Replay/Recorder.h"
#include "accel/Sim/Access.h"

#include "llvm/Support/CRC.h"

#include <bitset>
#include <map>

using namespace accel;
using namespace accel::replay;
using sim::AddrRange;

namespace {
/// Byte ranges of one memory space, kept disjoint and coalesced.
class RangeSet {
public:
  /// Calls `fn` for each part of [b, e) not in the set.
  template <typename Fn> void forEachGap(uint64_t b, uint64_t e, Fn fn) const {
    auto it = ranges.upper_bound(b);
    if (it != ranges.begin() && std::prev(it)->second > b)
      --it;
    uint64_t at = b;
    for (; it != ranges.end() && it->first < e; ++it) {
      if (it->first > at)
        fn(at, it->first);
      at = std::max(at, it->second);
    }
    if (at < e)
      fn(at, e);
  }
  template <typename Fn> void forEach(Fn fn) const {
    for (auto [b, e] : ranges)
      fn(b, e);
  }
  void add(uint64_t b, uint64_t e) {
    if (b >= e)
      return;
    auto it = ranges.upper_bound(b);
    if (it != ranges.begin() && std::prev(it)->second >= b) {
      --it;
      b = it->first;
      e = std::max(e, it->second);
      it = ranges.erase(it);
    }
    while (it != ranges.end() && it->first <= e) {
      e = std::max(e, it->second);
      it = ranges.erase(it);
    }
    ranges.emplace(b, e);
  }

private:
  std::map<uint64_t, uint64_t> ranges; ///< begin -> end
};
} // namespace

llvm::Expected<Trace>
replay::record(sim::Device &device, const isa::Program &program,
               llvm::StringRef configJson, uint64_t count,
               llvm::function_ref<void(uint64_t, uint64_t)> progress) {
  Trace trace;
  trace.configJson = configJson.str();
  trace.program = program;
  trace.startIndex = device.getInstructionCount();
  trace.startPc = device.getPc();
  trace.nextDmaId = device.readNextDmaId();
  for (const auto &p : device.readPendingDmas())
    trace.pendingDmas.push_back({p.id, p.pc, p.src, p.dst});
  // One chip of a system: its timing state now, and from now on what the
  // other chips do to it and answer it.
  const uint32_t own = device.getChip();
  if (device.getNumChips() > 1) {
    SystemWindow &sys = trace.system.emplace();
    sys.chip = own;
    sys.chips = device.getNumChips();
    sys.timing = device.readTimingState();
    trace.formatVersion = kSystemTraceFormatVersion;
    device.setEventLog(&sys.log);
  }
  // Stops the log however recording ends.
  struct StopLog {
    sim::Device &device;
    ~StopLog() { device.setEventLog(nullptr); }
  } stopLog{device};
  size_t eventsSeen = 0;
  // The full-state snapshot the minimal state is compared with: every
  // register, all of VMEM and every HBM buffer.
  trace.fullStateBytes = isa::kNumRegs * 8;
  for (const isa::Buffer &b : program.buffers)
    if (b.space == isa::MemSpace::HBM)
      trace.fullStateBytes += b.bytes;
  // VMEM is dense on the device: count its capacity from the config's
  // buffers' extent is not enough, so take the largest VMEM address used.
  uint64_t vmemExtent = 0;
  for (const isa::Buffer &b : program.buffers)
    if (b.space == isa::MemSpace::VMEM)
      vmemExtent = std::max(vmemExtent, b.base + b.bytes);
  trace.fullStateBytes += vmemExtent;

  // Algorithm 1's state: what the window has written, and what is saved.
  std::bitset<isa::kNumRegs> regKnown; // written or saved
  regKnown.set(0);                     // r0 always reads as zero
  RangeSet memKnown[2];                // per MemSpace: written or saved
  // The window's outputs, for the replay's functional check.
  std::bitset<isa::kNumRegs> regWritten;
  RangeSet memWritten[2];
  auto readReg = [&](unsigned r) { return device.readRegister(r); };

  // Grows as it records: `count` may be far more than the program runs.
  trace.pcs.reserve(std::min<uint64_t>(count, 1 << 20));
  for (uint64_t i = 0; i < count && !device.isHalted(); ++i) {
    uint32_t pc = device.getPc();
    auto inst = device.readInstruction(pc);
    if (!inst)
      return inst.takeError();
    sim::InstAccess acc = sim::getAccesses(*inst, readReg, own);
    // Inputs not written earlier in the window and not yet saved.
    for (uint8_t r : acc.regReads)
      if (!regKnown[r]) {
        trace.registers.push_back({r, device.readRegister(r)});
        regKnown.set(r);
      }
    for (const sim::MemOperand &m : acc.memReads) {
      // Another chip's memory (a remote DMA's source): the answer to the
      // DMA carries what it read.
      if (m.tile.chip != own)
        continue;
      RangeSet &known = memKnown[size_t(m.tile.space)];
      llvm::Error err = llvm::Error::success();
      sim::forEachRange(m.tile, [&](const AddrRange &range) {
        known.forEachGap(range.begin, range.end, [&](uint64_t b, uint64_t e) {
          if (err)
            return;
          MemChunk chunk;
          chunk.chip = own;
          chunk.space = range.space;
          chunk.addr = b;
          chunk.bytes.resize(e - b);
          if (llvm::Error readErr =
                  device.readMemory(range.space, b, e - b, chunk.bytes.data()))
            err = std::move(readErr);
          else
            trace.memory.push_back(std::move(chunk));
        });
        known.add(range.begin, range.end);
      });
      if (err)
        return std::move(err);
    }
    // Outputs: later reads of them need no saving.
    for (uint8_t r : acc.regWrites) {
      regKnown.set(r);
      regWritten.set(r);
    }
    auto addWritten = [&](const sim::TileRef &tile) {
      if (tile.chip != own)
        return;
      sim::forEachRange(tile, [&](const AddrRange &range) {
        memKnown[size_t(range.space)].add(range.begin, range.end);
        memWritten[size_t(range.space)].add(range.begin, range.end);
      });
    };
    for (const sim::MemOperand &m : acc.memWrites)
      addWritten(m.tile);
    trace.pcs.push_back(pc);
    if (llvm::Error e = device.step())
      return std::move(e);
    // What other chips wrote to this one before the instruction executed:
    // the replay writes it at the same point, so later reads need no
    // saving, and the functional check covers it.
    if (trace.system)
      for (; eventsSeen < trace.system->log.events.size(); ++eventsSeen) {
        const sim::ExternalEvent &ev = trace.system->log.events[eventsSeen];
        if (ev.kind == sim::ExternalEvent::Kind::MemWrite)
          addWritten(ev.tile);
      }
    if (progress && (i & 0xffff) == 0xffff)
      progress(i + 1, count);
  }
  // The results of the window on the device.
  for (unsigned r = 1; r < isa::kNumRegs; ++r)
    if (regWritten[r])
      trace.finalRegisters.push_back({uint8_t(r), device.readRegister(r)});
  std::vector<uint8_t> bytes;
  for (isa::MemSpace space : {isa::MemSpace::HBM, isa::MemSpace::VMEM})
    memWritten[size_t(space)].forEach([&](uint64_t b, uint64_t e) {
      trace.writtenRanges.push_back({space, b, e, own});
    });
  uint32_t crc = 0;
  for (const AddrRange &w : trace.writtenRanges) {
    bytes.resize(w.end - w.begin);
    if (llvm::Error e =
            device.readMemory(w.space, w.begin, bytes.size(), bytes.data()))
      return std::move(e);
    crc = llvm::crc32(crc, bytes);
  }
  trace.writtenCrc = crc;
  return trace;
}
