//===- DataflowBound.cpp - Latency-aware lower bounds on cycles -----------===//

#include "accel/Profile/DataflowBound.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/bit.h"

#include <algorithm>
#include <limits>

using namespace accel;
using namespace accel::profile;

bool DataflowBound::canUseTwin(uint64_t index, unsigned period) const {
  // The twin's producers are complete, and nothing but instructions wrote
  // the memory from twice the period back (AccessHistory.h).
  return period && history && index >= period &&
         recent[(index - period) % AccessHistory::kWindow].complete &&
         (externalAt == UINT64_MAX || externalAt + 2 * period <= index);
}

void DataflowBound::catchUp() {
  endRepeat();
  if (deferred.empty())
    return;
  deferred.drain([&](uint64_t j) {
    Producer out{int64_t(j), recent[j % AccessHistory::kWindow].finish, false};
    for (const sim::AddrRange &w : history->getWrites(j))
      mem.assign(w, out);
  });
}

template <typename Use>
void DataflowBound::useMemory(uint64_t index, unsigned period,
                              llvm::ArrayRef<sim::AddrRange> reads, Recent &rec,
                              Use use) {
  if (period) {
    // The twin's producers: one at most `period` before the twin wrote
    // again `period` later; an older one is still the last writer.
    const Recent &twin = recent[(index - period) % AccessHistory::kWindow];
    uint64_t twinIndex = index - period;
    unsigned n = twin.numMem;
    for (unsigned k = 0; k < n; ++k) {
      auto p = twin.mem[k];
      if (p.index >= 0 && twinIndex - uint64_t(p.index) <= period) {
        p.index += period;
        p.ready = recent[uint64_t(p.index) % AccessHistory::kWindow].finish;
      }
      rec.mem[k] = p;
      use(Producer{p.index, p.ready, false});
    }
    rec.numMem = uint8_t(n);
    rec.complete = true;
    return;
  }
  catchUp();
  rec.numMem = 0;
  rec.complete = true;
  for (const sim::AddrRange &r : reads)
    mem.forEachOverlap(r, [&](const Producer &p) {
      use(p);
      for (unsigned k = 0; k < rec.numMem; ++k)
        if (rec.mem[k].index == p.index && rec.mem[k].ready == p.ready)
          return;
      if (rec.numMem == kMaxMemProducers) {
        rec.complete = false;
        return;
      }
      rec.mem[rec.numMem++] = {p.index, p.ready};
    });
}

