//===- LowerCollectives.cpp - Collectives to remote DMAs ------------------===//
//
// --accel-lower-collectives (Passes.td has the contract; docs/collectives.md
// the algorithms and the cost model). Each collective becomes straight-line
// code: the chip count is known when a program is lowered, the chip's own
// id (accel.chip_id) is a run-time value from which every peer and block
// offset is computed.
//
// This file holds the pass: the machine and groups from the options and
// attributes, the shapes' checks and the choice of algorithm. The cost
// model is in CollectivesCost.cpp, the code of each collective in
// CollectivesGather.cpp and CollectivesReduce.cpp (Collectives.h between
// them).
//
//===----------------------------------------------------------------------===//

#include "Collectives.h"
#include "accel/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include "llvm/ADT/SmallBitVector.h"
#include "llvm/ADT/StringExtras.h"

namespace accel {
#define GEN_PASS_DEF_ACCELLOWERCOLLECTIVES
#include "accel/Transforms/Passes.h.inc"
} // namespace accel

using namespace mlir;
using namespace accel;
using namespace accel::detail::collectives;

static StringRef kindName(Kind k) {
  switch (k) {
  case Kind::AllGather:
    return "all_gather";
  case Kind::ReduceScatter:
    return "reduce_scatter";
  case Kind::AllReduce:
    return "all_reduce";
  case Kind::AllToAll:
    return "all_to_all";
  }
  return "?";
}

//===----------------------------------------------------------------------===//
// The pass.
//===----------------------------------------------------------------------===//

namespace {
struct LowerCollectivesPass
    : public accel::impl::AccelLowerCollectivesBase<LowerCollectivesPass> {
  using AccelLowerCollectivesBase::AccelLowerCollectivesBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    SmallVector<Operation *> ops;
    func.walk([&](Operation *op) {
      if (isa<AllGatherOp, ReduceScatterOp, AllReduceOp, AllToAllOp, SendOp,
              RecvOp>(op))
        ops.push_back(op);
    });
    if (ops.empty())
      return;
    FailureOr<Machine> machine = getMachine(func);
    if (failed(machine))
      return signalPassFailure();
    // Semaphores the function names itself, and the free ones, 255 first.
    llvm::SmallBitVector used(256);
    func.walk([&](Operation *op) {
      if (auto w = dyn_cast<SemWaitOp>(op))
        used.set(unsigned(w.getSemaphore()));
      if (auto d = dyn_cast<DmaStartOp>(op); d && d.getSignal())
        used.set(unsigned(*d.getSignal()));
      if (auto s = dyn_cast<SendOp>(op))
        used.set(unsigned(s.getTag()));
      if (auto r = dyn_cast<RecvOp>(op))
        used.set(unsigned(r.getTag()));
    });
    SmallVector<int32_t> free;
    for (int32_t s = 0; s < 256; ++s)
      if (!used.test(unsigned(s)))
        free.push_back(s);
    for (Operation *op : ops)
      if (failed(lower(op, *machine, free)))
        return signalPassFailure();
  }

  FailureOr<Machine> getMachine(func::FuncOp func) {
    Machine m;
    m.chips = chips;
    if (!m.chips) {
      auto module = func->getParentOfType<ModuleOp>();
      auto attr = module ? module->getAttrOfType<IntegerAttr>("accel.chips")
                         : IntegerAttr();
      m.chips = attr ? unsigned(attr.getInt()) : 1;
    }
    auto kind = sim::parseTopologyKind(topology);
    if (!kind) {
      func.emitError() << "accel-lower-collectives: unknown topology '"
                       << topology << "'";
      return failure();
    }
    SmallVector<unsigned, 3> d(dims.begin(), dims.end());
    d.resize(3, d.empty() ? 0 : 1);
    auto t = sim::Topology::create(*kind, m.chips, d[0], d[1], d[2]);
    if (!t) {
      func.emitError() << "accel-lower-collectives: "
                       << llvm::toString(t.takeError());
      return failure();
    }
    m.topology = std::move(*t);
    m.hopLatency = hopLatency;
    m.baseLatency = baseLatency;
    m.bytesPerCycle = bytesPerCycle > 0 ? bytesPerCycle : 1;
    return m;
  }

