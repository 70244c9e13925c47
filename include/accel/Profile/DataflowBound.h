//===- DataflowBound.h - Latency-aware lower bounds on cycles ---*- C++ -*-===//
//
// Lower bounds on a program's cycles that count latency, for the roofline
// section of metrics.json (docs/metrics.md#roofline). The model is the
// dataflow graph of the run: true (read-after-write) dependences through
// registers, VMEM and HBM, and control dependences on conditional branches
// (nothing runs ahead of a branch before its operands are ready: no
// speculation), unlimited units, scalar instructions free,
// MXU/VPU instructions their busy cycles, a DMA its link's T_b plus its
// transfer (SnR §5.2, Fig. 4 on an idle link). From it:
//   - the critical path: the latest finish of any instruction;
//   - per unit or link (and, as tracks of their own, the in-order core,
//     where every instruction takes its issue cycles, and a bus that DMAs
//     share, HBM's), the one-unit bound with heads and tails: a piece of
//     work cannot start before its head (its earliest start in the model)
//     and is followed by at least its tail (the longest path from its end
//     to the program's end), so for every release date r,
//       r + (busy cycles with head >= r) + (smallest tail among them)
//     is a lower bound: the unit works through that set one piece at a
//     time, and the piece it finishes last still needs its tail.
// Both hold for every schedule of the same work with the same true
// dependences (the single-machine bound with heads and tails of scheduling
// theory, e.g. Carlier's 1|r_j,q_j|C_max relaxation).
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_PROFILE_DATAFLOWBOUND_H
#define ACCEL_PROFILE_DATAFLOWBOUND_H

#include "accel/ISA/Isa.h"
#include "accel/Profile/AccessHistory.h"
#include "accel/Profile/RangeMap.h"
#include "accel/Sim/Memory.h"
#include "accel/Support/BulkVector.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <algorithm>
#include <array>
#include <optional>
#include <vector>

namespace accel {
namespace profile {

/// The dataflow graph of a run, built one instruction at a time in program
/// order, and the bounds above. Memory: 6 bytes per instruction (10 with an
/// issue track) plus 1 to 5 per dependence edge (1 for a producer under 32
/// instructions back or among the first 32, 3 under 2^19 either way; none
/// for an instruction of a repeat run, which shares its template's), 4
/// per piece of MXU or VPU work (16
/// past 2^32 cycles) and 16 per piece of link or HBM work; the
/// heads-and-tails bound needs 4 more bytes per instruction (8 for a
/// critical path past 2^32 cycles) while it is computed.
class DataflowBound {
public:
  /// What an instruction costs in the model.
  struct Cost {
    /// Index of the track (unit or link) its busy cycles occupy, or -1 for
    /// none (scalar instructions are free).
    int track = -1;
    /// Cycles from its start to the start of its busy cycles (a DMA: T_b).
    uint64_t lead = 0;
    /// Busy cycles on `track` (a DMA: ceil(bytes / bytes_per_cycle)).
    uint64_t busy = 0;
    /// Its register results are ready at its start, not its end (a DMA's
    /// id exists at its ISSUE; its destination at its end).
    bool regsAtStart = false;
    /// It holds one of the machine's DMA slots (dma.max_outstanding) for
    /// its lead and busy cycles at least (a DMA, from ISSUE to completion).
    bool holdsDmaSlot = false;
    /// A second track its transfer occupies at the same time, from the end
    /// of its lead, for `busy2` cycles (a DMA to or from HBM: the HBM bus
    /// the links share), or -1.
    int track2 = -1;
    uint64_t busy2 = 0;
    /// A conditional branch: no later instruction starts before it (the
    /// core does not speculate, and no transform moves work across a
    /// branch whose direction depends on data, e.g. the trip count of a
    /// loop loaded from memory), so each later one depends on its start
    /// (an edge of the graph only where that is later than every value
    /// the instruction reads).
    bool controls = false;
  };