void DataflowBound::addAny(llvm::ArrayRef<uint8_t> regReads,
                           llvm::ArrayRef<uint8_t> regWrites,
                           llvm::ArrayRef<sim::AddrRange> reads,
                           llvm::ArrayRef<sim::AddrRange> writes,
                           const Cost &cost, unsigned period) {
  // Long: the per-instruction pass, kept in one piece: split into calls
  // (the cost, the twin's producers) it ran 5% slower (farm-bench).
  endRepeat();
  uint64_t index = count;
  bool recording = index <= kMaxIndex;
  size_t slot = size_t(index % AccessHistory::kWindow);
  if (history && slot >= recent.size())
    recent.resize(std::min<size_t>(AccessHistory::kWindow,
                                   std::max<size_t>(slot + 1, 2 * slot)));
  Recent scratch;
  Recent &rec = history ? recent[slot] : scratch;
  // 0 when the twin cannot serve (then the writes deferred so far go in
  // first); a deferred run keeps one period.
  if (!canUseTwin(index, period) || !deferred.canJoin(index, period))
    period = 0;

  // Earliest start: the latest of the values read. Without a period the
  // producers are collected as edges as they are used; with one they are
  // the registers', the twin's moved (rec.mem) and the branch, collected
  // below only when the twin's edge bytes do not serve.
  uint64_t start = 0;
  llvm::SmallVector<uint32_t, 8> preds;
  auto addPred = [&](const Producer &p) {
    if (p.index >= 0)
      preds.push_back(uint32_t(p.index) | (p.atStart ? kAtStart : 0));
  };
  bool collect = recording && !period;
  auto use = [&](const Producer &p) {
    start = std::max(start, p.ready);
    if (collect)
      addPred(p);
  };
  for (uint8_t r : regReads)
    if (r != 0)
      use(regs[r]);
  useMemory(index, period, reads, rec, use);
  // The last conditional branch, as an edge only where it binds (later
  // than every value read): a branch on constant bounds costs no edge, and
  // a dropped edge only shortens tails, which keeps every bound valid.
  bool usedControl = control.ready > start;
  ++count;
  if (usedControl)
    use(control);
  // The twin whose edge bytes serve, or the producers as edges (before the
  // registers and the branch change below).
  const Recent *shareFrom = nullptr;
  uint64_t shift = kNoShift;
  bool repeatable = false;
  if (recording && period) {
    const Recent &twin = recent[(index - period) % AccessHistory::kWindow];
    if (canShare(twin, period, usedControl)) {
      shareFrom = &twin;
      // Its shift, and whether it can join a repeat run's template: the
      // same shift as its twin's, and its inputs move no further.
      uint64_t twinStart = starts.empty() ? 0 : starts[index - period];
      if (repeatRuns && cost.lead == 0 && !cost.regsAtStart &&
          !cost.holdsDmaSlot && (cost.track2 < 0 || cost.busy2 == 0) &&
          issueTrack >= 0 && regWrites.size() <= 2 && cost.busy < UINT32_MAX &&
          start < UINT32_MAX && start >= twinStart &&
          cost.busy == duration[index - period]) {
        shift = start - twinStart;
        repeatable =
            twin.shift == shift && isRepeatable(index, period, start, shift,
                                                regReads, rec, usedControl);
      }
    } else {
      for (uint8_t r : regReads)
        if (r != 0)
          addPred(regs[r]);
      for (unsigned k = 0; k < rec.numMem; ++k)
        addPred(Producer{rec.mem[k].index, rec.mem[k].ready, false});
      if (usedControl)
        addPred(control);
    }
  }

  uint64_t dur = cost.lead + cost.busy;
  if (cost.holdsDmaSlot)
    slotCycles += dur;
  uint64_t finish = start + dur;
  critical = std::max(critical, finish);
  lastFinish = finish;
  if (issueTrack >= 0 && recording)
    starts.push_back(uint32_t(std::min<uint64_t>(start, UINT32_MAX)));
  if (cost.track >= 0 && cost.busy > 0)
    addWork(cost.track, index, start, cost.lead, cost.busy, recording,
            /*whole=*/true);
  if (cost.track2 >= 0 && cost.busy2 > 0)
    addWork(cost.track2, index, start, cost.lead, cost.busy2, recording,
            /*whole=*/false);

  if (cost.controls)
    control = Producer{int64_t(index), start, true};
  Producer out{int64_t(index), finish, false};
  for (uint8_t r : regWrites)
    if (r != 0)
      regs[r] = cost.regsAtStart ? Producer{int64_t(index), start, true} : out;
  rec.finish = finish;
  if (period) {
    // Its writes wait: only the last period's can show (catchUp).
    deferred.join(index, period);
  } else {
    for (const sim::AddrRange &w : writes)
      mem.assign(w, out);
  }

  // The graph for the backward pass: the twin's edge bytes when they
  // encode this instruction's edges too (shareEdges), else its own.
  if (recording) {
    if (shareFrom) {
      shareEdges(*shareFrom, period, dur, rec);
      ++numShared;
    } else {
      recordEdges(index, preds, dur, period, rec);
    }
    rec.usedControl = usedControl;
  }
  rec.shift = shift;
  if (repeatable) {
    rec.track = int16_t(cost.track);
    rec.controls = cost.controls;
    rec.numRegWrites = uint8_t(regWrites.size());
    std::copy(regWrites.begin(), regWrites.end(), rec.regWrites);
  }
  noteStreak(repeatable, index, period);
}

