//===- TraceSystem.cpp - The system section of a trace --------------------===//
//
// Version 4 of the trace format (docs/trace-format.md): a window of one chip
// of a system carries the chip's timing state, what the other chips did to
// it (events) and what they answered its remote DMAs (answers). Written by
// Trace::serialize, read by Trace::deserialize, checked by
// Trace::validateSystem (TraceValidate.cpp).
//
//===----------------------------------------------------------------------===//

#include "TraceFormat.h"

using namespace accel;
using namespace accel::replay;

//===----------------------------------------------------------------------===//
// Writing
//===----------------------------------------------------------------------===//

static void writeTiles(ByteWriter &w, const std::vector<sim::TileRef> &tiles) {
  w.u32(uint32_t(tiles.size()));
  for (const sim::TileRef &t : tiles)
    writeTile(w, t);
}

static void writeTiming(ByteWriter &w, const sim::DmaTiming &t) {
  w.u32(t.id);
  w.u32(uint32_t(t.link));
  w.u64(t.bytes);
  w.u64(t.busBytes);
  w.u64(t.issue);
  w.u64(t.baseEnd);
  w.u64(t.transferStart);
  w.u64(t.complete);
  w.u32(t.chip);
  w.u32(t.srcChip);
  w.u32(t.dstChip);
  w.u32(t.hops);
  w.u32(uint32_t(t.semaphore));
}

static void writeIncoming(ByteWriter &w, const sim::IncomingDma &d) {
  writeTile(w, d.tile);
  w.u8(d.writes);
  w.u64(d.complete);
  w.u32(d.chip);
  w.u32(d.dmaId);
  w.u32(d.pc);
}

/// One event of the system log: its index and kind, then the kind's fields.
static void writeEvent(ByteWriter &p, const sim::ExternalEvent &e) {
  p.u64(e.index);
  p.u8(uint8_t(e.kind));
  switch (e.kind) {
  case sim::ExternalEvent::Kind::HbmReserve:
    writeWide(p, e.from);
    writeWide(p, e.length);
    writeWide(p, e.now);
    break;
  case sim::ExternalEvent::Kind::MemWrite:
    writeTile(p, e.tile);
    p.bytes(e.bytes);
    break;
  case sim::ExternalEvent::Kind::Signal:
    p.u32(e.semaphore);
    p.u64(e.cycle);
    p.u32(e.fromChip);
    p.u32(e.dmaId);
    break;
  case sim::ExternalEvent::Kind::Incoming:
    writeIncoming(p, {e.tile, e.writes, e.cycle, e.fromChip, e.dmaId, e.pc});
    break;
  }
}

void replay::writeSystem(ByteWriter &p, const SystemWindow &sys) {
  p.u32(sys.chip);
  p.u32(sys.chips);
  const sim::Simulator::TimingState &ts = sys.timing;
  p.u64(ts.lastIssue);
  p.u8(ts.first);
  for (uint64_t f : ts.unitFree)
    p.u64(f);
  for (const auto &op : ts.inFlight) {
    p.u64(op.end);
    writeTiles(p, op.reads);
    writeTiles(p, op.writes);
  }
  p.u32(uint32_t(ts.engine.linkFree.size()));
  for (uint64_t f : ts.engine.linkFree)
    p.u64(f);
  p.u64(ts.engine.remoteDrain);
  p.u32(uint32_t(ts.engine.hbmBusy.size()));
  for (auto [b, e] : ts.engine.hbmBusy) {
    writeWide(p, b);
    writeWide(p, e);
  }
  p.u32(uint32_t(ts.pendingTimings.size()));
  for (const sim::DmaTiming &t : ts.pendingTimings)
    writeTiming(p, t);
  p.u32(uint32_t(ts.signals.size()));
  for (const auto &[sem, sig] : ts.signals) {
    p.u32(sem);
    p.u64(sig.cycle);
    p.u32(sig.chip);
    p.u32(sig.dmaId);
  }
  p.u32(uint32_t(ts.incoming.size()));
  for (const sim::IncomingDma &d : ts.incoming)
    writeIncoming(p, d);
  p.u64(sys.log.events.size());
  for (const sim::ExternalEvent &e : sys.log.events)
    writeEvent(p, e);
  p.u64(sys.log.answers.size());
  for (const sim::RemoteAnswer &a : sys.log.answers) {
    p.u64(a.transfer.injectStart);
    p.u64(a.transfer.firstArrival);
    p.u64(a.transfer.lastArrival);
    p.u8(a.hasPeerHbm);
    writeWide(p, a.peerHbmAt);
    p.bytes(a.readBytes);
  }
}