  /// The group of `op` (its `groups` attribute) on `m`, or the whole
  /// system. Errors: groups that do not partition the system's chips into
  /// progressions of one size and stride (docs/collectives.md, "Groups").
  static FailureOr<Group> getGroup(Operation *op, const Machine &m) {
    Group g;
    g.size = m.chips;
    auto attr = op->getAttrOfType<DenseIntElementsAttr>("groups");
    if (!attr)
      return g;
    auto type = cast<ShapedType>(attr.getType());
    int64_t count = type.getDimSize(0), size = type.getDimSize(1);
    SmallVector<int64_t> ids;
    for (const APInt &v : attr.getValues<APInt>())
      ids.push_back(v.getSExtValue());
    auto bad = [&](const Twine &why) {
      return op->emitOpError()
             << "groups " << describeGroups(ids, size) << " on " << m.chips
             << " chips: " << why
             << "; the groups must partition the chips into progressions of "
                "one stride (contiguous, e.g. [[0, 1], [2, 3]], or strided, "
                "e.g. [[0, 2], [1, 3]])";
    };
    if (uint64_t(count) * uint64_t(size) != m.chips)
      return bad(Twine(count) + " groups of " + Twine(size) + " are " +
                 Twine(count * size) + " chips, not " + Twine(m.chips));
    int64_t stride = size > 1 ? ids[1] - ids[0] : 1;
    if (stride <= 0 || m.chips % (uint64_t(size) * uint64_t(stride)))
      return bad("the first group's stride " + Twine(stride) +
                 " does not tile the chips");
    // Every chip c is member (c / stride) mod size of the group starting at
    // c - that * stride: the group of each row's first chip must be the row.
    for (int64_t r = 0; r < count; ++r) {
      int64_t first = ids[r * size];
      if (first >= int64_t(m.chips) || (first / stride) % size != 0)
        return bad("group " + Twine(r) + " does not start a progression");
      for (int64_t k = 0; k < size; ++k)
        if (ids[r * size + k] != first + k * stride)
          return bad("group " + Twine(r) + " is not " + Twine(first) +
                     " + k x " + Twine(stride));
    }
    g.size = unsigned(size);
    g.stride = unsigned(stride);
    g.whole = size == int64_t(m.chips);
    return g;
  }

  /// "[[0, 1], [2, 3]]".
  static std::string describeGroups(ArrayRef<int64_t> ids, int64_t size) {
    std::string s = "[";
    for (size_t i = 0; i < ids.size(); ++i) {
      if (i % size == 0)
        s += i ? "], [" : "[";
      else
        s += ", ";
      s += std::to_string(ids[i]);
    }
    return s + "]]";
  }

  /// Lowers `op` (a collective, accel.send or accel.recv) on `m`, taking
  /// the semaphores it needs from `free`; erases it on success. Errors: its
  /// groups, its shapes, its algorithm attribute, or a lack of semaphores.
  LogicalResult lower(Operation *op, const Machine &m,
                      SmallVectorImpl<int32_t> &free) {
    FailureOr<Group> group = getGroup(op, m);
    if (failed(group))
      return failure();
    OpBuilder b(op);
    Emitter e(b, op->getLoc(), m, *group, free);
    if (isa<SendOp, RecvOp>(op))
      return lowerPointToPoint(e, op);
    Kind kind = isa<AllGatherOp>(op)       ? Kind::AllGather
                : isa<ReduceScatterOp>(op) ? Kind::ReduceScatter
                : isa<AllReduceOp>(op)     ? Kind::AllReduce
                                           : Kind::AllToAll;
    Value in = op->getOperand(0), out = op->getOperand(1);
    auto [inRows, cols] = shapeOf(in);
    unsigned n = group->size;
    FailureOr<int64_t> blockRows = getBlockRows(op, kind, n, in, out);
    if (failed(blockRows))
      return failure();
    uint64_t elemBytes =
        cast<MemRefType>(in.getType()).getElementTypeBitWidth() / 8;
    uint64_t blockBytes = uint64_t(*blockRows) * cols * elemBytes;
    uint64_t tileBytes = uint64_t(inRows) * cols * elemBytes;
    // One chip: a copy, whatever the algorithm.
    std::vector<Candidate> candidates =
        n == 1 ? std::vector<Candidate>{{"direct", 0}}
               : estimate(m, *group, kind,
                          kind == Kind::AllReduce ? inRows : *blockRows, cols,
                          blockBytes, tileBytes);
    StringRef chosen, why;
    if (failed(choose(op, kind, m, n, candidates, chosen, why)))
      return failure();
    if (emitRemarks && n > 1)
      remarkChoice(op, kind, m, *group, blockBytes, candidates, chosen, why);
    LogicalResult r = emit(e, op, kind, chosen, in, out);
    if (succeeded(r))
      op->erase();
    return r;
  }

  /// accel.send: a remote DMA signalling its tag, WAITed; accel.recv: a
  /// wait for one signal of its tag. Erases `op`.
  static LogicalResult lowerPointToPoint(Emitter &e, Operation *op) {
    if (auto s = dyn_cast<SendOp>(op)) {
      Value t = e.send(s.getSrc(), s.getDst(), s.getPeer(), s.getTag());
      DmaWaitOp::create(e.b, op->getLoc(), t);
      op->erase();
      return success();
    }
    auto r = cast<RecvOp>(op);
    e.waitSignals(r.getTag(), 1);
    op->erase();
    return success();
  }