bool DataflowBound::isRepeatable(uint64_t index, unsigned period,
                                 uint64_t start, uint64_t shift,
                                 llvm::ArrayRef<uint8_t> regReads,
                                 const Recent &rec, bool usedControl) const {
  // An input made within the last `period` instructions moves by its
  // producer's shift each period (that producer's copy makes it), an older
  // one (or the start of the graph, 0) stays. The latest input then stays
  // the latest when none moves further than it, and the last branch stays
  // used, or unused, likewise. (Called before the registers and the branch
  // change.)
  int64_t lo = int64_t(index) - int64_t(period);
  bool binds = start == 0 && shift == 0;
  auto fits = [&](const Producer &p, bool used) {
    uint64_t moves =
        p.index >= lo ? recent[uint64_t(p.index) % AccessHistory::kWindow].shift
                      : 0;
    if (moves > shift) // kNoShift too: its copy's time is not known
      return false;
    binds |= used && moves == shift && p.ready == start;
    return true;
  };
  for (uint8_t r : regReads)
    if (r != 0 && !fits(regs[r], true))
      return false;
  for (unsigned k = 0; k < rec.numMem; ++k)
    if (!fits(Producer{rec.mem[k].index, rec.mem[k].ready, false}, true))
      return false;
  return fits(control, usedControl) && binds;
}

void DataflowBound::noteStreak(bool qualifies, uint64_t index,
                               unsigned period) {
  if (!qualifies) {
    repeat.streak = 0;
    return;
  }
  if (repeat.streak && repeat.period == period) {
    ++repeat.streak;
  } else {
    repeat.streak = 1;
    repeat.period = period;
  }
  if (repeat.streak < period)
    return;
  // The last `period` instructions are the template: a run starts.
  uint64_t begin = index + 1;
  templates.resize(period);
  Run run;
  run.begin = run.end = begin;
  run.period = period;
  run.templateEnds.resize(period);
  for (unsigned p = 0; p < period; ++p) {
    templates[p] = recent[(begin - period + p) % AccessHistory::kWindow];
    run.templateEnds[p] = templates[p].edgesAt + templates[p].edgeBytes;
  }
  runs.push_back(std::move(run));
  repeat.active = true;
  repeat.phase = 0;
}

void DataflowBound::endRepeat() {
  if (!repeat.active)
    return;
  repeat.active = false;
  repeat.streak = 0;
  Run &run = runs.back();
  uint64_t begin = run.begin, end = count;
  unsigned period = run.period;
  if (end == begin) {
    runs.pop_back();
    return;
  }
  run.end = end;
  numShared += end - begin;
  numRepeated += end - begin;
  // Instruction j of the run is its template's copy k periods later.
  auto copyOf = [&](uint64_t j, uint64_t &k) -> const Recent & {
    uint64_t off = j - begin;
    k = off / period + 1;
    return templates[off % period];
  };
  // What the next instructions read of the last kWindow: `recent`.
  constexpr uint64_t w = AccessHistory::kWindow;
  if (recent.size() < std::min<uint64_t>(w, end))
    recent.resize(std::min<uint64_t>(w, end));
  for (uint64_t j = std::max(begin, end > w ? end - w : 0); j < end; ++j) {
    uint64_t k;
    Recent r = copyOf(j, k);
    // Its template t = j - k * period; a producer of t within the period
    // before t moved with its copies, by its phase's shift.
    int64_t moving = int64_t(j - k * period) - int64_t(period);
    r.finish += k * r.shift;
    for (unsigned m = 0; m < r.numMem; ++m)
      if (r.mem[m].index >= 0 && r.mem[m].index >= moving) {
        uint64_t phase =
            (uint64_t(r.mem[m].index) + 2 * period - begin) % period;
        r.mem[m].index += int64_t(k * period);
        r.mem[m].ready += k * templates[phase].shift;
      }
    if (r.minAbsBack != UINT64_MAX)
      r.minAbsBack += k * period;
    recent[j % w] = r;
  }
  // The registers and the branch: written in every period, so by the run's
  // last `period` instructions (or all of it, if shorter).
  for (uint64_t j = end - std::min<uint64_t>(end - begin, period); j < end;
       ++j) {
    uint64_t k;
    const Recent &t = copyOf(j, k);
    uint64_t finish = t.finish + k * t.shift;
    for (unsigned m = 0; m < t.numRegWrites; ++m)
      if (t.regWrites[m] != 0)
        regs[t.regWrites[m]] = Producer{int64_t(j), finish, false};
    if (t.controls)
      control = Producer{int64_t(j), finish - duration[j], true};
  }
  // Their writes wait, as each instruction's would have.
  deferred.joinMany(end, period, end - begin);
}

