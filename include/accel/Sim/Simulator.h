//===- Simulator.h - Functional and timed accel ISA simulator ---*- C++ -*-===//
//
// The GRM (golden reference model, docs/isa.md): it computes real f32 and bf16
// values and a cycle for every instruction. The scalar core issues in order;
// MXU, VPU and the DMA engine run concurrently with it; an instruction that
// needs a busy unit or unready data waits, and every waiting cycle is
// recorded with its cause. prepare() is the issue stage (operand checks,
// hazards, busy units, DMA slots, semaphores: when an instruction may
// start, and why it waited); commit() has the units of Units.h and the
// DmaEngine execute and time it; step() is both. A Simulator is one chip:
// alone, or one of the chips of a System (System.h), which commits the
// chips' instructions in cycle order.
// Observers (the performance tracker of SnR §4.2) are called back on
// events; no analysis lives in the loop.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_SIM_SIMULATOR_H
#define ACCEL_SIM_SIMULATOR_H

#include "accel/ISA/Isa.h"
#include "accel/Sim/Access.h"
#include "accel/Sim/ChipPeers.h"
#include "accel/Sim/DmaEngine.h"
#include "accel/Sim/MachineConfig.h"
#include "accel/Sim/Memory.h"
#include "accel/Sim/Units.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Compiler.h"
#include "llvm/Support/Error.h"

#include <array>
#include <cassert>
#include <cstdint>
#include <optional>
#include <vector>