  /// `numTracks` units and links. With `issueTrack` >= 0, every
  /// instruction also occupies that track (the in-order core) for
  /// `issueCycles` at its start: the core issues one instruction at a time,
  /// `issueCycles` (scalar.latency) apart, and the run ends one cycle after
  /// the last issue, so that track's bound counts (issueCycles - 1) less.
  explicit DataflowBound(size_t numTracks, int issueTrack = -1,
                         uint64_t issueCycles = 0)
      : work(numTracks), issueTrack(issueTrack), issueCycles(issueCycles) {}

  /// Adds the next instruction: `regReads`/`regWrites` are register
  /// numbers (register 0 is the constant zero and carries no dependence),
  /// `reads`/`writes` the byte ranges it accesses. Values from before the
  /// first instruction (a replay window's start) are ready at cycle 0.
  /// `period`: the instruction's period in the history set with
  /// setHistory (AccessHistory::push, for the same instruction), or 0. With
  /// a period the memory's producers come from the twin's and the writes
  /// wait (AccessHistory.h), and a loop that repeats its timing too is
  /// added as a repeat run (`runs`: a few appends per instruction); the
  /// graph and the bounds are the same.
  void add(llvm::ArrayRef<uint8_t> regReads, llvm::ArrayRef<uint8_t> regWrites,
           llvm::ArrayRef<sim::AddrRange> reads,
           llvm::ArrayRef<sim::AddrRange> writes, const Cost &cost,
           unsigned period = 0) {
    if (!repeat.active || !addRepeat(cost, period))
      addAny(regReads, regWrites, reads, writes, cost, period);
  }
  /// The accesses of every instruction added from now on, in add() order
  /// (instruction i of this graph is `history`'s i), for add()'s periods.
  void setHistory(const AccessHistory *h) { history = h; }

  /// Calls fn(i) with the index i (0-based, in add() order) of the last
  /// instruction that wrote each written part of `range`; bytes not written
  /// since the first instruction give no call.
  template <typename Fn>
  void forEachLastWriter(const sim::AddrRange &range, Fn fn) {
    catchUp();
    mem.forEachOverlap(range, [&](const Producer &p) { fn(p.index); });
  }

  /// The finish, in the model, of the last instruction added (0 before the
  /// first).
  uint64_t getLastFinish() const { return lastFinish; }
  /// `range` (of another chip's memory, or of this one's) holds a value
  /// from outside this graph ready at `ready`: another chip's remote DMA
  /// wrote it, or, for a remote read, its producer on the chip it is read
  /// from. Later reads of it start no earlier. It adds no edge (the
  /// producer is not in this graph), which only shortens tails.
  void addExternalWrite(const sim::AddrRange &range, uint64_t ready) {
    catchUp();
    externalAt = count; // the twins before it saw other producers
    mem.assign(range, Producer{-1, ready, false});
  }
  /// The latest time the values in `range` are ready in the model (0 for
  /// values from before the first instruction).
  uint64_t getReady(const sim::AddrRange &range) {
    catchUp();
    uint64_t ready = 0;
    mem.forEachOverlap(
        range, [&](const Producer &p) { ready = std::max(ready, p.ready); });
    return ready;
  }

  /// The critical path in cycles: the latest finish of any instruction.
  uint64_t criticalPath() const { return critical; }

  /// The DMA-slot bound in cycles: with `slots` DMAs in flight at most
  /// (dma.max_outstanding) and each DMA in flight for at least its T_b plus
  /// its transfer, the run takes at least ceil(sum of those / slots)
  /// cycles. 0 when `slots` is 0 or nothing held a slot.
  uint64_t dmaSlotBound(uint64_t slots) const {
    return slots ? (slotCycles + slots - 1) / slots : 0;
  }

  /// One track's bound, in cycles.
  struct TrackBound {
    uint64_t head = 0;  ///< earliest start of any of its work
    uint64_t tail = 0;  ///< smallest tail of any of its work
    uint64_t bound = 0; ///< max over r of r + work after r + smallest tail
  };
  /// Per track: its bound, or nullopt if it has no work. Heads are grouped
  /// into at most kMaxReleaseBins release dates (each rounded down, which
  /// only weakens the bound). Runs the backward pass for the tails: time
  /// and memory linear in the instructions and edges added (the edges of
  /// most of a repeat run's periods are not read: longestPaths).
  std::vector<std::optional<TrackBound>> trackBounds() const;

