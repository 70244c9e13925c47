//===- Dependencies.cpp - Conservative and relaxed dependencies -----------===//
//
// SnR §5.4, Fig. 9: the conservative model binds a DMA ISSUE to the
// producer of each of its inputs; the relaxed model follows lightweight
// scalar chains (address arithmetic the compiler could recompute anywhere)
// back to the data they came from, so only a scalar load of DMA'd data
// binds, at that DMA's WAIT.
//
//===----------------------------------------------------------------------===//

#include "accel/Profile/Analyzer.h"

using namespace accel;
using namespace accel::profile;
using isa::Opcode;

int64_t DependencyTracker::later(int64_t a, int64_t b) const {
  if (a == kNone)
    return b;
  if (b == kNone)
    return a;
  if (ready && size_t(a) < ready->size() && size_t(b) < ready->size()) {
    uint64_t ra = ready->done(size_t(a)), rb = ready->done(size_t(b));
    if (ra != rb)
      return ra > rb ? a : b;
  }
  return std::max(a, b);
}

void DependencyTracker::addDmaDependence(uint64_t index,
                                         llvm::ArrayRef<sim::AddrRange> writes,
                                         int64_t regBound,
                                         int64_t relaxedRegBound,
                                         int64_t loadedFrom) {
  int64_t dstBound = kNone; // last reader or writer of the written bytes
  for (const sim::AddrRange &w : writes) {
    auto bump = [&](int64_t v) { dstBound = later(dstBound, v); };
    memWriter.forEachOverlap(w, bump);
    memReader.forEachOverlap(w, bump);
  }
  DmaDependence d;
  d.index = index;
  using Via = DmaDependence::Via;
  // The binding one of (address, source, destination), and which it was.
  auto bind = [&](int64_t reg, std::optional<uint64_t> &bound, Via &via) {
    int64_t b = later(later(reg, loadedFrom), dstBound);
    if (b == kNone)
      return;
    bound = uint64_t(b);
    via = b == reg          ? Via::Address
          : b == loadedFrom ? Via::Source
                            : Via::Destination;
  };
  bind(regBound, d.conservative, d.conservativeVia);
  bind(relaxedRegBound, d.relaxed, d.relaxedVia);
  dmaDeps.push_back(d);
}

void DependencyTracker::catchUp() {
  if (deferred.empty())
    return;
  deferred.drain([&](uint64_t j) {
    for (const sim::AddrRange &r : history->getReads(j))
      memReader.assign(r, int64_t(j));
    for (const sim::AddrRange &w : history->getWrites(j))
      memWriter.assign(w, int64_t(j));
  });
}

void DependencyTracker::instruction(uint64_t index, const isa::Inst &inst,
                                    llvm::ArrayRef<uint8_t> regReads,
                                    llvm::ArrayRef<uint8_t> regWrites,
                                    llvm::ArrayRef<sim::AddrRange> reads,
                                    llvm::ArrayRef<sim::AddrRange> writes,
                                    const std::optional<uint32_t> &dmaId,
                                    bool onlyAtWait, unsigned period) {
  if (!initialized) {
    lastWriter.fill(kNone);
    relaxedOrigin.fill(kNone);
    initialized = true;
  }
  bool isDma = inst.op == Opcode::DmaIssue;
  // An instruction that looks nothing up leaves its marks to catchUp while
  // the period holds (one run of one period, ending just before it).
  bool defer = period && history && !isDma && inst.op != Opcode::Sld &&
               !dmaId && deferred.canJoin(index, period);
  if (!defer)
    catchUp();
  // The producers of the registers read, in both models: a DMA ISSUE's
  // bounds, and what a scalar chain passes on to the registers it writes
  // (no other instruction uses them: a VPU op's address registers bind
  // nothing here).
  int64_t regBound = kNone, relaxedRegBound = kNone;
  if (isDma || !regWrites.empty())
    for (uint8_t r : regReads) {
      if (r == 0)
        continue;
      if (isDma)
        regBound = later(regBound, lastWriter[r]);
      relaxedRegBound = later(relaxedRegBound, relaxedOrigin[r]);
    }
  // The producer of data read from memory: only a DMA ISSUE and a scalar
  // load (sld) use it.
  int64_t loadedFrom = kNone;
  if (isDma || inst.op == Opcode::Sld)
    for (const sim::AddrRange &r : reads)
      memWriter.forEachOverlap(
          r, [&](int64_t w) { loadedFrom = later(loadedFrom, w); });

  if (isDma)
    addDmaDependence(index, writes, regBound, relaxedRegBound, loadedFrom);

  // Outputs.
  for (uint8_t r : regWrites) {
    if (r == 0)
      continue;
    lastWriter[r] = int64_t(index);
    if (isa::isScalarArithmetic(inst.op))
      relaxedOrigin[r] = relaxedRegBound; // follow the chain back
    else if (inst.op == Opcode::Sld)
      relaxedOrigin[r] = later(relaxedRegBound, loadedFrom);
    else
      relaxedOrigin[r] = int64_t(index); // e.g. a DMA id
  }
  if (dmaId) {
    dmaSrc[*dmaId].assign(reads.begin(), reads.end());
    dmaDst[*dmaId].assign(writes.begin(), writes.end());
    if (onlyAtWait)
      return;
  }
  if (defer) {
    deferred.join(index, period);
    return;
  }
  for (const sim::AddrRange &r : reads)
    memReader.assign(r, int64_t(index));
  for (const sim::AddrRange &w : writes)
    memWriter.assign(w, int64_t(index));
}

void DependencyTracker::dmaWait(uint64_t index, uint32_t dmaId) {
  catchUp();
  auto src = dmaSrc.find(dmaId);
  if (src != dmaSrc.end()) {
    for (const sim::AddrRange &r : src->second)
      memReader.assign(r, int64_t(index));
    dmaSrc.erase(src);
  }
  auto it = dmaDst.find(dmaId);
  if (it == dmaDst.end())
    return;
  waitDma.emplace(index, dmaId);
  for (const sim::AddrRange &w : it->second)
    memWriter.assign(w, int64_t(index));
  dmaDst.erase(it);
}

void DependencyTracker::incomingDma(uint32_t fromChip, uint32_t dmaId,
                                    llvm::ArrayRef<sim::AddrRange> ranges,
                                    bool writes) {
  Incoming &in = incoming[{fromChip, dmaId}];
  std::vector<sim::AddrRange> &list = writes ? in.writes : in.reads;
  list.insert(list.end(), ranges.begin(), ranges.end());
}

void DependencyTracker::semWait(uint64_t index,
                                llvm::ArrayRef<sim::Signal> signals) {
  catchUp();
  for (const sim::Signal &s : signals) {
    auto it = incoming.find({s.chip, s.dmaId});
    if (it == incoming.end())
      continue;
    for (const sim::AddrRange &r : it->second.reads)
      memReader.assign(r, int64_t(index));
    for (const sim::AddrRange &w : it->second.writes)
      memWriter.assign(w, int64_t(index));
    incoming.erase(it);
  }
}