namespace accel {
namespace sim {

/// Why an instruction could not issue in the cycle after its predecessor.
enum class StallCause : uint8_t {
  None,
  DmaWaitBase,     ///< WAIT before the DMA's base latency ended
  DmaWaitTransfer, ///< WAIT during the DMA's queueing / transfer
  DmaSlots,        ///< ISSUE with max_outstanding DMAs in flight
  MxuBusy,         ///< MXU still executing the previous matmul
  VpuBusy,         ///< VPU still executing the previous op
  DataHazard,      ///< operand VMEM range still being produced / consumed
  SemWait,         ///< sem.wait before enough DMAs signalled its semaphore
  NumCauses
};
llvm::StringRef stallCauseName(StallCause cause);

/// One retired instruction. Cycles are absolute.
struct RetireEvent {
  uint64_t index = 0; ///< dynamic instruction number (0-based)
  uint32_t pc = 0;
  const isa::Inst *inst = nullptr;
  uint64_t issueCycle = 0; ///< cycle the instruction issued
  uint64_t stallCycles = 0; ///< cycles waited before issuing
  StallCause cause = StallCause::None;
  /// Busy interval on its unit ([start, end)), for MXU/VPU/DMA/scalar.
  uint64_t unitStart = 0, unitEnd = 0;
  /// Memory tiles read and written (valid during the callback only). For a
  /// dma.issue they are its source and destination.
  llvm::ArrayRef<MemOperand> memReads, memWrites;
  /// Every retire at this PC has the same operands but for their bases
  /// (the simulator decoded them into templates over the address
  /// registers): the same bases mean the same tiles.
  bool fixedShapes = false;
};

/// A semaphore signal: the DMA `dmaId` of chip `chip` completed at `cycle`
/// (docs/isa.md, "Chips").
struct Signal {
  uint64_t cycle;
  uint32_t chip, dmaId;
};

/// A remote DMA of chip `chip` (its id `dmaId`, issued at `pc` there) that
/// reads (`writes` false) or writes `tile` of another chip's memory until
/// `complete`.
struct IncomingDma {
  TileRef tile;
  bool writes;
  uint64_t complete;
  uint32_t chip, dmaId, pc;
};

/// A sem.wait that went on: it consumed `consumed`, the first signals of
/// `semaphore` by cycle (valid during the callback only).
struct SemWaitEvent {
  uint32_t pc = 0;
  unsigned semaphore = 0;
  llvm::ArrayRef<Signal> consumed;
};

/// A WAIT that observed a DMA.
struct WaitEvent {
  uint32_t pc = 0;
  uint32_t dmaId = 0;
  uint64_t cycle = 0; ///< cycle the WAIT was reached (before stalling)
  WaitOutcome outcome;
};

/// The performance tracker's interface: callbacks registered on the modelled
/// components (SnR §4.2).
class Observer {
public:
  virtual ~Observer();
  virtual void onRetire(const RetireEvent &event) {}
  /// A DMA was issued by the instruction at `pc`.
  virtual void onDmaIssue(uint32_t pc, const DmaTiming &dma) {}
  /// Replay: a DMA issued (by the instruction at `pc`) before the window
  /// began and not yet WAITed, installed at the window's start. By default
  /// treated like an ISSUE.
  virtual void onDmaInFlight(uint32_t pc, const DmaTiming &dma) {
    onDmaIssue(pc, dma);
  }
  virtual void onDmaWait(const WaitEvent &event) {}
  /// Systems: a remote DMA another chip just issued will read or write
  /// this chip's memory (on the observers of the chip whose memory it is).
  virtual void onIncomingDma(const IncomingDma &dma) {}
  /// Systems: a sem.wait of this chip consumed its signals (before the
  /// sem.wait's onRetire).
  virtual void onSemWait(const SemWaitEvent &event) {}
  /// The program halted at `totalCycles` (all units and DMAs drained).
  virtual void onHalt(uint64_t totalCycles) {}
};

/// What a run did.
struct RunSummary {
  uint64_t instructions = 0;
  uint64_t totalCycles = 0;
  /// The run stopped at its instruction budget before HALT (run() with
  /// `stopAtBudget`): the numbers cover the instructions that ran.
  bool truncated = false;
  std::array<uint64_t, size_t(StallCause::NumCauses)> stallCycles{};
  std::array<uint64_t, 4> unitBusyCycles{}; ///< indexed by isa::Unit
};

/// Progress of a long run, for a tool's progress line: the instructions
/// executed so far and the cycle reached (the last instruction's issue).
using ProgressFn =
    llvm::function_ref<void(uint64_t instructions, uint64_t cycle)>;
/// Instructions between two calls of a ProgressFn.
constexpr uint64_t kProgressInterval = 1 << 16;

class Simulator {
public:
  /// `program` and `config` must outlive the simulator. `initHbm`: whether
  /// HBM starts with the buffer table's initial values (a full run) or as
  /// zeros (a replay, which installs the recorded state). `chip`: this
  /// chip's id in its system (0 for a chip alone). `peers`: the rest of the
  /// system, the only way this chip reaches other chips (a System, or a
  /// replay's LoggedPeers; ChipPeers.h), or nullptr for a chip alone.
  Simulator(const MachineConfig &config, const isa::Program &program,
            bool initHbm = true, unsigned chip = 0, ChipPeers *peers = nullptr);
  /// The simulator keeps references to its config and program: temporaries
  /// would dangle.
  Simulator(MachineConfig &&, const isa::Program &, bool = true, unsigned = 0,
            ChipPeers * = nullptr) = delete;
  Simulator(const MachineConfig &, isa::Program &&, bool = true, unsigned = 0,
            ChipPeers * = nullptr) = delete;

  void addObserver(Observer *observer) { observers.push_back(observer); }

  /// Runs from the entry until HALT. Errors (a fault of the simulated
  /// program) read "fault at pc N (INSTRUCTION), op ID 'NAME' at LOC: WHAT"
  /// and cover a buffer table that does not fit the config's VMEM or HBM
  /// (before the first instruction; isa::Program::checkBuffersFit's
  /// message), out-of-bounds or misaligned VMEM/HBM accesses, WAIT on a DMA
  /// never issued, a PC outside the code, a missing link, a data race (an
  /// access to memory that a DMA issued but not yet WAITed reads or
  /// writes), and exceeding `maxInstructions`.
  /// With `stopAtBudget`, reaching `maxInstructions` before HALT ends the
  /// run (summary.truncated) instead of being a fault. `progress`, if
  /// given, is called every kProgressInterval instructions.
  llvm::Expected<RunSummary> run(uint64_t maxInstructions = 1ull << 32,
                                 bool stopAtBudget = false,
                                 ProgressFn progress = nullptr);