//===----------------------------------------------------------------------===//
// Reading
//===----------------------------------------------------------------------===//

static std::vector<sim::TileRef>
readTiles(ByteReader &r, const std::string &invalid, const char *what) {
  std::vector<sim::TileRef> tiles;
  size_t at = r.fileOffset();
  uint32_t n = r.u32(what);
  // An op reads at most 3 tiles and writes at most 2 (Simulator).
  if (r.ok() && n > 4) {
    r.fail(invalid + std::to_string(at) + ": " + what + " count is " +
           std::to_string(n) + " (an op in flight has at most 4)");
    return tiles;
  }
  for (uint32_t i = 0; i < n && r.ok(); ++i)
    tiles.push_back(readTile(r, invalid, what));
  return tiles;
}

/// An incoming DMA: of the timing state, or an event's (the same record).
static sim::IncomingDma readIncoming(ByteReader &r,
                                     const std::string &invalid) {
  sim::IncomingDma d;
  d.tile = readTile(r, invalid, "incoming DMA tile");
  d.writes = r.u8("incoming DMA writes") != 0;
  d.complete = r.u64("incoming DMA complete");
  d.chip = r.u32("incoming DMA chip");
  d.dmaId = r.u32("incoming DMA id");
  d.pc = r.u32("incoming DMA pc");
  return d;
}

static sim::DmaTiming readTiming(ByteReader &r) {
  sim::DmaTiming t;
  t.id = r.u32("DMA timing id");
  t.link = int32_t(r.u32("DMA timing link"));
  t.bytes = r.u64("DMA timing bytes");
  t.busBytes = r.u64("DMA timing bus bytes");
  t.issue = r.u64("DMA timing issue");
  t.baseEnd = r.u64("DMA timing base end");
  t.transferStart = r.u64("DMA timing transfer start");
  t.complete = r.u64("DMA timing complete");
  t.chip = r.u32("DMA timing chip");
  t.srcChip = r.u32("DMA timing source chip");
  t.dstChip = r.u32("DMA timing destination chip");
  t.hops = r.u32("DMA timing hops");
  t.semaphore = int32_t(r.u32("DMA timing semaphore"));
  return t;
}

/// Reads the chip's timing state (its DMA timings' offset into `at`).
static void readTimingState(ByteReader &r, const std::string &invalid,
                            sim::Simulator::TimingState &ts, TraceLayout &at) {
  ts.lastIssue = r.u64("last issue cycle");
  ts.first = r.u8("first flag") != 0;
  for (uint64_t &f : ts.unitFree)
    f = r.u64("unit free cycle");
  for (auto &op : ts.inFlight) {
    op.end = r.u64("op in flight end");
    op.reads = readTiles(r, invalid, "op in flight reads");
    op.writes = readTiles(r, invalid, "op in flight writes");
  }
  uint32_t nlinks = r.u32("link count");
  if (r.needRecords(nlinks, 8, "link free cycles"))
    for (uint32_t i = 0; i < nlinks && r.ok(); ++i)
      ts.engine.linkFree.push_back(r.u64("link free cycle"));
  ts.engine.remoteDrain = r.u64("remote drain cycle");
  uint32_t nhbm = r.u32("HBM reservation count");
  if (r.needRecords(nhbm, kHbmRecord, "HBM reservations"))
    for (uint32_t i = 0; i < nhbm && r.ok(); ++i) {
      sim::HbmUnits b = readWide(r, "HBM reservation start");
      sim::HbmUnits e = readWide(r, "HBM reservation end");
      ts.engine.hbmBusy.push_back({b, e});
    }
  uint32_t ntimings = r.u32("DMA timing count");
  at.timings = r.fileOffset();
  if (r.needRecords(ntimings, kTimingRecord, "DMA timings"))
    for (uint32_t i = 0; i < ntimings && r.ok(); ++i)
      ts.pendingTimings.push_back(readTiming(r));
  uint32_t nsignals = r.u32("signal count");
  if (r.needRecords(nsignals, kSignalRecord, "semaphore signals"))
    for (uint32_t i = 0; i < nsignals && r.ok(); ++i) {
      uint32_t sem = r.u32("signal semaphore");
      sim::Signal sig;
      sig.cycle = r.u64("signal cycle");
      sig.chip = r.u32("signal chip");
      sig.dmaId = r.u32("signal DMA id");
      ts.signals.push_back({sem, sig});
    }
  uint32_t nincoming = r.u32("incoming DMA count");
  if (r.needRecords(nincoming, kIncomingRecord, "incoming DMAs"))
    for (uint32_t i = 0; i < nincoming && r.ok(); ++i)
      ts.incoming.push_back(readIncoming(r, invalid));
}

