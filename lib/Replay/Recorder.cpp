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

/// Algorithm 1's state while recording a window of `device` into `trace`:
/// what the window has written and what is saved, and the window's
/// outputs for the replay's functional check.
class WindowRecorder {
public:
  WindowRecorder(sim::Device &device, Trace &trace)
      : device(device), trace(trace), own(device.getChip()) {
    regKnown.set(0); // r0 always reads as zero
  }

  /// Records up to `count` instructions (fewer at a halt), calling
  /// `progress` every 65536. Errors: a device fault or API error.
  llvm::Error run(uint64_t count,
                  llvm::function_ref<void(uint64_t, uint64_t)> progress);
  /// The results of the window on the device: the registers it wrote, its
  /// written ranges and their CRC-32. Errors: reading the memory.
  llvm::Error finish();

private:
  /// Saves the inputs of `acc` not written earlier in the window and not
  /// yet saved: registers, then memory ranges of this chip. Errors:
  /// reading the memory.
  llvm::Error saveInputs(const sim::InstAccess &acc);
  /// Saves the parts of `range` not known yet as memory chunks (none
  /// once `err` is set, which a failed read sets), then marks it known.
  void saveRange(const AddrRange &range, llvm::Error &err);
  /// Outputs: later reads of them need no saving.
  void addOutputs(const sim::InstAccess &acc);
  /// `tile`, if on this chip, is written (and so known).
  void addWritten(const sim::TileRef &tile);
  /// What other chips wrote to this one before the instruction executed:
  /// the replay writes it at the same point, so later reads need no
  /// saving, and the functional check covers it.
  void addRemoteWrites();

  sim::Device &device;
  Trace &trace;
  const uint32_t own;
  std::bitset<isa::kNumRegs> regKnown; // written or saved
  RangeSet memKnown[2];                // per MemSpace: written or saved
  std::bitset<isa::kNumRegs> regWritten;
  RangeSet memWritten[2];
  /// The system log's events already looked at.
  size_t eventsSeen = 0;
};
} // namespace

void WindowRecorder::saveRange(const AddrRange &range, llvm::Error &err) {
  RangeSet &known = memKnown[size_t(range.space)];
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
}

llvm::Error WindowRecorder::saveInputs(const sim::InstAccess &acc) {
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
    llvm::Error err = llvm::Error::success();
    sim::forEachRange(m.tile,
                      [&](const AddrRange &range) { saveRange(range, err); });
    if (err)
      return err;
  }
  return llvm::Error::success();
}

void WindowRecorder::addOutputs(const sim::InstAccess &acc) {
  for (uint8_t r : acc.regWrites) {
    regKnown.set(r);
    regWritten.set(r);
  }
  for (const sim::MemOperand &m : acc.memWrites)
    addWritten(m.tile);
}

void WindowRecorder::addWritten(const sim::TileRef &tile) {
  if (tile.chip != own)
    return;
  sim::forEachRange(tile, [&](const AddrRange &range) {
    memKnown[size_t(range.space)].add(range.begin, range.end);
    memWritten[size_t(range.space)].add(range.begin, range.end);
  });
}

void WindowRecorder::addRemoteWrites() {
  if (!trace.system)
    return;
  for (; eventsSeen < trace.system->log.events.size(); ++eventsSeen) {
    const sim::ExternalEvent &ev = trace.system->log.events[eventsSeen];
    if (ev.kind == sim::ExternalEvent::Kind::MemWrite)
      addWritten(ev.tile);
  }
}

llvm::Error
WindowRecorder::run(uint64_t count,
                    llvm::function_ref<void(uint64_t, uint64_t)> progress) {
  auto readReg = [&](unsigned r) { return device.readRegister(r); };
  for (uint64_t i = 0; i < count && !device.isHalted(); ++i) {
    uint32_t pc = device.getPc();
    auto inst = device.readInstruction(pc);
    if (!inst)
      return inst.takeError();
    sim::InstAccess acc = sim::getAccesses(*inst, readReg, own);
    if (llvm::Error e = saveInputs(acc))
      return e;
    addOutputs(acc);
    trace.pcs.push_back(pc);
    if (llvm::Error e = device.step())
      return e;
    addRemoteWrites();
    if (progress && (i & 0xffff) == 0xffff)
      progress(i + 1, count);
  }
  return llvm::Error::success();
}

llvm::Error WindowRecorder::finish() {
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
      return e;
    crc = llvm::crc32(crc, bytes);
  }
  trace.writtenCrc = crc;
  return llvm::Error::success();
}

/// The bytes of the full-state snapshot the minimal state is compared
/// with: every register, every HBM buffer and all of VMEM up to the
/// largest VMEM address `program` uses.
static uint64_t getFullStateBytes(const isa::Program &program) {
  uint64_t bytes = isa::kNumRegs * 8;
  for (const isa::Buffer &b : program.buffers)
    if (b.space == isa::MemSpace::HBM)
      bytes += b.bytes;
  // VMEM is dense on the device: count its capacity from the config's
  // buffers' extent is not enough, so take the largest VMEM address used.
  uint64_t vmemExtent = 0;
  for (const isa::Buffer &b : program.buffers)
    if (b.space == isa::MemSpace::VMEM)
      vmemExtent = std::max(vmemExtent, b.base + b.bytes);
  return bytes + vmemExtent;
}

/// A new trace of the window starting at `device`'s current state: its
/// config, program, start, next DMA id and DMAs in flight, and for one
/// chip of a system its timing state, with `device` logging what the
/// other chips do to it into the trace from now on.
static Trace startTrace(sim::Device &device, const isa::Program &program,
                        llvm::StringRef configJson) {
  Trace trace;
  trace.configJson = configJson.str();
  trace.program = program;
  trace.startIndex = device.getInstructionCount();
  trace.startPc = device.getPc();
  trace.nextDmaId = device.readNextDmaId();
  for (const auto &p : device.readPendingDmas())
    trace.pendingDmas.push_back({p.id, p.pc, p.src, p.dst});
  if (device.getNumChips() > 1) {
    SystemWindow &sys = trace.system.emplace();
    sys.chip = device.getChip();
    sys.chips = device.getNumChips();
    sys.timing = device.readTimingState();
    trace.formatVersion = kSystemTraceFormatVersion;
  }
  return trace;
}

llvm::Expected<Trace>
replay::record(sim::Device &device, const isa::Program &program,
               llvm::StringRef configJson, uint64_t count,
               llvm::function_ref<void(uint64_t, uint64_t)> progress) {
  Trace trace = startTrace(device, program, configJson);
  // One chip of a system: from now on what the other chips do to it and
  // answer it. Stops the log however recording ends.
  if (trace.system)
    device.setEventLog(&trace.system->log);
  struct StopLog {
    sim::Device &device;
    ~StopLog() { device.setEventLog(nullptr); }
  } stopLog{device};
  trace.fullStateBytes = getFullStateBytes(program);
  WindowRecorder recorder(device, trace);
  if (llvm::Error e = recorder.run(count, progress))
    return std::move(e);
  if (llvm::Error e = recorder.finish())
    return std::move(e);
  return trace;
}