void DataflowBound::shareEdges(const Recent &twin, unsigned period,
                               uint64_t dur, Recent &rec) {
  // Edges are a few bytes: a loop beats a call to memcpy.
  size_t at = edges.size();
  edges.resize_for_overwrite(at + twin.edgeBytes);
  const uint8_t *from = edges.data() + twin.edgesAt;
  uint8_t *to = edges.data() + at;
  for (uint32_t k = 0; k < twin.edgeBytes; ++k)
    to[k] = from[k];
  edgeCount.push_back(twin.numEdges);
  duration.push_back(uint32_t(std::min<uint64_t>(dur, UINT32_MAX)));
  rec.edgesAt = at;
  rec.edgeBytes = twin.edgeBytes;
  rec.numEdges = twin.numEdges;
  rec.maxRelBack = twin.maxRelBack;
  rec.minAbsBack =
      twin.minAbsBack == UINT64_MAX ? UINT64_MAX : twin.minAbsBack + period;
}

void DataflowBound::recordEdges(uint64_t index,
                                llvm::SmallVectorImpl<uint32_t> &preds,
                                uint64_t dur, unsigned period, Recent &rec) {
  if (preds.size() > 1) {
    // An insertion sort for the usual handful (std::sort's set-up costs
    // more than the sort; llvm::sort's qsort more still), std::sort above.
    if (preds.size() <= 16) {
      for (size_t i = 1; i < preds.size(); ++i) {
        uint32_t v = preds[i];
        size_t j = i;
        for (; j > 0 && preds[j - 1] > v; --j)
          preds[j] = preds[j - 1];
        preds[j] = v;
      }
    } else {
      std::sort(preds.begin(), preds.end());
    }
    preds.erase(std::unique(preds.begin(), preds.end()), preds.end());
  }
  if (preds.size() > kMaxEdgesPerInst)
    preds.resize(kMaxEdgesPerInst);
  edgeCount.push_back(uint16_t(preds.size()));
  pushEdges(index, preds, period, rec);
  duration.push_back(uint32_t(std::min<uint64_t>(dur, UINT32_MAX)));
}

void DataflowBound::addWork(int track, uint64_t index, uint64_t start,
                            uint64_t lead, uint64_t busy, bool recording,
                            bool whole) {
  uint32_t b = uint32_t(std::min<uint64_t>(busy, UINT32_MAX));
  TrackWork &w = work[size_t(track)];
  // Its head starts[index], its busy cycles duration[index] (lead + busy,
  // saturated the same way).
  if (whole && lead == 0 && recording && issueTrack >= 0 && start < UINT32_MAX)
    w.atStart.push_back({uint32_t(index)});
  else
    w.other.push_back({start + lead, recording ? uint32_t(index) : kNoInst, b});
}

unsigned DataflowBound::encodeEdge(uint64_t v, uint8_t *out) {
  // Its 7-bit groups from the highest: every byte but the last (the lowest
  // group) has 0x80 set, so decodeEdge reads it back from its end in one
  // pass. (A branch-free version that stores 8 bytes at once ran more host
  // instructions and no faster: most edges are one byte.)
  unsigned groups = v < 0x80 ? 1 : (64 - llvm::countl_zero(v) + 6) / 7;
  uint8_t *p = out;
  for (unsigned shift = 7 * (groups - 1); shift; shift -= 7)
    *p++ = uint8_t((v >> shift) & 0x7f) | 0x80;
  *p = uint8_t(v & 0x7f);
  return groups;
}

