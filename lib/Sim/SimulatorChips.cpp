//===- SimulatorChips.cpp - A chip's side of systems and replays ----------===//
//
// What a Simulator does for the other chips of a system and for a replay:
// semaphore signals, the remote DMAs of other chips and their races, the
// timing state a replay of one chip installs, the events it applies, and
// the state installed at a window's start. The issue stage is
// Simulator.cpp.
//
//===----------------------------------------------------------------------===//

#include "SimulatorDetail.h"
#include "accel/Sim/Simulator.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <tuple>

using namespace accel;
using namespace accel::sim;
using isa::Inst;

void Simulator::installRegister(unsigned r, uint64_t value) {
  if (r != 0)
    regs[r] = value;
}

void Simulator::installPendingDma(uint32_t id, uint32_t issuePc,
                                  const TileRef &src, const TileRef &dst) {
  int link = config.findLink(src.space, dst.space);
  uint64_t bytes = src.rows * src.rowBytes();
  if (link >= 0) {
    dma.issue(0, link, bytes, id, getBusBytes(src, dst, config.dmaBurstBytes),
              src.rows);
    for (Observer *o : observers)
      o->onDmaInFlight(issuePc, dma.get(id));
  }
  pendingDmas.push_back({id, issuePc, src, dst});
}

std::string Simulator::describeBlocked() const {
  const Inst &in = program.code[pc];
  uint64_t has = in.a < semaphores.size() ? semaphores[in.a].size() : 0;
  return "chip " + std::to_string(chip) + " at " + describePc(pc) +
         ": waits for " + std::to_string(prep.count) + " signals of " +
         "semaphore " + std::to_string(in.a) + " and has " +
         std::to_string(has);
}

unsigned Simulator::getNumChips() const {
  return peers ? peers->getNumChips() : 1;
}

void Simulator::signal(unsigned sem, uint64_t cycle, uint32_t fromChip,
                       uint32_t dmaId) {
  if (semaphores.empty())
    semaphores.resize(isa::kNumSemaphores);
  std::vector<Signal> &list = semaphores[sem];
  Signal s{cycle, fromChip, dmaId};
  auto before = [](const Signal &a, const Signal &b) {
    return std::tie(a.cycle, a.chip, a.dmaId) <
           std::tie(b.cycle, b.chip, b.dmaId);
  };
  list.insert(std::upper_bound(list.begin(), list.end(), s, before), s);
}

Simulator::TimingState Simulator::getTimingState() const {
  TimingState s;
  s.lastIssue = lastIssue;
  s.first = first;
  s.unitFree = unitFree;
  for (size_t u = 0; u < inFlight.size(); ++u) {
    s.inFlight[u].end = inFlight[u].end;
    for (const HazardTile &t : tilesOf(inFlight[u]).reads)
      s.inFlight[u].reads.push_back(t.tile());
    for (const HazardTile &t : tilesOf(inFlight[u]).writes)
      s.inFlight[u].writes.push_back(t.tile());
  }
  s.engine = dma.getState();
  for (const PendingDma &p : pendingDmas)
    s.pendingTimings.push_back(dma.get(p.id));
  for (size_t sem = 0; sem < semaphores.size(); ++sem)
    for (const Signal &sig : semaphores[sem])
      s.signals.push_back({uint32_t(sem), sig});
  s.incoming = incoming;
  return s;
}

void Simulator::installTimingState(const TimingState &s,
                                   llvm::ArrayRef<PendingDma> pending) {
  lastIssue = s.lastIssue;
  first = s.first;
  unitFree = s.unitFree;
  // Each unit's op in a slot of its own, filled anew (a new version): no
  // kept tiles of a PC (DecodedInst::tilesSlot) survive.
  for (size_t u = 0; u < inFlight.size(); ++u) {
    InFlightOp &op = inFlight[u];
    op.end = s.inFlight[u].end;
    op.slot = uint8_t(u);
    VmemTiles &tiles = tilesOf(op);
    tiles.refill(nextTilesVersion++);
    for (const TileRef &t : s.inFlight[u].reads)
      if (tiles.reads.size < TileList::kMax)
        tiles.reads.push_back(HazardTile::of(t, t.span()));
    for (const TileRef &t : s.inFlight[u].writes)
      if (tiles.writes.size < TileList::kMax)
        tiles.writes.push_back(HazardTile::of(t, t.span()));
  }
  dma.setState(s.engine);
  for (size_t i = 0; i < pending.size() && i < s.pendingTimings.size(); ++i) {
    dma.install(s.pendingTimings[i]);
    for (Observer *o : observers)
      o->onDmaInFlight(pending[i].pc, s.pendingTimings[i]);
    pendingDmas.push_back(pending[i]);
  }
  for (const auto &[sem, sig] : s.signals)
    if (sem < isa::kNumSemaphores)
      signal(sem, sig.cycle, sig.chip, sig.dmaId);
  for (const IncomingDma &d : s.incoming)
    addIncoming(d.tile, d.writes, d.complete, d.chip, d.dmaId, d.pc);
}