  /// Executes one instruction (the faults of run(), and a sem.wait that no
  /// DMA can satisfy: a deadlock). At HALT the simulator stops with the PC
  /// on the halt. Equals prepare() then commit().
  llvm::Error step();
  /// The issue stage of the next instruction: its operand checks, hazards,
  /// busy units and DMA slots decide the cycle it issues at
  /// (getPreparedCycle()). Nothing changes until commit(). A sem.wait
  /// whose semaphore has not been signalled enough by the DMAs issued so
  /// far is blocked: its cycle is UINT64_MAX until a signal comes
  /// (System re-prepares a chip that a remote DMA signals or touches).
  /// Errors: the faults of run() that the issue stage finds.
  llvm::Error prepare();
  /// Checks, once, that this chip's simulated memories fit the memory
  /// available to the process (sim::checkMemoryFootprint of the program's
  /// buffers on one chip, plus `extras`: what the caller holds beside them,
  /// e.g. the analyses and copies of the results), then allocates VMEM.
  /// prepare() calls it without extras before the first instruction of a
  /// chip alone (a system checks all its chips at once:
  /// System::checkMemory); call it first to count more, or before
  /// installing large contents. Errors: checkMemoryFootprint's ("machine
  /// config: chips × vmem.bytes = ...") or Memory::allocateVmem's.
  llvm::Error checkMemory(const FootprintExtras &extras = {});
  bool isPrepared() const { return prep.valid; }
  /// The issue cycle of the prepared instruction; UINT64_MAX when blocked.
  uint64_t getPreparedCycle() const {
    return prep.blocked ? UINT64_MAX : prep.at.cycle;
  }
  /// Forgets the prepared instruction (another chip changed what it
  /// depends on).
  void invalidate() { prep.valid = false; }
  /// Executes the prepared instruction (prepare() must have succeeded and
  /// not be blocked). Errors: a remote DMA's races with the other chip.
  llvm::Error commit();
  /// What a blocked chip waits for: "chip C at pc N (INSTRUCTION), op ID
  /// 'NAME' at LOC: waits for K signals of semaphore S and has H".
  std::string describeBlocked() const;
  /// Ends the run: total cycles = the cycle by which the last instruction
  /// issued, every unit is free and every DMA has completed; observers get
  /// onHalt. Called by run(); call it after the last step() of a window.
  /// `endAtLeast`: a system's chips all end at the system's last cycle.
  RunSummary finish(uint64_t endAtLeast = 0);
  /// The cycle finish() would end at now: the last issue, every unit free,
  /// every DMA of this chip complete.
  uint64_t getEndCycle() const;
  bool isHalted() const { return halted; }
  uint32_t getPc() const { return pc; }
  uint64_t getInstructionCount() const { return instCount; }
  /// The issue cycle of the last instruction executed (0 before the first).
  uint64_t getLastIssueCycle() const { return lastIssue; }

  /// Replay: start at `pc` instead of 0.
  void setPc(uint32_t newPc) { pc = newPc; }
  /// Replay: set a register before the first step (r0 stays zero).
  void installRegister(unsigned r, uint64_t value);
  /// Replay: a DMA with id `id`, issued by the instruction at `issuePc`
  /// before the window began and not yet WAITed; it is treated as issued at
  /// cycle 0 of the window (its data is already in place: the functional
  /// model copies at ISSUE). Observers see its onDmaIssue, so add them first.
  void installPendingDma(uint32_t id, uint32_t issuePc, const TileRef &src,
                         const TileRef &dst);
  /// Replay: the next ISSUE gets DMA id `next`.
  void reserveDmaIds(uint32_t next) { dma.reserveIds(next); }
  /// Timing only: MXU and VPU instructions keep their timing, accesses and
  /// faults but skip their arithmetic (their outputs in VMEM are left as
  /// they were). Scalar instructions and DMAs still move data, so control
  /// that depends on computed values may go another way.
  void setTimingOnly(bool value) { timingOnly = value; }
  /// DMAs issued and not yet WAITed: id, issuing PC, source and destination.
  struct PendingDma {
    PendingDma(uint32_t id, uint32_t pc, const TileRef &src, const TileRef &dst)
        : id(id), pc(pc), src(src), dst(dst), srcSpan(src.span()),
          dstSpan(dst.span()) {}
    uint32_t id, pc;
    TileRef src, dst;
    /// src.span() and dst.span(), kept: every memory operand of every
    /// instruction is checked against them until the WAIT.
    AddrRange srcSpan, dstSpan;
  };
  const std::vector<PendingDma> &getPendingDmas() const { return pendingDmas; }