uint64_t DataflowBound::decodeEdge(const uint8_t *data, size_t &pos) {
  // The number's last byte is data[pos - 1] (below 0x80), its lowest
  // group; the bytes before it at 0x80 or above are its higher groups.
  uint64_t v = data[--pos];
  for (unsigned shift = 7; pos > 0 && data[pos - 1] & 0x80; shift += 7)
    v |= uint64_t(data[--pos] & 0x7f) << shift;
  return v;
}

void DataflowBound::pushEdges(uint64_t index,
                              llvm::ArrayRef<uint32_t> producers,
                              unsigned period, Recent &rec) {
  // Room for five bytes an edge (a number below 2^33), then cut to what
  // was written: one growth check per instruction.
  size_t at = edges.size();
  edges.resize_for_overwrite(at + 5 * producers.size());
  uint8_t *out = edges.data() + at;
  uint64_t maxRelBack = 0, minAbsBack = UINT64_MAX;
  for (uint32_t producer : producers) {
    // The smaller of the distance back and the producer's own index: a
    // value made before a loop (an address register, a constant tile) is
    // read by every iteration, from ever further back. With a period, the
    // index also for a producer more than a period back, which the copies
    // of this instruction a period later read too (its bytes then serve
    // them: canShare).
    uint64_t p = producer & ~kAtStart, back = index - p;
    uint64_t v;
    if (p < back || (period && back > period)) {
      v = p << 2 | kAbsolute;
      minAbsBack = std::min(minAbsBack, back);
    } else {
      v = back << 2;
      maxRelBack = std::max(maxRelBack, back);
    }
    out += encodeEdge(v | uint64_t((producer & kAtStart) != 0), out);
  }
  size_t end = size_t(out - edges.data());
  edges.truncate(end);
  rec.edgesAt = at;
  rec.edgeBytes = uint32_t(end - at);
  rec.numEdges = uint16_t(producers.size());
  rec.maxRelBack = maxRelBack;
  rec.minAbsBack = minAbsBack;
}

uint32_t DataflowBound::popEdge(uint64_t index, size_t &pos) const {
  uint64_t v = decodeEdge(edges.data(), pos);
  uint32_t producer = uint32_t((v & kAbsolute) ? v >> 2 : index - (v >> 2));
  return (v & 1) ? producer | kAtStart : producer;
}

template <typename InstFn, typename EdgeFn>
void DataflowBound::forEachBackward(InstFn inst, EdgeFn edge) const {
  // The instructions outside runs read their bytes from the end of `edges`
  // back; those of a run, their template's (which come before the run's
  // first instruction, so `pos` is where they end when the run is done).
  size_t pos = edges.size();
  uint64_t i = edgeCount.size();
  for (size_t r = runs.size() + 1; r-- > 0;) {
    uint64_t plainFrom = r ? runEnd(r - 1) : 0;
    for (; i > plainFrom;) {
      --i;
      inst(i);
      for (unsigned k = 0, n = edgeCount[i]; k < n; ++k)
        edge(i, popEdge(i, pos));
    }
    if (!r)
      break;
    const Run &run = runs[r - 1];
    unsigned phase = unsigned((i - run.begin) % run.period);
    for (; i > run.begin;) {
      --i;
      phase = phase ? phase - 1 : run.period - 1;
      size_t from = size_t(run.templateEnds[phase]);
      inst(i);
      for (unsigned k = 0, n = edgeCount[i]; k < n; ++k)
        edge(i, popEdge(i, from));
    }
  }
}

void DataflowBound::forEachEdge(
    llvm::function_ref<void(uint64_t, uint64_t, bool)> fn) const {
  forEachBackward([](uint64_t) {},
                  [&](uint64_t i, uint32_t edge) {
                    fn(i, edge & ~kAtStart, (edge & kAtStart) != 0);
                  });
}