  /// The rows of the blocks collective `op` of `kind` moves among `n`
  /// chips from `in` to `out` (an all-reduce's: its tile's when N does not
  /// divide it). Errors: shapes that do not match the chip count.
  static FailureOr<int64_t> getBlockRows(Operation *op, Kind kind, unsigned n,
                                         Value in, Value out) {
    auto [inRows, cols] = shapeOf(in);
    auto [outRows, outCols] = shapeOf(out);
    int64_t blockRows = inRows;
    if (kind == Kind::AllGather && outRows != inRows * n)
      return op->emitOpError()
             << "out has " << outRows << " rows, but " << n << " chips of "
             << inRows << " rows gather " << inRows * n;
    if ((kind == Kind::ReduceScatter && inRows != outRows * n) ||
        (kind == Kind::AllToAll && inRows % n))
      return op->emitOpError()
             << "in has " << inRows << " rows, not " << n << " blocks of "
             << (kind == Kind::AllToAll ? inRows / n : outRows);
    if (kind == Kind::ReduceScatter || kind == Kind::AllToAll)
      blockRows = kind == Kind::AllToAll ? inRows / n : outRows;
    if (kind == Kind::AllReduce)
      blockRows = inRows % n ? inRows : inRows / n;
    return blockRows;
  }

  /// The algorithm of `op` among `candidates` (`chosen`) and the reason
  /// (`why`): the op's attribute, else the pass's option where it applies,
  /// else the cheapest. Errors: an attribute that does not apply.
  LogicalResult choose(Operation *op, Kind kind, const Machine &m, unsigned n,
                       ArrayRef<Candidate> candidates, StringRef &chosen,
                       StringRef &why) {
    chosen = candidates.front().name;
    why = "the cheapest estimate";
    auto applies = [&](StringRef name) {
      return llvm::any_of(candidates,
                          [&](const Candidate &c) { return c.name == name; });
    };
    auto attr = op->getAttrOfType<StringAttr>("algorithm");
    if (attr) {
      if (n > 1 && !applies(attr.getValue()))
        return op->emitOpError()
               << "algorithm '" << attr.getValue() << "' does not apply to "
               << kindName(kind) << " on " << n << " chips ("
               << sim::topologyKindName(m.topology.getKind())
               << "): it applies to " << describe(candidates, false);
      chosen = attr.getValue();
      why = "the op's algorithm attribute";
    } else if (!algorithm.empty() && applies(algorithm)) {
      chosen = algorithm;
      why = "the pass's algorithm option";
    }
    return success();
  }

  /// The remark on `op` of the algorithm `chosen` and why, with every
  /// candidate's estimate.
  static void remarkChoice(Operation *op, Kind kind, const Machine &m,
                           const Group &group, uint64_t blockBytes,
                           ArrayRef<Candidate> candidates, StringRef chosen,
                           StringRef why) {
    unsigned n = group.size;
    uint64_t est = 0;
    for (const Candidate &c : candidates)
      if (c.name == chosen)
        est = c.cycles;
    std::string over = std::to_string(n) + " chips";
    if (!group.whole)
      over += " (groups of " + std::to_string(n) + ", stride " +
              std::to_string(group.stride) + ", of " + std::to_string(m.chips) +
              ")";
    op->emitRemark() << kindName(kind) << " of " << blockBytes
                     << "-byte blocks over " << over << " ("
                     << sim::topologyKindName(m.topology.getKind())
                     << "): " << chosen << ", " << est << " cycles estimated, "
                     << why << " (alpha-beta: " << describe(candidates, true)
                     << ")";
  }

  /// The code of collective `op` of `kind` with algorithm `algo`.
  static LogicalResult emit(Emitter &e, Operation *op, Kind kind,
                            StringRef algo, Value in, Value out) {
    switch (kind) {
    case Kind::AllGather:
      return emitAllGather(e, op, algo, in, out);
    case Kind::ReduceScatter:
      return emitReduceScatter(e, op, algo, in, out);
    case Kind::AllReduce:
      return emitAllReduce(e, op, algo, in, out);
    case Kind::AllToAll:
      return emitAllToAll(e, op, in, out);
    }
    return failure();
  }

  static std::string describe(llvm::ArrayRef<Candidate> candidates,
                              bool withCycles) {
    std::string s;
    for (const Candidate &c : candidates) {
      if (!s.empty())
        s += ", ";
      s += c.name.str();
      if (withCycles)
        s += " " + std::to_string(c.cycles);
    }
    return s;
  }
};
} // namespace