  /// The timing state of a chip between two instructions, beyond its
  /// registers and memory: when the last instruction issued, when each
  /// unit is free and which VMEM tiles its op in flight reads and writes,
  /// the DMA engine's state, the timing of every DMA issued and not yet
  /// WAITed, the semaphore signals not consumed yet, and the remote DMAs of
  /// other chips that may still touch this chip. A replay of one chip of a
  /// system installs it so that the window's cycles are the recorded
  /// run's.
  struct TimingState {
    uint64_t lastIssue = 0;
    bool first = true;
    std::array<uint64_t, 4> unitFree{};
    struct Op {
      uint64_t end = 0;
      std::vector<TileRef> reads, writes;
    };
    std::array<Op, 4> inFlight;
    DmaEngine::State engine;
    std::vector<DmaTiming> pendingTimings; ///< of getPendingDmas(), in order
    std::vector<std::pair<uint32_t, Signal>> signals; ///< semaphore, signal
    std::vector<IncomingDma> incoming;
  };
  TimingState getTimingState() const;
  /// Replay: installs `state` after installRegister and the memory, in
  /// place of installPendingDma: `pending` are the DMAs in flight, whose
  /// timings are state.pendingTimings (observers see their
  /// onDmaInFlight). Call reserveDmaIds first.
  void installTimingState(const TimingState &state,
                          llvm::ArrayRef<PendingDma> pending);
  /// Replay of one chip of a system: what another chip did to this one
  /// before its next instruction (ChipPeers.h). Errors: a MemWrite outside
  /// the memory (Memory::install's).
  llvm::Error applyExternal(const ExternalEvent &event);

  /// Semaphore `sem` of this chip receives a signal at `cycle` from the DMA
  /// `dmaId` of chip `fromChip` (at that DMA's completion).
  void signal(unsigned sem, uint64_t cycle, uint32_t fromChip, uint32_t dmaId);
  /// A remote DMA of another chip reads (`writes` false) or writes `tile`
  /// of this chip until `complete`: this chip's accesses to it before then
  /// are data races.
  void addIncoming(const TileRef &tile, bool writes, uint64_t complete,
                   uint32_t fromChip, uint32_t dmaId, uint32_t issuePc);
  /// Whether a remote DMA of chip `fromChip` may read (`writes` false) or
  /// write `tile` of this chip from `cycle` on: an error naming the DMA or
  /// the MXU/VPU op of this chip that writes it (or reads it, for a write)
  /// and is not done by then.
  llvm::Error checkRemoteAccess(const TileRef &tile, bool writes,
                                uint64_t cycle, uint32_t fromChip) const;
  unsigned getChip() const { return chip; }
  /// The number of chips of the system (1 for a chip alone).
  unsigned getNumChips() const;

  Memory &getMemory() { return memory; }
  const DmaEngine &getDmaEngine() const { return dma; }
  DmaEngine &getDmaEngine() { return dma; }
  uint64_t getRegister(unsigned r) const { return regs[r]; }

private:
  llvm::Error fault(uint32_t pc, const llvm::Twine &what) const;
  std::string describePc(uint32_t pc) const;