uint64_t DataflowBound::getMaxHead() const {
  uint64_t maxHead = 0;
  for (const TrackWork &track : work) {
    for (const Work &w : track.other)
      maxHead = std::max(maxHead, w.head);
    for (const AtStart &w : track.atStart)
      maxHead = std::max<uint64_t>(maxHead, starts[w.inst]);
  }
  for (uint32_t s : starts)
    maxHead = std::max<uint64_t>(maxHead, s);
  return maxHead;
}

namespace {
/// longestPaths' test at a period boundary: `cur` holds period q's inputs
/// (the lengths its consumers in period q + 1 offered, 0 for none), `prev`
/// period q + 1's, `durations` period q + 1's durations (every period's),
/// and after `prev` in memory come period q + 1's final lengths. Returns
/// the constant by which every offered input grew (an input 0 in both is
/// none; at least one is offered), when there is one and periods 1..q
/// extrapolated with it stay below `maxLength` with any lag on top (no
/// length is clamped).
template <typename Length>
std::optional<uint64_t> periodDelta(const Length *cur,
                                    const std::vector<Length> &prev,
                                    const uint32_t *durations, uint64_t period,
                                    uint64_t q, uint64_t maxLength) {
  std::optional<uint64_t> delta;
  for (uint64_t k = 0; k < period; ++k) {
    if ((cur[k] == 0) != (prev[k] == 0) || cur[k] < prev[k])
      return std::nullopt;
    if (cur[k] == 0)
      continue;
    uint64_t d = uint64_t(cur[k]) - prev[k];
    if (delta && *delta != d)
      return std::nullopt;
    delta = d;
  }
  if (!delta)
    return std::nullopt;
  // Period q + 1's lengths follow its inputs in `longest`, period lengths
  // after `cur`.
  const Length *lengths = cur + period;
  uint64_t maxV = 0, maxLag = 0;
  for (uint64_t k = 0; k < period; ++k) {
    maxV = std::max<uint64_t>(maxV, lengths[k]);
    maxLag = std::max<uint64_t>(maxLag, durations[k]);
  }
  unsigned __int128 top =
      (unsigned __int128)maxV + (unsigned __int128)q * *delta + maxLag;
  if (top > maxLength)
    return std::nullopt;
  return delta;
}

/// Periods 1..q of the run of `period` instructions from `begin`, from
/// period q + 1's final lengths, each period `delta` more than the one
/// after (a length 0 stays 0: longestPaths' check let no other length
/// stay); before that, period 0's inputs from period 1, which are period q's
/// (still in place) plus q * delta, each the larger of that and what
/// period 0 already had from outside the run.
template <typename Length>
void extrapolate(Length *longest, uint64_t begin, uint64_t period, uint64_t q,
                 uint64_t delta) {
  uint64_t s = begin + q * period;
  for (uint64_t k = 0; k < period; ++k)
    if (Length in = longest[s + k])
      longest[begin + k] =
          std::max<Length>(longest[begin + k], Length(in + q * delta));
  // A length 0 (nothing after it, no duration) stays 0; any other grows.
  for (uint64_t j = s + period; j-- > begin + period;)
    if (Length next = longest[j + period])
      longest[j] = Length(next + delta);
}
} // namespace