  static constexpr size_t kMaxReleaseBins = 1 << 16;

  /// The instructions of repeat runs whose path lengths the last
  /// trackBounds() extrapolated from later periods (for tests).
  uint64_t getNumExtrapolated() const { return numExtrapolated; }
  /// Per instruction, the longest path from its start to the end, in
  /// cycles (trackBounds' tails plus durations; for tests, which compare
  /// them with and without repeat runs).
  std::vector<uint64_t> getPathLengths() const;
  /// Calls fn(consumer, producer, atStart) for every edge of the recorded
  /// graph, from the last instruction back (for tests: two graphs of the
  /// same instructions are the same edge for edge).
  void forEachEdge(llvm::function_ref<void(uint64_t, uint64_t, bool)> fn) const;
  /// The instructions recorded with their twin's edge bytes (shareEdges),
  /// those of repeat runs included.
  uint64_t getNumShared() const {
    return numShared + (repeat.active ? count - runs.back().begin : 0);
  }
  /// The instructions added in repeat runs (see `runs`), so far.
  uint64_t getNumRepeated() const {
    return numRepeated + (repeat.active ? count - runs.back().begin : 0);
  }
  /// Whether add() may take repeat runs (default: yes); for tests, which
  /// compare the two.
  void setRepeatRuns(bool on) {
    endRepeat();
    repeatRuns = on;
  }

  /// The encoding of an edge (see `edges`), exposed for tests: writes the
  /// number `v` (below 2^35) at `out` as 1 to 5 bytes, its 7-bit groups
  /// from the highest, 0x80 set on all but the last. Returns the bytes
  /// written.
  static unsigned encodeEdge(uint64_t v, uint8_t *out);
  /// The number encodeEdge wrote that ends at data[pos - 1] (pos > 0),
  /// with every byte before it from encodeEdge too; `pos` moves to its
  /// first byte.
  static uint64_t decodeEdge(const uint8_t *data, size_t &pos);

private:
  /// A value's producer: instruction index and when the value is ready.
  struct Producer {
    int64_t index = -1; ///< -1: from before the first instruction
    uint64_t ready = 0;
    bool atStart = false; ///< the producer's register result at its start
  };
  uint64_t count = 0; ///< instructions added
  std::array<Producer, isa::kNumRegs> regs{};
  /// The last conditional branch (Cost::controls), at its start.
  Producer control;
  MemoryRangeMap<Producer> mem; ///< last writer per byte of each memory

  // Periods (AccessHistory.h). Per instruction of the last kWindow: its
  // finish and the distinct producers of the memory it read, when at most
  // kMaxMemProducers (`complete`): what its twin L later starts from.
  static constexpr unsigned kMaxMemProducers = 4;
  struct Recent {
    uint64_t finish = 0;
    struct {
      int64_t index;
      uint64_t ready;
    } mem[kMaxMemProducers];
    uint8_t numMem = 0;
    bool complete = false;
    /// Its recorded edges (see `edges`): where their bytes start, how many
    /// bytes, whether the last branch was among them, and the largest
    /// distance of a relative edge and smallest of an absolute one (what
    /// decides whether a twin's bytes serve: shareEdges).
    uint64_t edgesAt = 0;
    uint64_t maxRelBack = 0, minAbsBack = UINT64_MAX;
    uint32_t edgeBytes = 0;
    uint16_t numEdges = 0;
    bool usedControl = false;
    /// For a repeat run's template (set when the instruction joins a
    /// streak): its track, whether it is a branch, and its registers
    /// written.
    bool controls = false;
    uint8_t numRegWrites = 0;
    uint8_t regWrites[2] = {0, 0};
    int16_t track = -1;
    /// Its start minus its twin's, when it took the twin's edge bytes with
    /// the same simple cost (see `repeat`), else kNoShift.
    uint64_t shift = kNoShift;
  };
  static constexpr uint64_t kNoShift = UINT64_MAX;
  std::vector<Recent> recent; ///< ring of AccessHistory::kWindow
  const AccessHistory *history = nullptr;
  /// The instructions whose writes are not in `mem` yet.
  DeferredRun deferred;
  /// The instruction count at the last addExternalWrite (none: UINT64_MAX).
  uint64_t externalAt = UINT64_MAX;
  /// Whether instruction `index` may take its memory producers from its
  /// twin `period` back.
  bool canUseTwin(uint64_t index, unsigned period) const;
  /// Writes the deferred instructions' writes into `mem` (those that can
  /// still show: DeferredRun::drain).
  void catchUp();
  /// Calls use(producer) for each producer of the memory instruction
  /// `index` reads, and records them in `rec`: from its twin `period`
  /// back, or (period 0) from `mem`, after catchUp.
  template <typename Use>
  void useMemory(uint64_t index, unsigned period,
                 llvm::ArrayRef<sim::AddrRange> reads, Recent &rec, Use use);
  uint64_t critical = 0, lastFinish = 0;
  uint64_t slotCycles = 0; ///< lead + busy summed over slot holders