  const MachineConfig &config;
  const isa::Program &program;
  unsigned chip = 0;
  ChipPeers *peers = nullptr;
  Memory memory;
  DmaEngine dma;
  std::vector<Observer *> observers;
  std::array<uint64_t, isa::kNumRegs> regs{};
  uint32_t pc = 0;
  bool halted = false, finished = false;
  bool timingOnly = false;
  RunSummary summary;
  uint64_t instCount = 0;
  uint64_t lastIssue = 0; ///< issue cycle of the previous instruction
  bool first = true;
  std::array<uint64_t, 4> unitFree{};
  /// A VMEM tile an in-flight op reads or writes, with its span (the
  /// cheap first filter of the hazard check, computed once). Shapes are the
  /// ISA's 16-bit fields.
  struct HazardTile {
    AddrRange span;
    uint32_t rows, cols, rowStride;
    uint16_t elemBytes;
    /// Whether the tile covers its span whole (one row, or rows back to
    /// back): then its span is exactly its bytes.
    bool isDense;
    static HazardTile of(const TileRef &t, const AddrRange &span) {
      HazardTile h;
      h.span = span;
      h.setShape(t);
      return h;
    }
    /// Sets this to HazardTile::of(t, t.span()) field by field.
    void set(const TileRef &t) {
      span = t.span();
      setShape(t);
    }
    /// Sets this to the tile `shape` (HazardTile::of a tile at base 0)
    /// moved to byte address `base`: the span's length is kept, so an end
    /// past 2^64 wraps as TileRef::span()'s does.
    void setMoved(const HazardTile &shape, uint64_t base) {
      // The end from the shape, not read back from the copy just stored
      // (perf: a store-forwarding wait, a fifth of checkOperands).
      uint64_t end = shape.span.end + base;
      *this = shape;
      span.begin = base;
      span.end = end;
    }
    TileRef tile() const {
      return {span.space, span.begin, rows,     cols,
              rowStride,  span.chip,  elemBytes};
    }
    bool dense() const { return isDense; }
    /// TileRef::overlaps, with the spans known not to wrap (they passed
    /// the bounds check); two dense tiles overlap when their spans do.
    bool overlaps(const HazardTile &o) const {
      return span.overlaps(o.span) &&
             ((dense() && o.dense()) || tile().rowsOverlap(o.tile()));
    }
    /// The same against a DMA's tile `o`, whose span is `oSpan`.
    bool overlaps(const TileRef &o, const AddrRange &oSpan) const {
      return span.overlaps(oSpan) &&
             ((dense() && (o.rows <= 1 || o.rowStride == o.cols)) ||
              tile().rowsOverlap(o));
    }