// Edges point from a consumer to its producers, which come earlier, so
// one pass from the last instruction finalizes each length before its
// producers read it. In a repeat run of period L every period has the
// same edges (its template's: relative ones at most L back, absolute
// ones before the run) and durations. Call period q's inputs what its
// instructions were offered from outside it before it is visited (from
// period q + 1, when nothing else reached it). Suppose period q's inputs
// are period q + 1's plus a constant D (an input 0 in both: none), and
// in period q + 1 every length came from its consumers, above its
// duration, or is 0 with nothing above 0 offered (a scalar instruction
// no later one waits for). Visiting a period adds and takes maxima, and
// those lengths were decided by offers, never by a duration or the
// initial 0 (a length-0 consumer offers at most the duration), so
// period q's lengths are period q + 1's plus D (0 stays 0), its offers
// to period q - 1 too, and by induction each period below to period 1
// is the one above plus D, with period 0's inputs period q's plus q D.
// Period 0 is then visited as usual: its edges before the run and the
// absolute ones are the only ones leaving the run, and its lengths are
// the largest (D >= 0), so the skipped periods' offers there change
// nothing. Checked before: no edge from after the run reached periods
// 1..q, and no length of periods 1..q would reach Length's limit.
template <typename Length>
uint64_t DataflowBound::longestPaths(BulkVector<Length> &longest) const {
  constexpr uint64_t kMaxLength = std::numeric_limits<Length>::max();
  // Instruction i: at least its own duration, then each edge offers its
  // producer the lag (the producer's duration, or 0 from its start) plus
  // i's length. Returns whether i's length came from offers alone, above
  // its duration, or is 0 with none above 0 (the induction above).
  auto visit = [&](uint64_t i, size_t &pos) {
    Length before = longest[i];
    bool fromConsumers =
        before > duration[i] || (before == 0 && duration[i] == 0);
    longest[i] = std::max<Length>(before, duration[i]);
    for (unsigned k = 0, e = edgeCount[i]; k < e; ++k) {
      uint32_t edge = popEdge(i, pos);
      size_t p = edge & ~kAtStart;
      uint64_t lag = (edge & kAtStart) ? 0 : duration[p];
      uint64_t length = std::min<uint64_t>(lag + longest[i], kMaxLength);
      longest[p] = std::max<Length>(longest[p], Length(length));
    }
    return fromConsumers;
  };
  uint64_t extrapolated = 0;
  // Outside runs, each instruction's edge bytes come from the end of
  // `edges` back; in a run, from its template's (forEachBackward).
  size_t pos = edges.size();
  uint64_t i = edgeCount.size();
  std::vector<Length> inputs;
  for (size_t r = runs.size() + 1; r-- > 0;) {
    for (uint64_t plainFrom = r ? runEnd(r - 1) : 0; i > plainFrom;) {
      --i;
      visit(i, pos);
    }
    if (!r)
      break;
    const Run &run = runs[r - 1];
    const uint64_t period = run.period, begin = run.begin;
    auto visitPeriod = [&](uint64_t s, uint64_t phases) {
      bool fromConsumers = true;
      for (uint64_t ph = phases; ph-- > 0;) {
        size_t from = size_t(run.templateEnds[ph]);
        fromConsumers &= visit(s + ph, from);
      }
      return fromConsumers;
    };
    // Whole periods [begin + q period, begin + (q + 1) period) for q below
    // `whole`, and above them the start of one.
    uint64_t whole = (i - begin) / period;
    visitPeriod(begin + whole * period, i - begin - whole * period);
    // The first instruction of periods 1.. an edge from outside the run
    // reached (past them: none). Today none does: a run's instructions
    // write the same ranges every period (AccessHistory), so the last
    // writers later instructions find are in its last period; this keeps
    // the extrapolation exact if the graph ever gains other edges.
    uint64_t outside = begin + period;
    while (outside < begin + whole * period && !longest[outside])
      ++outside;
    bool haveInputs = false, fromConsumers = false;
    for (uint64_t q = whole; q-- > 0;) {
      uint64_t s = begin + q * period;
      // Period q's inputs, all from period q + 1, against period q + 1's.
      if (q > 0 && haveInputs && fromConsumers && outside >= s + period)
        if (std::optional<uint64_t> delta = periodDelta(
                longest.data() + s, inputs, duration.data() + s + period,
                period, q, kMaxLength)) {
          extrapolate(longest.data(), begin, period, q, *delta);
          extrapolated += q * period;
          visitPeriod(begin, period);
          break;
        }
      inputs.assign(longest.data() + s, longest.data() + s + period);
      haveInputs = true;
      fromConsumers = visitPeriod(s, period);
    }
    i = begin;
  }
  return extrapolated;
}