  // The graph for the backward pass. Instruction i has edgeCount[i] edges
  // to its producers, each written to `edges` as an unsigned number in
  // 7-bit groups: (x << 2 | absolute << 1 | at-start), where x is the
  // distance back (i - producer) or, with `absolute` (kAbsolute) set when
  // it is smaller (or when i has a period and the producer is more than a
  // period back: pushEdges), the producer's own index, and at-start is set when
  // the dependence is on a register result ready at the producer's start. Most
  // producers are a few instructions back, or among the first (the values
  // a loop reads in every iteration, made before it), so an edge takes one
  // byte, and at most three for a producer under 2^19 instructions away
  // (four bytes each before; issue 34). The numbers of instruction i follow
  // those of i - 1. Like LEB128, every byte of a number but its last has 0x80
  // set; unlike it, the groups go from the highest, so the backward pass
  // reads each number from its end in one pass (popEdge). Instructions past
  // kMaxIndex or edges past kMaxEdgesPerInst are left out: fewer edges only
  // shorten tails, so the bound stays valid.
  static constexpr uint32_t kAtStart = 1u << 31;
  static constexpr uint64_t kAbsolute = 2; ///< an edge's bit: x is an index
  static constexpr uint64_t kMaxIndex = kAtStart - 1;
  static constexpr size_t kMaxEdgesPerInst = UINT16_MAX;
  BulkVector<uint16_t> edgeCount;
  BulkVector<uint8_t> edges;
  /// Records instruction `index` for the backward pass: its edges to
  /// `preds` (producers with their kAtStart flags, in any order, repeats
  /// allowed; sorted here) and its duration `dur`; `period`: its period
  /// (pushEdges), or 0.
  void recordEdges(uint64_t index, llvm::SmallVectorImpl<uint32_t> &preds,
                   uint64_t dur, unsigned period, Recent &rec);
  /// Appends instruction `index`'s edges to `producers` (kAtStart flags
  /// included) to `edges`, and notes where in `rec`. With a `period`, a
  /// producer more than a period back is written as an index, so that the
  /// bytes serve the instruction's copy a period later (canShare).
  void pushEdges(uint64_t index, llvm::ArrayRef<uint32_t> producers,
                 unsigned period, Recent &rec);
  /// Records the instruction being added, of period `period` (its memory
  /// producers from its twin), with its twin's edge bytes. They encode its
  /// edges too when the twin's relative edges all reach at most `period`
  /// back, its absolute ones further, and the last branch binds for both
  /// or neither (canShare): its producers are then the
  /// twin's, each moved `period` later when it was at most `period` before
  /// the twin (AccessHistory.h; registers and the last branch follow the
  /// same rule, as the instructions between ran at the same PCs), in the
  /// same sorted order, and a moved edge keeps its bytes when relative, an
  /// unmoved one when absolute.
  void shareEdges(const Recent &twin, unsigned period, uint64_t dur,
                  Recent &rec);
  /// Whether the edge bytes of `twin`, `period` back, encode the edges of
  /// the instruction being added too (see shareEdges), whose last branch
  /// binds when `usedControl`.
  static bool canShare(const Recent &twin, unsigned period, bool usedControl) {
    return twin.maxRelBack <= period && twin.minAbsBack > period &&
           twin.usedControl == usedControl;
  }
  uint64_t numShared = 0;