  private:
    void setShape(const TileRef &t) {
      rows = uint32_t(t.rows);
      cols = uint32_t(t.cols);
      rowStride = uint32_t(t.rowStride);
      elemBytes = uint16_t(t.elemBytes);
      isDense = rows <= 1 || rowStride == cols;
    }
  };
  /// The few tiles one instruction reads or writes (at most 3 for any
  /// opcode), trivially copyable: in-flight ops are added and dropped every
  /// few instructions.
  struct TileList {
    static constexpr unsigned kMax = 4;
    TileList() {} // leaves the tiles uninitialized: set before they are read
    union {
      HazardTile tiles[kMax];
    };
    unsigned size = 0;
    void push_back(const HazardTile &t) {
      assert(size < kMax && "step() checks the operand count");
      tiles[size++] = t;
    }
    /// Appends the tile of `t` (HazardTile::set), returning it.
    HazardTile &emplaceOf(const TileRef &t) {
      assert(size < kMax && "step() checks the operand count");
      HazardTile &h = tiles[size++];
      h.set(t);
      return h;
    }
    /// Appends `shape` moved to `base` (HazardTile::setMoved), returning it.
    HazardTile &emplaceMoved(const HazardTile &shape, uint64_t base) {
      assert(size < kMax && "step() checks the operand count");
      HazardTile &h = tiles[size++];
      h.setMoved(shape, base);
      return h;
    }
    const HazardTile *begin() const { return tiles; }
    const HazardTile *end() const { return tiles + size; }
    operator llvm::ArrayRef<HazardTile>() const { return {begin(), end()}; }
  };
  /// The VMEM tiles one instruction reads and writes, in a slot of
  /// vmemTileSlots.
  struct VmemTiles {
    TileList reads, writes;
    /// Which filling of a slot these tiles are: each filling takes the
    /// next number (nextTilesVersion), so equal versions are equal tiles.
    /// 0: never filled.
    uint64_t version = 0;
    /// The hazard check's last result against the in-flight op of each
    /// unit: whether these tiles and that op's tiles (of version `other`)
    /// conflict. A hit answers without comparing tiles (a loop's
    /// instruction meets the same ops' tiles at every iteration).
    struct HazardMemo {
      uint64_t other = 0;
      bool hazard = false;
    };
    std::array<HazardMemo, 4> memo;
    /// Starts a new filling, version `v`: the lists and memos emptied.
    void refill(uint64_t v) {
      reads.size = writes.size = 0;
      version = v;
      memo = {};
    }
  };
  /// An MXU or VPU op that may still run: its end and the slot of
  /// vmemTileSlots that holds its tiles.
  struct InFlightOp {
    uint64_t end = 0; ///< 0: none
    uint8_t slot = 0;
  };
  /// The units (Units.h): their timing and their arithmetic.
  TimingModel timing;
  ScalarUnit scalarUnit;
  MatrixUnit mxu;
  VectorUnit vpu;
  /// Whether step() has checked the buffer table against the config, the
  /// footprint against the available memory (checkMemory), and allocated
  /// VMEM.
  bool buffersChecked = false;
  bool memoryChecked = false;
  bool vmemAllocated = false;
  /// The earliest cycle an instruction may issue, and the cause that set
  /// it (the issue stage's bookkeeping).
  struct IssueAt {
    uint64_t cycle;
    StallCause cause = StallCause::None;
    void atLeast(uint64_t c, StallCause why) {
      if (c > cycle) {
        cycle = c;
        cause = why;
      }
    }
  };
  /// The chip whose HBM `tile` is in, or none when it is not in HBM.
  static std::optional<uint32_t> getHbmChip(const TileRef &tile) {
    if (tile.space != isa::MemSpace::HBM)
      return std::nullopt;
    return tile.chip;
  }
  /// The issue stage's operand checks for the memory operands `reads` and
  /// `writes` of the instruction at `pc`: each must lie in a buffer (else
  /// an out-of-bounds fault) at a 4-byte-aligned address (else a misaligned
  /// fault) and touch nothing a DMA issued and not yet WAITed reads or writes
  /// (else a data race fault); the VMEM tiles go to `vmem` (a slot just
  /// taken), and an in-flight MXU or VPU op that writes what it reads or
  /// accesses what it writes delays `at` to its end (checkHazards). `shapes`:
  /// when the operands come from decoded templates, their tiles' HazardTile at
  /// base 0 (operandShapes), in operand order, so that only the base is set per
  /// issue; nullptr computes them. `checked`: the operands are the tiles of the
  /// last issue at this PC, which passed the bounds and alignment checks (the
  /// same tiles pass again: the buffer table does not change), so only the
  /// races and hazards are checked.
  llvm::Error checkOperands(llvm::ArrayRef<MemOperand> reads,
                            llvm::ArrayRef<MemOperand> writes,
                            const HazardTile *shapes, bool checked,
                            uint64_t ready, VmemTiles &vmem, IssueAt &at);
  /// checkOperands' race check: `operands` (the first `numReads` read,
  /// the rest written) against the DMAs issued and not yet WAITed; a data
  /// race fault names the first it finds.
  llvm::Error checkRaces(llvm::ArrayRef<const HazardTile *> operands,
                         unsigned numReads);