llvm::Error Simulator::applyExternal(const ExternalEvent &e) {
  switch (e.kind) {
  case ExternalEvent::Kind::HbmReserve:
    dma.reserveHbm(e.from, e.length, e.now);
    break;
  case ExternalEvent::Kind::MemWrite:
    return writeTileBytes(memory, e.tile, e.bytes);
  case ExternalEvent::Kind::Signal:
    signal(e.semaphore, e.cycle, e.fromChip, e.dmaId);
    break;
  case ExternalEvent::Kind::Incoming:
    addIncoming(e.tile, e.writes, e.cycle, e.fromChip, e.dmaId, e.pc);
    break;
  }
  prep.valid = false;
  return llvm::Error::success();
}

void Simulator::addIncoming(const TileRef &tile, bool writes, uint64_t complete,
                            uint32_t fromChip, uint32_t dmaId,
                            uint32_t issuePc) {
  incoming.push_back({tile, writes, complete, fromChip, dmaId, issuePc});
  for (Observer *o : observers)
    o->onIncomingDma(incoming.back());
}

llvm::Error Simulator::checkRemoteAccess(const TileRef &tile, bool writes,
                                         uint64_t cycle,
                                         uint32_t fromChip) const {
  auto race = [&](const llvm::Twine &what) {
    return llvm::createStringError(
        (llvm::Twine("data race: a DMA of chip ") + llvm::Twine(fromChip) +
         (writes ? " writes" : " reads") + " chip " + llvm::Twine(chip) +
         "'s " + describeRange(tile.span()) + ", which " + what)
            .str());
  };
  std::string ofChip = " of chip " + std::to_string(chip);
  for (const PendingDma &p : pendingDmas) {
    if (p.dst.overlaps(tile))
      return race(describePending(p, ofChip) + " writes before its WAIT");
    if (writes && p.src.overlaps(tile))
      return race(describePending(p, ofChip) + " reads before its WAIT");
  }
  HazardTile h = HazardTile::of(tile, tile.span());
  for (size_t u = 0; u < inFlight.size(); ++u) {
    const InFlightOp &op = inFlight[u];
    if (op.end <= cycle)
      continue;
    const VmemTiles &tiles = tilesOf(op);
    bool hit = llvm::any_of(tiles.writes,
                            [&](const HazardTile &t) { return t.overlaps(h); });
    if (writes)
      hit |= llvm::any_of(tiles.reads,
                          [&](const HazardTile &t) { return t.overlaps(h); });
    if (hit)
      return race("chip " + llvm::Twine(chip) + "'s " +
                  isa::unitName(isa::Unit(u)).upper() + " op " +
                  (writes ? "accesses" : "writes") + " until cycle " +
                  llvm::Twine(op.end));
  }
  return llvm::Error::success();
}

llvm::Error Simulator::checkMemory(const FootprintExtras &extras) {
  // A buffer table that does not fit the config is prepare()'s fault.
  if (llvm::Error e =
          program.checkBuffersFit(config.vmemBytes, config.hbmBytes)) {
    llvm::consumeError(std::move(e));
    return llvm::Error::success();
  }
  if (!memoryChecked) {
    MemoryFootprint f =
        getMemoryFootprint(1, config.vmemBytes, program.buffers);
    f.extras = extras;
    if (llvm::Error e = checkMemoryFootprint(f))
      return e;
    memoryChecked = true;
  }
  return memory.allocateVmem();
}