/// Reads event `i` of the system log; false after an error (an unknown
/// kind, or a short record).
static bool readEvent(ByteReader &r, const std::string &invalid, uint64_t i,
                      sim::ExternalEvent &e) {
  e.index = r.u64("event index");
  size_t kindAt = r.fileOffset();
  uint8_t kind = r.u8("event kind");
  if (r.ok() && kind >= sim::ExternalEvent::kNumKinds) {
    r.fail(invalid + std::to_string(kindAt) + ": event " + std::to_string(i) +
           " has kind " + std::to_string(kind) +
           " (0 = HBM reservation, 1 = write, 2 = signal, 3 = incoming "
           "DMA)");
    return false;
  }
  e.kind = sim::ExternalEvent::Kind(kind);
  switch (e.kind) {
  case sim::ExternalEvent::Kind::HbmReserve:
    e.from = readWide(r, "event HBM from");
    e.length = readWide(r, "event HBM length");
    e.now = readWide(r, "event HBM now");
    break;
  case sim::ExternalEvent::Kind::MemWrite: {
    e.tile = readTile(r, invalid, "event write tile");
    auto b = r.bytes("event write bytes");
    e.bytes.assign(b.begin(), b.end());
    e.writes = true;
    break;
  }
  case sim::ExternalEvent::Kind::Signal:
    e.semaphore = r.u32("event semaphore");
    e.cycle = r.u64("event signal cycle");
    e.fromChip = r.u32("event chip");
    e.dmaId = r.u32("event DMA id");
    break;
  case sim::ExternalEvent::Kind::Incoming: {
    sim::IncomingDma d = readIncoming(r, invalid);
    e.tile = d.tile;
    e.writes = d.writes;
    e.cycle = d.complete;
    e.fromChip = d.chip;
    e.dmaId = d.dmaId;
    e.pc = d.pc;
    break;
  }
  }
  return true;
}

/// Reads the system log's events (and their offsets into `at`).
static void readEvents(ByteReader &r, const std::string &invalid,
                       sim::ChipEventLog &log, TraceLayout &at) {
  uint64_t nevents = r.u64("event count");
  if (r.needRecords(nevents, kEventRecordMin, "events")) {
    log.events.reserve(nevents);
    at.events.reserve(nevents);
  }
  for (uint64_t i = 0; i < nevents && r.ok(); ++i) {
    at.events.push_back(r.fileOffset());
    sim::ExternalEvent e;
    if (!readEvent(r, invalid, i, e))
      break;
    log.events.push_back(std::move(e));
  }
}

/// Reads the answers to the window's remote DMAs (and their offsets into
/// `at`).
static void readAnswers(ByteReader &r, sim::ChipEventLog &log,
                        TraceLayout &at) {
  uint64_t nanswers = r.u64("answer count");
  if (r.needRecords(nanswers, kAnswerRecordMin, "remote DMA answers")) {
    log.answers.reserve(nanswers);
    at.answers.reserve(nanswers);
  }
  for (uint64_t i = 0; i < nanswers && r.ok(); ++i) {
    at.answers.push_back(r.fileOffset());
    sim::RemoteAnswer a;
    a.transfer.injectStart = r.u64("answer inject start");
    a.transfer.firstArrival = r.u64("answer first arrival");
    a.transfer.lastArrival = r.u64("answer last arrival");
    a.hasPeerHbm = r.u8("answer HBM flag") != 0;
    a.peerHbmAt = readWide(r, "answer HBM start");
    auto b = r.bytes("answer read bytes");
    a.readBytes.assign(b.begin(), b.end());
    log.answers.push_back(std::move(a));
  }
}

void replay::readSystem(ByteReader &r, const std::string &invalid, Trace &t) {
  TraceLayout &at = t.layout;
  SystemWindow &sys = t.system.emplace();
  at.system = r.fileOffset();
  sys.chip = r.u32("system chip");
  sys.chips = r.u32("system chips");
  sys.log.chip = sys.chip;
  readTimingState(r, invalid, sys.timing, at);
  readEvents(r, invalid, sys.log, at);
  readAnswers(r, sys.log, at);
}