  /// The last MXU and VPU op, by unit: the ones that can still be in
  /// flight. A unit starts an op only when its previous one has ended, and
  /// in-order issue puts every later instruction after that start, so an
  /// older op of the same unit has always ended.
  std::array<InFlightOp, 4> inFlight{{{0, 0}, {0, 1}, {0, 2}, {0, 3}}};
  /// The VMEM tiles of the in-flight ops (InFlightOp::slot) and of the
  /// prepared instruction (Prepared::slot): a commit hands the prepared
  /// instruction's slot to its unit's op instead of copying the tiles. A
  /// slot no in-flight op holds is free, and new tiles go only into a free
  /// one (takeFreeSlot); a slot keeps its tiles until then, so the next
  /// issue of the same PC with the same bases uses them again
  /// (DecodedInst::tilesSlot), even when its previous issue is in flight.
  /// At most four in-flight ops hold a slot, so one is always free; the
  /// rest keep the tiles of up to 60 PCs (a loop body's memory
  /// instructions) for their next issue.
  std::array<VmemTiles, 64> vmemTileSlots;
  /// The version the next filling of a slot takes (VmemTiles::version).
  uint64_t nextTilesVersion = 1;
  /// The slot takeFreeSlot tries first.
  uint8_t nextFreeSlot = 4;
  /// A slot no in-flight op holds, emptied for new tiles (a new version).
  VmemTiles &takeFreeSlot();
  /// The data hazards of an instruction whose VMEM tiles are `mine`: an
  /// in-flight MXU or VPU op (ending after `ready`) that writes what it
  /// reads or accesses what it writes delays `at` to its end
  /// (StallCause::DataHazard); results are memoized in `mine`.
  void checkHazards(VmemTiles &mine, uint64_t ready, IssueAt &at);
  VmemTiles &tilesOf(const InFlightOp &op) { return vmemTileSlots[op.slot]; }
  const VmemTiles &tilesOf(const InFlightOp &op) const {
    return vmemTileSlots[op.slot];
  }
  /// The bytes [lo, hi) of memory `space` a buffer holds (empty: lo > hi).
  struct BufferBounds {
    uint64_t lo = 1, hi = 0;
    isa::MemSpace space = isa::MemSpace::VMEM;
    /// Whether `r` lies inside (Memory::findBuffer would find this buffer).
    bool holds(const AddrRange &r) const {
      return r.space == space && r.begin >= lo && r.begin <= r.end &&
             r.end <= hi;
    }
    /// Becomes the bounds of the buffer of `memory` that holds `r`; false
    /// (and unchanged) when no buffer holds it.
    bool find(const Memory &memory, const AddrRange &r) {
      const isa::Buffer *b = memory.findBuffer(r);
      if (!b)
        return false;
      *this = {b->base, llvm::SaturatingAdd(b->base, b->bytes), b->space};
      return true;
    }
  };
  /// Per instruction and memory operand (reads, then writes): the bounds
  /// of the buffer the bounds check found last time, tried first next time
  /// (two compares, no lookup in the buffer table).
  std::vector<std::array<BufferBounds, TileList::kMax>> operandBounds;
  /// Per PC, what decoding an instruction gives without register values
  /// (issue 34, item 4: decoded once, the first time the PC issues): its
  /// unit, its MXU or VPU latency (TimingModel::getLatency, which reads
  /// only the instruction's fields and the config), and its memory
  /// operands as templates over the registers (getAccessTemplates), or
  /// getAccesses at each issue when it has none (a remote DMA).
  struct DecodedInst {
    bool decoded = false;
    bool hasTemplates = false;
    /// Its operands in `filledOperands` passed checkOperands' bounds and
    /// alignment checks (reset before they change).
    bool operandsChecked = false;
    isa::Unit unit = isa::Unit::Scalar;
    uint8_t numReads = 0, numWrites = 0;
    /// Every operand in VMEM (the tiles in its slot are all of them).
    bool allVmem = false;
    /// The slot its last checked issue filled, and that filling's version:
    /// while the slot still holds it, an issue with the same bases uses
    /// those tiles instead of making them again.
    uint8_t tilesSlot = 0;
    uint32_t firstTemplate = 0; ///< index into operandTemplates
    uint64_t tilesVersion = 0;
    uint64_t latency = 0; ///< cycles, MXU and VPU ops
  };
  std::vector<DecodedInst> decodedInsts;
  llvm::SmallVector<OperandTemplate, 0> operandTemplates;
  /// Per template, its tile's HazardTile at base 0 (its span [0, bytes)):
  /// the shape and span length checkOperands would otherwise compute from
  /// the tile at every issue.
  llvm::SmallVector<HazardTile, 0> operandShapes;
  /// Per template, its operand as the last issue at its PC filled it in
  /// (the base register's value added): prep.reads and prep.writes view
  /// them, and an issue whose bases are all the same changes nothing and
  /// skips the bounds and alignment checks (DecodedInst::operandsChecked).
  llvm::SmallVector<MemOperand, 0> filledOperands;
  /// The decoding of the instruction at `atPc` (< code size).
  inline DecodedInst &decode(uint32_t atPc);