std::vector<uint64_t> DataflowBound::getPathLengths() const {
  BulkVector<uint64_t> longest;
  longest.resize(edgeCount.size());
  numExtrapolated = longestPaths(longest);
  return std::vector<uint64_t>(longest.begin(), longest.end());
}

std::vector<std::optional<DataflowBound::TrackBound>>
DataflowBound::trackBounds() const {
  // A path from instruction i's start is at most the critical path: along
  // each edge the consumer starts no earlier than its producer's start
  // plus the edge's lag (the producer's duration, or 0 at its start), and
  // the path's last instruction finishes by the critical path. Below 2^32
  // cycles, the usual run, 4 bytes an instruction hold the lengths.
  if (critical <= UINT32_MAX)
    return boundsWith<uint32_t>();
  return boundsWith<uint64_t>();
}

template <typename Length>
std::vector<std::optional<DataflowBound::TrackBound>>
DataflowBound::boundsWith() const {
  // Backward pass: longest[i] is the longest path from instruction i's
  // start to the end of the program (at least its own duration). Edges
  // point from a consumer to its producers, which come earlier, so one
  // pass from the last instruction finalizes each node before its
  // producers read it. A length is clamped to what Length holds, which
  // the critical path already is (trackBounds): were it not, a shorter
  // tail would only weaken the bound.
  size_t n = edgeCount.size();
  BulkVector<Length> longest; // mapped, see there
  longest.resize(n);
  numExtrapolated = longestPaths(longest);
  // A piece of work ends `duration` after its instruction's start; its
  // tail is the rest of the longest path (0 past the recorded graph).
  auto tailOf = [&](const Work &w) -> uint64_t {
    return w.inst < n ? longest[w.inst] - duration[w.inst] : 0;
  };

  uint64_t maxHead = getMaxHead();
  unsigned shift = 0;
  while ((maxHead >> shift) >= kMaxReleaseBins)
    ++shift;
  size_t bins = size_t(maxHead >> shift) + 1;

  std::vector<std::optional<TrackBound>> result(work.size());
  std::vector<uint64_t> binBusy, binTail;
  for (size_t t = 0; t < work.size(); ++t) {
    // The issue track holds only issues (scalar instructions cost no
    // other work), which the subtraction below relies on.
    bool issues = int(t) == issueTrack && !starts.empty() && issueCycles &&
                  work[t].empty();
    if (work[t].empty() && !issues)
      continue;
    binBusy.assign(bins, 0);
    binTail.assign(bins, UINT64_MAX);
    TrackBound tb{UINT64_MAX, UINT64_MAX, 0};
    auto addPiece = [&](uint64_t head, uint64_t busy, uint64_t tail) {
      size_t bin = size_t(head >> shift);
      binBusy[bin] += busy;
      binTail[bin] = std::min(binTail[bin], tail);
      tb.head = std::min(tb.head, head);
      tb.tail = std::min(tb.tail, tail);
    };
    for (const Work &w : work[t].other)
      addPiece(w.head, w.busy, tailOf(w));
    for (const AtStart &w : work[t].atStart)
      addPiece(starts[w.inst], duration[w.inst],
               longest[w.inst] - duration[w.inst]);
    // Each instruction's issue, followed by the rest of its longest path.
    if (issues)
      for (size_t i = 0; i < starts.size() && i < n; ++i)
        addPiece(starts[i], issueCycles, longest[i] - duration[i]);
    uint64_t busy = 0, tail = UINT64_MAX;
    for (size_t i = bins; i-- > 0;) {
      if (!binBusy[i])
        continue;
      busy += binBusy[i];
      tail = std::min(tail, binTail[i]);
      tb.bound = std::max(tb.bound, (uint64_t(i) << shift) + busy + tail);
    }
    // The last issue takes one cycle of the run, not issueCycles.
    if (issues && tb.bound >= issueCycles)
      tb.bound -= issueCycles - 1;
    result[t] = tb;
  }
  return result;
}