  // Repeat runs (issue 34). Once each of the last L instructions had
  // period L, took its twin's edge bytes, cost only its unit's busy cycles
  // from its start (no DMA), started a fixed number of cycles (its shift,
  // which may differ between the instructions of a period: a loop
  // counter's chain does not wait for the units) after its twin, as its
  // twin did after its own, and was bound by an input that moves as far
  // while no input moves further (isRepeatable), the next instructions of
  // period L with the same costs are a repeat run: by induction each starts
  // its template's shift after its twin. add() then only appends an
  // instruction's start, duration, edge count and unit work; its edge bytes
  // are its template's (the instruction a whole number of periods before
  // the run, which the backward pass decodes in its place), and the state
  // the next instructions read (registers, the last branch, `recent`, the
  // deferred writes) is made from the template when the run ends
  // (endRepeat), before anything reads it. The graph and every bound are
  // the same as without.
  struct Run {
    uint64_t begin = 0, end = 0; ///< instructions [begin, end); end is
                                 ///< `count` while the run is active
    unsigned period = 0;
    /// Per phase p: where the edge bytes of instruction begin - period + p
    /// end (popEdge reads them backwards from there).
    std::vector<uint64_t> templateEnds;
  };
  std::vector<Run> runs;
  struct RepeatState {
    bool active = false;
    unsigned period = 0, phase = 0; ///< phase: of the next instruction
    uint64_t streak = 0; ///< instructions in a row that qualify (period)
  } repeat;
  /// The `recent` entries of the active run's template, by phase.
  std::vector<Recent> templates;
  bool repeatRuns = true;
  uint64_t numRepeated = 0;
  /// Whether the instruction being added (of period `period`, starting at
  /// `start`, `shift` cycles after its twin, whose memory producers are in
  /// `rec`) can be part of a repeat run's template: each of its inputs moves
  /// at most `shift` cycles a period (a producer within the last `period`
  /// instructions by its own shift, an older one by none), and one that
  /// moves `shift` binds (is `start`), so its copy a period later starts
  /// `shift` later again, and uses the last branch alike.
  bool isRepeatable(uint64_t index, unsigned period, uint64_t start,
                    uint64_t shift, llvm::ArrayRef<uint8_t> regReads,
                    const Recent &rec, bool usedControl) const;
  /// Counts the instruction just added (full path) toward a streak, and
  /// starts a repeat run when the streak covers its period.
  void noteStreak(bool qualifies, uint64_t index, unsigned period);
  /// add() for an instruction that continues the active repeat run: the
  /// same period and costs as its template, and a start that stays below
  /// 2^32 cycles. Returns false (adding nothing) for any other.
  bool addRepeat(const Cost &cost, unsigned period) {
    uint64_t index = count, twin = index - repeat.period;
    const Recent &t = templates[repeat.phase];
    uint64_t start = uint64_t(starts[twin]) + t.shift;
    if (period != repeat.period || index > kMaxIndex || cost.lead != 0 ||
        cost.regsAtStart || cost.holdsDmaSlot ||
        (cost.track2 >= 0 && cost.busy2 != 0) || cost.track != t.track ||
        cost.controls != t.controls || cost.busy != duration[twin] ||
        start >= UINT32_MAX)
      return false;
    count = index + 1;
    uint16_t numEdges = edgeCount[twin]; // not a reference: it may move
    starts.push_back(uint32_t(start));
    duration.push_back(uint32_t(cost.busy));
    edgeCount.push_back(numEdges);
    if (cost.track >= 0 && cost.busy > 0)
      work[size_t(cost.track)].atStart.push_back({uint32_t(index)});
    uint64_t finish = start + cost.busy;
    critical = std::max(critical, finish);
    lastFinish = finish;
    if (++repeat.phase == repeat.period)
      repeat.phase = 0;
    return true;
  }
  /// add() for any instruction (ends the active repeat run first).
  void addAny(llvm::ArrayRef<uint8_t> regReads,
              llvm::ArrayRef<uint8_t> regWrites,
              llvm::ArrayRef<sim::AddrRange> reads,
              llvm::ArrayRef<sim::AddrRange> writes, const Cost &cost,
              unsigned period);
  /// Ends the active repeat run, if any: makes the state its instructions
  /// leave (see above).
  void endRepeat();
  /// The end of run `r` (the active one ends at `count`).
  uint64_t runEnd(size_t r) const {
    return repeat.active && r + 1 == runs.size() ? count : runs[r].end;
  }
  /// Calls inst(i) for each recorded instruction from the last to the
  /// first, then edge(i, producer with kAtStart) for each of its edges.
  template <typename InstFn, typename EdgeFn>
  void forEachBackward(InstFn inst, EdgeFn edge) const;
  /// The edge that ends at `edges[pos - 1]`, for instruction `index`: its
  /// producer (with kAtStart); `pos` moves to the edge's first byte.
  uint32_t popEdge(uint64_t index, size_t &pos) const;
  /// Cycles from start to end (lead + busy), saturated at UINT32_MAX.
  BulkVector<uint32_t> duration;
  /// A piece of MXU, VPU or link work: its head, its instruction (for its
  /// tail; kNoInst past the recorded graph) and its busy cycles (saturated
  /// at UINT32_MAX, which only weakens the bound).
  struct Work {
    uint64_t head;
    uint32_t inst;
    uint32_t busy;
  };
  /// A piece that is all of its recorded instruction's duration, from its
  /// start (`starts`, exact below UINT32_MAX): MXU and VPU work. Its head
  /// and busy cycles are the instruction's: 4 bytes instead of 16 (issue
  /// 34).
  struct AtStart {
    uint32_t inst;
  };
  static constexpr uint32_t kNoInst = UINT32_MAX;
  /// Per track, its work in program order: the pieces that start with
  /// their instruction, and the others (a DMA's transfer, after its T_b;
  /// any piece past the recorded graph or without `starts`). The bound
  /// does not depend on the order of the pieces.
  struct TrackWork {
    BulkVector<AtStart> atStart;
    std::vector<Work> other;
    bool empty() const { return atStart.empty() && other.empty(); }
  };
  std::vector<TrackWork> work;
  /// trackBounds with path lengths held as `Length` (uint32_t when the
  /// critical path fits, else uint64_t).
  template <typename Length>
  std::vector<std::optional<TrackBound>> boundsWith() const;
  /// The backward pass of boundsWith: longest[i] (all zero on entry, n
  /// elements) becomes the longest path from instruction i's start to the
  /// end, clamped to what Length holds. A repeat run's periods are
  /// computed from the last down until two in a row take the same inputs,
  /// each the one before's plus one constant (and no duration bound a
  /// path); the periods below the last but one are then its values plus
  /// that constant per period, and the first period is computed again
  /// (see the definition for why that is exact). Returns the instructions
  /// whose values were so extrapolated.
  template <typename Length>
  uint64_t longestPaths(BulkVector<Length> &longest) const;
  /// Instructions the last trackBounds() extrapolated (longestPaths), for
  /// tests.
  mutable uint64_t numExtrapolated = 0;
  /// The latest head of any piece of work or issue (trackBounds' release
  /// dates).
  uint64_t getMaxHead() const;
  /// Adds a piece of `busy` cycles on `track` for instruction `index`
  /// starting at `start` (in the model), `lead` cycles later; `whole`: the
  /// piece is all of the instruction's duration (its primary track).
  void addWork(int track, uint64_t index, uint64_t start, uint64_t lead,
               uint64_t busy, bool recording, bool whole);
  /// The issue track and the cycles each issue takes on it (see the
  /// constructor); each recorded instruction's earliest start, saturated at
  /// UINT32_MAX (an earlier head only weakens the bound).
  int issueTrack = -1;
  uint64_t issueCycles = 0;
  BulkVector<uint32_t> starts;
};

} // namespace profile
} // namespace accel

#endif // ACCEL_PROFILE_DATAFLOWBOUND_H