  /// The issue stage's result for the next instruction (prepare()).
  struct Prepared {
    bool valid = false;
    /// A sem.wait with too few signals so far.
    bool blocked = false;
    uint64_t ready = 0; ///< the earliest cycle in-order issue allows
    IssueAt at{0};
    /// Its memory operands (valid until the next prepare): views of
    /// `filledOperands`, or of `acc` for an instruction without templates.
    llvm::ArrayRef<MemOperand> reads, writes;
    InstAccess acc;
    /// Its VMEM tiles: vmemTileSlots[slot], a slot takeFreeSlot gave it
    /// or the one its PC's last issue filled (DecodedInst::tilesSlot).
    uint8_t slot = 4;
    /// dma.issue: source, destination, link of their spaces, ICI route.
    TileRef src, dst;
    int link = -1;
    llvm::SmallVector<unsigned, 8> route;
    /// dma.wait: the outcome; sem.wait: the semaphore and the signals it
    /// consumes.
    WaitOutcome outcome;
    unsigned semaphore = 0;
    uint64_t count = 0;
  } prep;
  /// The retire event of the instruction being committed, every field set
  /// by commitInline: a member, where a local was zero-filled per step
  /// (`rep stos`, a third of step()'s time in perf on an AMD EPYC).
  RetireEvent retiring;

  /// prepare()'s phases, in order (Simulator.cpp). Each fills `prep` and
  /// returns the fault it finds, if any. The ones every instruction runs
  /// are `inline`: defined in Simulator.cpp only, and inlined into
  /// prepare() and commit() there (the simulator's hot path).
  /// Once per run: the buffer table against the config, the memory
  /// footprint (a chip alone), then VMEM allocated.
  inline llvm::Error prepareMemories();
  /// The register and field values `in` may not have: a remote DMA to a
  /// chip the system lacks, a division by zero, a bad vpu.cmp predicate.
  inline llvm::Error checkFields(const isa::Inst &in);
  /// The memory operands of `in` (prep.reads, prep.writes) and their checks
  /// (checkOperands), or none for an instruction that touches no memory.
  inline llvm::Error prepareAccesses(const isa::Inst &in, DecodedInst &d,
                                     uint64_t ready);
  /// dma.issue: its tiles, link, semaphore and route; a free DMA slot.
  llvm::Error prepareDmaIssue(const isa::Inst &in);
  /// dma.wait: the DMA's outcome and the cycle the WAIT resumes at.
  llvm::Error prepareDmaWait(const isa::Inst &in, uint64_t ready);
  /// sem.wait: the signals it needs, blocked when too few came so far.
  llvm::Error prepareSemWait(const isa::Inst &in);
  /// Races with the remote DMAs of other chips still touching this chip's
  /// memory (the completed ones, by `ready`, are dropped).
  llvm::Error checkIncoming(uint64_t ready);

  /// commit(), inlined into step() too (Simulator.cpp): a chip alone
  /// steps through it once per instruction. (prepare() stays a call:
  /// inlined as well, it pushed its own callees out of line and cost more.)
  LLVM_ATTRIBUTE_ALWAYS_INLINE llvm::Error commitInline();
  /// commit()'s pieces (Simulator.cpp).
  /// dma.issue: its remote races, timing, data movement, signal and
  /// events; its busy interval goes to `ev`.
  llvm::Error commitDmaIssue(const isa::Inst &in, RetireEvent &ev);
  /// dma.wait: the DMA is no longer pending; its stalls are counted.
  void commitDmaWait(const isa::Inst &in);
  /// sem.wait: consumes its signals (and the pending DMAs they complete).
  void commitSemWait();
  /// The end of every commit: halt, the stall and busy accounting of `ev`
  /// (`unitLatency` cycles on `unit`), the issue cycle, onRetire, the next
  /// PC from `state`.
  inline void retire(const isa::Inst &in, isa::Unit unit, uint64_t unitLatency,
                     RetireEvent &ev, const CoreState &state);
  /// A signal a semaphore received: when, and from which DMA.
  /// Per semaphore, the signals not consumed yet, by cycle.
  std::vector<std::vector<Signal>> semaphores;
  /// Remote DMAs of other chips that read or write this chip's memory and
  /// may not have completed.
  std::vector<IncomingDma> incoming;
  /// DMAs issued and not yet WAITed. Any other access to the memory they
  /// read or write is a data race (a fault), so a transform that breaks
  /// synchronization cannot pass as "results identical".
  std::vector<PendingDma> pendingDmas;
};

} // namespace sim
} // namespace accel

#endif // ACCEL_SIM_SIMULATOR_H
