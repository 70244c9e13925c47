//===- LowerCollectives.cpp - Collectives to remote DMAs ------------------===//
//
// --accel-lower-collectives (Passes.td has the contract; docs/collectives.md
// the algorithms and the cost model). Each collective becomes straight-line
// code: the chip count is known when a program is lowered, the chip's own
// id (accel.chip_id) is a run-time value from which every peer and block
// offset is computed.
//
//===----------------------------------------------------------------------===//

#include "accel/Dialect/Accel/AccelDialect.h"
#include "accel/Dialect/Accel/AccelOps.h"
#include "accel/Sim/Topology.h"
#include "accel/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"

#include "llvm/ADT/SmallBitVector.h"
#include "llvm/ADT/StringExtras.h"

#include <deque>
#include <map>

namespace accel {
#define GEN_PASS_DEF_ACCELLOWERCOLLECTIVES
#include "accel/Transforms/Passes.h.inc"
} // namespace accel

using namespace mlir;
using namespace accel;

namespace {

/// What the cost model knows of the machine (docs/collectives.md).
struct Machine {
  unsigned chips = 1;
  sim::Topology topology;
  uint64_t hopLatency = 0, baseLatency = 0;
  double bytesPerCycle = 1;
};

/// The chips a collective runs among (docs/collectives.md, "Groups"): the
/// system's chips are partitioned into groups of `size` chips, each
/// `stride` apart; chip c is member (c / stride) mod size of the group
/// whose first member is c - that * stride. The whole system is one group
/// of `chips` with stride 1.
struct Group {
  unsigned size = 1, stride = 1;
  bool whole = true;
  /// The chip distance between members r and r + k (mod the system).
  unsigned offset(const Machine &m, unsigned k) const {
    return unsigned((uint64_t(k) * stride) % m.chips);
  }
};

/// One message pattern of a step: every chip sends `bytes` to its peer at
/// `offset` (chip 0's peer; the pattern is the same from every chip).
struct Flow {
  unsigned peerOfZero;
  uint64_t bytes;
};

/// The alpha-beta estimate of one step in which every chip sends `flows`:
/// base latency + the longest route's hops x hop latency + the bytes of the
/// most loaded link / bandwidth. Rings and tori look the same from every
/// chip (dimension-order routes are translations of chip 0's), so a link's
/// load is what chip 0's routes put on the links of its direction.
uint64_t estimateStep(const Machine &m, llvm::ArrayRef<Flow> flows) {
  const sim::Topology &t = m.topology;
  llvm::SmallVector<unsigned, 3> dims = t.getDims();
  if (dims.empty())
    dims = {m.chips};
  auto direction = [&](unsigned link) {
    auto [a, b] = t.getLinkEnds(link);
    if (t.getKind() == sim::TopologyKind::FullyConnected)
      return uint64_t(b + m.chips - a) % m.chips;
    uint64_t key = 0;
    for (unsigned d : dims) {
      key = key * 4096 + (b % d + d - a % d) % d;
      a /= d;
      b /= d;
    }
    return key;
  };
  std::map<uint64_t, uint64_t> load;
  uint64_t hops = 0;
  for (const Flow &f : flows) {
    auto route = t.route(0, f.peerOfZero);
    hops = std::max<uint64_t>(hops, route.size());
    for (unsigned l : route)
      load[direction(l)] += f.bytes;
  }
  uint64_t most = 0;
  for (auto &[dir, bytes] : load)
    most = std::max(most, bytes);
  return m.baseLatency + hops * m.hopLatency +
         uint64_t(std::ceil(double(most) / m.bytesPerCycle));
}

/// The VPU cycles of one add of an R x C tile (8 x 128 per pass).
uint64_t addCycles(int64_t rows, int64_t cols) {
  return uint64_t((rows + 7) / 8) * uint64_t((cols + 127) / 128);
}

enum class Kind { AllGather, ReduceScatter, AllReduce, AllToAll };

StringRef kindName(Kind k) {
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

bool isPowerOfTwo(unsigned n) { return n && !(n & (n - 1)); }

/// Emits one collective (see the file comment), at the builder's point.
class Emitter {
public:
  Emitter(OpBuilder &b, Location loc, const Machine &m, const Group &g,
          llvm::SmallVectorImpl<int32_t> &freeSemaphores)
      : b(b), loc(loc), m(m), g(g), n(g.size), freeSemaphores(freeSemaphores) {}

  /// A semaphore nothing else uses, or failure.
  FailureOr<int32_t> takeSemaphore(Operation *op) {
    if (freeSemaphores.empty())
      return op->emitOpError("needs a semaphore, but all 256 are in use");
    int32_t s = freeSemaphores.back();
    freeSemaphores.pop_back();
    return s;
  }

  /// An index constant, one per value (the code is straight-line, so the
  /// first dominates every later use).
  Value cst(int64_t v) {
    Value &c = constants[v];
    if (!c)
      c = arith::ConstantIndexOp::create(b, loc, v).getResult();
    return c;
  }
  /// This chip's rank in its group (its chip id when the group is the
  /// whole system).
  Value me() {
    if (!chipId)
      chipId = ChipIdOp::create(b, loc, b.getIndexType()).getResult();
    if (g.whole)
      return chipId;
    if (!rank) {
      // rank = (c / stride) mod size; the group's first chip = c - rank *
      // stride.
      Value q = g.stride == 1 ? chipId : divc(chipId, g.stride);
      rank = remc(q, g.size);
      Value back = g.stride == 1 ? rank : mulc(rank, g.stride);
      groupBase = sub(chipId, back);
    }
    return rank;
  }
  /// The chip id of the member of rank `index` of this chip's group.
  Value chipOf(Value index) {
    if (g.whole)
      return index;
    me();
    Value offset = g.stride == 1 ? index : mulc(index, g.stride);
    return add(groupBase, offset);
  }
  // Index arithmetic, each op built after its operands (C++ leaves the
  // order of a call's arguments unspecified, and the IR must not depend on
  // the compiler: utils/check-eval-order.py). Callers pass at most one
  // argument that builds IR.
  Value addc(Value a, int64_t k) {
    Value c = cst(k);
    return arith::AddIOp::create(b, loc, a, c);
  }
  Value mulc(Value a, int64_t k) {
    Value c = cst(k);
    return arith::MulIOp::create(b, loc, a, c);
  }
  Value remc(Value a, int64_t k) {
    Value c = cst(k);
    return arith::RemUIOp::create(b, loc, a, c);
  }
  Value divc(Value a, int64_t k) {
    Value c = cst(k);
    return arith::DivUIOp::create(b, loc, a, c);
  }
  Value sub(Value a, Value c) { return arith::SubIOp::create(b, loc, a, c); }
  Value add(Value a, Value c) { return arith::AddIOp::create(b, loc, a, c); }
  /// The rank (me + k) mod N, for 0 <= k < 2N.
  Value peer(int64_t k) { return step(me(), k, n); }
  /// (v + k) mod `size`: the next index round a ring. Steps of a collective
  /// derive each index from the previous one (a few constants live across
  /// the collective, not one per step: the lowering has 255 registers).
  Value step(Value v, int64_t k, int64_t size) {
    Value sum = addc(v, k);
    return remc(sum, size);
  }
  /// Sends to the N - 1 other members in the shift order (me + 1, me + 2,
  /// ...): `sendTo(rank, chip)` issues one and returns its token. At most
  /// kWindow are left unWAITed at a time (the oldest is WAITed before the
  /// next is issued past it), then `semaphore` waits for `signals`, and the
  /// rest are WAITed.
  void sendToAll(llvm::function_ref<Value(Value, Value)> sendTo,
                 int32_t semaphore, int64_t signals) {
    constexpr size_t kWindow = 32;
    std::deque<Value> tokens;
    Value p = me();
    for (unsigned k = 1; k < n; ++k) {
      p = step(p, 1, n);
      Value chip = chipOf(p);
      tokens.push_back(sendTo(p, chip));
      if (tokens.size() > kWindow) {
        DmaWaitOp::create(b, loc, tokens.front());
        tokens.pop_front();
      }
    }
    waitSignals(semaphore, signals);
    for (Value t : tokens)
      DmaWaitOp::create(b, loc, t);
  }
  /// `rows` rows of `buf` from row `first`.
  Value rowsOf(Value buf, OpFoldResult first, int64_t rows) {
    auto type = cast<MemRefType>(buf.getType());
    SmallVector<OpFoldResult> offsets = {first, b.getIndexAttr(0)};
    SmallVector<OpFoldResult> sizes = {b.getIndexAttr(rows),
                                       b.getIndexAttr(type.getDimSize(1))};
    SmallVector<OpFoldResult> strides = {b.getIndexAttr(1), b.getIndexAttr(1)};
    return memref::SubViewOp::create(b, loc, buf, offsets, sizes, strides);
  }
  Value block(Value buf, Value index, int64_t rows) {
    Value first = mulc(index, rows);
    return rowsOf(buf, first, rows);
  }
  /// Block `index` (a constant) of `rows` rows.
  Value block(Value buf, int64_t index, int64_t rows) {
    return rowsOf(buf, b.getIndexAttr(index * rows), rows);
  }
  Value send(Value src, Value dst, Value chip, int32_t semaphore) {
    return DmaStartOp::create(b, loc, TokenType::get(b.getContext()), src, dst,
                              Value(), chip, b.getI32IntegerAttr(semaphore))
        .getResult();
  }
  void copy(Value src, Value dst) {
    Value t = DmaStartOp::create(b, loc, src, dst).getResult();
    DmaWaitOp::create(b, loc, t);
  }
  void waitSignals(int32_t semaphore, int64_t count) {
    Value c = cst(count);
    SemWaitOp::create(b, loc, semaphore, c);
  }
  Value alloc(int64_t rows, int64_t cols, Type elem) {
    auto vmem = MemorySpaceAttr::get(b.getContext(), MemorySpace::VMEM);
    return AllocOp::create(
        b, loc,
        MemRefType::get({rows, cols}, elem, MemRefLayoutAttrInterface(), vmem));
  }

  OpBuilder &b;
  Location loc;
  const Machine &m;
  const Group &g;
  /// The group's size: the N of every algorithm.
  unsigned n;
  llvm::SmallVectorImpl<int32_t> &freeSemaphores;
  Value chipId, rank, groupBase;
  llvm::DenseMap<int64_t, Value> constants;
};

/// Rows and columns of a 2-D VMEM tile.
std::pair<int64_t, int64_t> shapeOf(Value v) {
  auto t = cast<MemRefType>(v.getType());
  return {t.getDimSize(0), t.getDimSize(1)};
}

} // namespace

//===----------------------------------------------------------------------===//
// The algorithms: their estimates and their code.
//===----------------------------------------------------------------------===//

namespace {

struct Candidate {
  StringRef name;
  uint64_t cycles;
};

/// The chips' offsets along torus dimension `d` (+1 and -1), as chip 0's
/// peers.
unsigned torusPeer(const Machine &m, unsigned dim, bool up) {
  auto dims = m.topology.getDims();
  unsigned stride = 1;
  for (unsigned i = 0; i < dim; ++i)
    stride *= dims[i];
  return (up ? 1 : dims[dim] - 1) * stride;
}

/// The algorithms that apply to a collective of `kind` moving blocks of
/// `blockBytes` (an all-reduce: `tileBytes`, its whole tile, of `rows`
/// rows, and blocks of a reduce-scatter's), with their estimates, cheapest
/// first.
std::vector<Candidate> estimate(const Machine &m, const Group &g, Kind kind,
                                int64_t rows, int64_t cols, uint64_t blockBytes,
                                uint64_t tileBytes) {
  unsigned n = g.size;
  std::vector<Candidate> out;
  // The torus's dimensions are the whole system's.
  bool torus = m.topology.getKind() == sim::TopologyKind::Torus2D && g.whole;
  // Member r's peer at rank r + k, as chip 0's peer.
  auto at = [&](unsigned k) { return g.offset(m, k); };
  // The gather family's communication for blocks of `bytes`; a
  // reduce-scatter moves the same (mirrored), plus its adds.
  auto gather = [&](StringRef algo, uint64_t bytes) -> uint64_t {
    if (algo == "ring")
      return (n - 1) * estimateStep(m, {{at(1), bytes}});
    if (algo == "bidirectional_ring")
      return (n - 1) * estimateStep(m, {{at(1), bytes / 2},
                                        {at(n - 1), bytes - bytes / 2}});
    if (algo == "torus2d") {
      auto dims = m.topology.getDims();
      return (dims[0] - 1) * estimateStep(m, {{torusPeer(m, 0, true), bytes}}) +
             (dims[1] - 1) *
                 estimateStep(m, {{torusPeer(m, 1, true), bytes * dims[0]}});
    }
    uint64_t c = 0; // recursive doubling / halving
    for (unsigned k = 1; k < n; k *= 2)
      c += estimateStep(m, {{at(k), bytes * k}});
    return c;
  };
  // Which of the gather family apply to blocks of `blockRows` rows.
  auto family = [&](int64_t blockRows) {
    SmallVector<StringRef> names = {"ring"};
    if (blockRows % 2 == 0)
      names.push_back("bidirectional_ring");
    if (torus)
      names.push_back("torus2d");
    if (isPowerOfTwo(n))
      names.push_back("recursive_doubling");
    return names;
  };
  switch (kind) {
  case Kind::AllToAll:
  case Kind::AllGather: {
    SmallVector<Flow> flows;
    for (unsigned k = 1; k < n; ++k)
      flows.push_back({at(k), blockBytes});
    out.push_back({"direct", estimateStep(m, flows)});
    if (kind == Kind::AllGather)
      for (StringRef a : family(rows))
        out.push_back({a, gather(a, blockBytes)});
    break;
  }
  case Kind::ReduceScatter: {
    uint64_t add = addCycles(rows, cols);
    SmallVector<Flow> flows;
    for (unsigned k = 1; k < n; ++k)
      flows.push_back({at(k), blockBytes});
    out.push_back({"direct", estimateStep(m, flows) + (n - 1) * add});
    for (StringRef a : family(rows))
      out.push_back({a, gather(a, blockBytes) + (n - 1) * add});
    break;
  }
  case Kind::AllReduce: {
    // Direct: every chip's whole tile to every chip, N - 1 adds of it.
    SmallVector<Flow> flows;
    for (unsigned k = 1; k < n; ++k)
      flows.push_back({at(k), tileBytes});
    out.push_back(
        {"direct", estimateStep(m, flows) + (n - 1) * addCycles(rows, cols)});
    // A reduce-scatter then an all-gather of N blocks of the tile.
    if (rows % n == 0)
      for (StringRef a : family(rows / n))
        out.push_back({a, 2 * gather(a, blockBytes) +
                              (n - 1) * addCycles(rows / n, cols)});
    break;
  }
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const Candidate &a, const Candidate &b) {
                     return a.cycles < b.cycles;
                   });
  return out;
}

/// all_gather: `in` R x C, `out` (N R) x C.
LogicalResult emitAllGather(Emitter &e, Operation *op, StringRef algo, Value in,
                            Value out) {
  const Machine &m = e.m;
  unsigned n = e.n;
  auto [rows, cols] = shapeOf(in);
  Value me = e.me();
  Value mine = e.block(out, me, rows);
  e.copy(in, mine);
  if (n == 1)
    return success();
  if (algo == "direct") {
    FailureOr<int32_t> s = e.takeSemaphore(op);
    if (failed(s))
      return failure();
    e.sendToAll([&](Value, Value chip) { return e.send(in, mine, chip, *s); },
                *s, n - 1);
    return success();
  }
  if (algo == "ring" || algo == "bidirectional_ring") {
    bool both = algo == "bidirectional_ring";
    int64_t half = both ? rows / 2 : rows;
    FailureOr<int32_t> up = e.takeSemaphore(op);
    if (failed(up))
      return failure();
    FailureOr<int32_t> down =
        both ? e.takeSemaphore(op) : FailureOr<int32_t>(0);
    if (failed(down))
      return failure();
    Value next = e.chipOf(e.peer(1));
    Value prev = e.chipOf(e.peer(n - 1));
    Value index = me, otherIndex = me;
    for (unsigned s = 0; s + 1 < n; ++s) {
      // Up: the block of chip (me - s), its first half when both ways.
      if (s > 0)
        index = e.step(index, n - 1, n);
      Value blk = e.block(out, index, rows);
      Value part = e.rowsOf(blk, e.b.getIndexAttr(0), half);
      Value t1 = e.send(part, part, next, *up);
      Value t2;
      if (both) {
        if (s > 0)
          otherIndex = e.step(otherIndex, 1, n);
        Value other = e.block(out, otherIndex, rows);
        Value second = e.rowsOf(other, e.b.getIndexAttr(half), rows - half);
        t2 = e.send(second, second, prev, *down);
      }
      e.waitSignals(*up, 1);
      if (both)
        e.waitSignals(*down, 1);
      DmaWaitOp::create(e.b, e.loc, t1);
      if (both)
        DmaWaitOp::create(e.b, e.loc, t2);
    }
    return success();
  }
  if (algo == "torus2d") {
    auto dims = m.topology.getDims();
    unsigned nx = dims[0], ny = dims[1];
    FailureOr<int32_t> sx = e.takeSemaphore(op);
    if (failed(sx))
      return failure();
    FailureOr<int32_t> sy = e.takeSemaphore(op);
    if (failed(sy))
      return failure();
    Value x = e.remc(me, nx);
    Value rowBase = e.sub(me, x); // y * X
    auto along = [&](Value base, Value coord, unsigned size, int64_t k,
                     int64_t stride) {
      // base + ((coord + k) mod size) * stride
      Value shifted = e.addc(coord, k);
      Value c = e.remc(shifted, size);
      Value offset = e.mulc(c, stride);
      return e.add(base, offset);
    };
    // Along X: a ring of the row's blocks.
    Value nextX = along(rowBase, x, nx, 1, 1);
    for (unsigned s = 0; s + 1 < nx; ++s) {
      Value index = along(rowBase, x, nx, nx - s, 1);
      Value blk = e.block(out, index, rows);
      Value t = e.send(blk, blk, nextX, *sx);
      e.waitSignals(*sx, 1);
      DmaWaitOp::create(e.b, e.loc, t);
    }
    // Along Y: a ring of the rows' X blocks each.
    Value y = e.divc(me, nx);
    Value nextY = along(x, y, ny, 1, nx); // chip = y * X + x
    for (unsigned s = 0; s + 1 < ny; ++s) {
      Value shifted = e.addc(y, ny - s);
      Value yb = e.remc(shifted, ny);
      Value group = e.block(out, yb, rows * nx);
      Value t = e.send(group, group, nextY, *sy);
      e.waitSignals(*sy, 1);
      DmaWaitOp::create(e.b, e.loc, t);
    }
    return success();
  }
  if (algo == "recursive_doubling") {
    // Step k: the 2^k blocks held, from (me / 2^k) * 2^k, to the partner
    // me ^ 2^k; one semaphore per step (a partner a step ahead must not
    // satisfy this step's wait).
    for (unsigned k = 1; k < n; k *= 2) {
      FailureOr<int32_t> s = e.takeSemaphore(op);
      if (failed(s))
        return failure();
      Value q = e.divc(me, k);
      Value first = e.mulc(q, k);
      Value bit = e.remc(q, 2);
      // partner = me + k - 2 * bit * k
      Value up = e.addc(me, k);
      Value down = e.mulc(bit, 2 * k);
      Value partner = e.sub(up, down);
      Value firstRow = e.mulc(first, rows);
      Value held = e.rowsOf(out, firstRow, rows * k);
      Value t = e.send(held, held, e.chipOf(partner), *s);
      e.waitSignals(*s, 1);
      DmaWaitOp::create(e.b, e.loc, t);
    }
    return success();
  }
  return op->emitOpError() << "algorithm '" << algo
                           << "' is not implemented for all_gather";
}

/// out = the sum of the N blocks of `slots` in chip order, ((s0 + s1) +
/// s2) + ..., the same order on every chip, so every chip's sum is the
/// same to the bit.
void emitSum(Emitter &e, Value slots, unsigned n, int64_t rows, Value out) {
  for (unsigned j = 1; j < n; ++j) {
    Value x = j == 1 ? e.block(slots, int64_t(0), rows) : out;
    Value y = e.block(slots, int64_t(j), rows);
    VAddOp::create(e.b, e.loc, x, y, out);
  }
}

/// One ring reduce-scatter among M members, emitted a step at a time (so
/// two rings, one each way, can interleave). Member `index` (a run-time
/// value in [0, M)) holds `in`, M blocks of `blockRows` rows of which the
/// ring reduces the rows [sliceOffset, sliceOffset + sliceRows) of each;
/// it ends with the sum over the members of its own block's slice in
/// `out`. Step s sends the partial sum of block (index - dir (s + 1)) to
/// chip `next` (the member at index + dir) and adds its own part of block
/// (index - dir (s + 2)), which arrives from the member at index - dir.
struct RingReduceScatter {
  Emitter &e;
  Value in, out, index, next;
  unsigned members;
  int64_t blockRows, sliceOffset, sliceRows;
  int dir;
  int32_t semaphore;
  Value recv, part;
  /// The block the next step sends: (index - dir (s + 1)) mod M.
  Value current;

  void allocate(Type elem, int64_t cols) {
    recv = e.alloc(sliceRows * (members - 1), cols, elem);
    if (members > 2)
      part = e.alloc(sliceRows * (members - 2), cols, elem);
  }
  /// The block after `b` in the ring's order: (b - dir) mod M.
  Value after(Value b) {
    return e.step(b, dir > 0 ? int64_t(members) - 1 : 1, members);
  }
  /// The slice of `in`'s block `b`.
  Value inSlice(Value b) {
    Value row = e.mulc(b, blockRows);
    Value first = e.addc(row, sliceOffset);
    return e.rowsOf(in, first, sliceRows);
  }
  /// Sends step s's partial sum; returns the DMA's token.
  Value send(unsigned st) {
    if (st == 0)
      current = after(index);
    Value src =
        st == 0 ? inSlice(current) : e.block(part, int64_t(st - 1), sliceRows);
    Value dst = e.block(recv, int64_t(st), sliceRows);
    return e.send(src, dst, next, semaphore);
  }
  /// Adds what step s received to this member's part of it.
  void add(unsigned st) {
    bool last = st + 2 == members;
    current = after(current);
    Value own = inSlice(current);
    Value dst = last ? out : e.block(part, int64_t(st), sliceRows);
    Value got = e.block(recv, int64_t(st), sliceRows);
    VAddOp::create(e.b, e.loc, got, own, dst);
  }
};

/// reduce_scatter: `in` (N R) x C, `out` R x C.
LogicalResult emitReduceScatter(Emitter &e, Operation *op, StringRef algo,
                                Value in, Value out) {
  const Machine &m = e.m;
  unsigned n = e.n;
  auto [rows, cols] = shapeOf(out);
  Type elem = cast<MemRefType>(in.getType()).getElementType();
  Value me = e.me();
  Value mine = e.block(in, me, rows);
  if (n == 1) {
    e.copy(mine, out);
    return success();
  }
  FailureOr<int32_t> s = e.takeSemaphore(op);
  if (failed(s))
    return failure();
  if (algo == "direct") {
    // Every chip's block of chip p goes to p's slot of its sender; p adds
    // the N slots in chip order.
    Value slots = e.alloc(rows * n, cols, elem);
    Value slot = e.block(slots, me, rows);
    e.copy(mine, slot);
    e.sendToAll(
        [&](Value peer, Value chip) {
          Value theirs = e.block(in, peer, rows);
          return e.send(theirs, slot, chip, *s);
        },
        *s, n - 1);
    emitSum(e, slots, n, rows, out);
    return success();
  }
  auto runRings = [&](llvm::MutableArrayRef<RingReduceScatter> rings) {
    for (RingReduceScatter &r : rings)
      r.allocate(elem, cols);
    for (unsigned st = 0; st + 1 < rings.front().members; ++st) {
      SmallVector<Value> tokens;
      for (RingReduceScatter &r : rings)
        tokens.push_back(r.send(st));
      for (RingReduceScatter &r : rings)
        e.waitSignals(r.semaphore, 1);
      for (RingReduceScatter &r : rings)
        r.add(st);
      for (Value t : tokens)
        DmaWaitOp::create(e.b, e.loc, t);
    }
  };
  if (algo == "ring") {
    Value next = e.chipOf(e.peer(1));
    RingReduceScatter r{e, in, out, me, next, n, rows, 0, rows, +1, *s};
    runRings(r);
    return success();
  }
  if (algo == "bidirectional_ring") {
    // The first half of each block's rows round one way, the rest the
    // other.
    FailureOr<int32_t> s2 = e.takeSemaphore(op);
    if (failed(s2))
      return failure();
    int64_t half = rows / 2;
    Value next = e.chipOf(e.peer(1));
    Value prev = e.chipOf(e.peer(n - 1));
    Value first = e.rowsOf(out, e.b.getIndexAttr(0), half);
    Value second = e.rowsOf(out, e.b.getIndexAttr(half), rows - half);
    RingReduceScatter rings[2] = {
        {e, in, first, me, next, n, rows, 0, half, +1, *s},
        {e, in, second, me, prev, n, rows, half, rows - half, -1, *s2}};
    runRings(rings);
    return success();
  }
  if (algo == "torus2d") {
    // A ring along Y of the super-blocks of X blocks (the row y' of chips
    // owns rows [y' X R, (y' + 1) X R)), then a ring along X of the blocks
    // of this row's sum: the dual of the all-gather's X then Y.
    auto dims = m.topology.getDims();
    unsigned nx = dims[0], ny = dims[1];
    FailureOr<int32_t> s2 = e.takeSemaphore(op);
    if (failed(s2))
      return failure();
    Value x = e.remc(me, nx);
    Value y = e.divc(me, nx);
    auto chipAt = [&](Value xv, Value yv) {
      Value row = e.mulc(yv, nx);
      return e.add(xv, row);
    };
    auto plus1 = [&](Value v, unsigned size) {
      Value next = e.addc(v, 1);
      return e.remc(next, size);
    };
    Value rowSum = e.alloc(rows * nx, cols, elem);
    if (ny > 1) {
      Value yNext = plus1(y, ny);
      Value next = chipAt(x, yNext);
      RingReduceScatter r{e,         in, rowSum,    y,  next, ny,
                          rows * nx, 0,  rows * nx, +1, *s};
      runRings(r);
    } else {
      e.copy(in, rowSum);
    }
    if (nx > 1) {
      Value xNext = plus1(x, nx);
      Value next = chipAt(xNext, y);
      RingReduceScatter r{e, rowSum, out, x, next, nx, rows, 0, rows, +1, *s2};
      runRings(r);
    } else {
      e.copy(rowSum, out);
    }
    return success();
  }
  if (algo == "recursive_doubling") {
    // Recursive halving (N a power of two): an accumulator starts as `in`;
    // at step k (from N / 2 down to 1) a chip keeps the half of its range
    // of 2k blocks that holds its own block, sends the other half of its
    // accumulator to chip me ^ k, and adds what that chip sends of its
    // half. One semaphore per step.
    Value acc = e.alloc(rows * n, cols, elem);
    e.copy(in, acc);
    Value recv = e.alloc(rows * (n - 1), cols, elem);
    int64_t used = 0;
    bool firstStep = true;
    for (unsigned k = n / 2; k >= 1; k /= 2) {
      FailureOr<int32_t> sk = firstStep ? s : e.takeSemaphore(op);
      firstStep = false;
      if (failed(sk))
        return failure();
      Value q = e.divc(me, k);
      Value bit = e.remc(q, 2);
      Value keep = e.mulc(q, k);
      // The other half starts k blocks up (bit 0) or down (bit 1).
      Value up = e.addc(keep, k);
      Value twice = e.mulc(bit, 2 * k);
      Value give = e.sub(up, twice);
      Value meUp = e.addc(me, k);
      Value partner = e.sub(meUp, twice);
      auto blocks = [&](Value buf, Value first) {
        Value row = e.mulc(first, rows);
        return e.rowsOf(buf, row, rows * k);
      };
      Value slot = e.rowsOf(recv, e.b.getIndexAttr(used * rows), rows * k);
      used += k;
      Value gift = blocks(acc, give);
      Value t = e.send(gift, slot, e.chipOf(partner), *sk);
      e.waitSignals(*sk, 1);
      Value mineNow = blocks(acc, keep);
      VAddOp::create(e.b, e.loc, mineNow, slot, mineNow);
      DmaWaitOp::create(e.b, e.loc, t);
      if (k == 1)
        break;
    }
    Value own = e.block(acc, me, rows);
    e.copy(own, out);
    return success();
  }
  return op->emitOpError() << "algorithm '" << algo
                           << "' is not implemented for reduce_scatter";
}

/// all_reduce: `in` and `out` R x C.
LogicalResult emitAllReduce(Emitter &e, Operation *op, StringRef algo, Value in,
                            Value out) {
  unsigned n = e.n;
  auto [rows, cols] = shapeOf(in);
  Type elem = cast<MemRefType>(in.getType()).getElementType();
  if (n == 1) {
    e.copy(in, out);
    return success();
  }
  if (algo == "direct") {
    // Every chip's tile to every chip's slot of its sender, then the N
    // slots added in chip order (the same sum, to the bit, on every chip).
    FailureOr<int32_t> s = e.takeSemaphore(op);
    if (failed(s))
      return failure();
    Value slots = e.alloc(rows * n, cols, elem);
    Value me = e.me();
    Value mine = e.block(slots, me, rows);
    e.copy(in, mine);
    e.sendToAll([&](Value, Value chip) { return e.send(in, mine, chip, *s); },
                *s, n - 1);
    emitSum(e, slots, n, rows, out);
    return success();
  }
  // A reduce-scatter of the rows into this chip's block of `out`, then an
  // all-gather of the blocks.
  int64_t block = rows / n;
  Value piece = e.alloc(block, cols, elem);
  if (failed(emitReduceScatter(e, op, algo, in, piece)))
    return failure();
  return emitAllGather(e, op, algo, piece, out);
}

/// all_to_all: `in` and `out` (N R) x C.
LogicalResult emitAllToAll(Emitter &e, Operation *op, Value in, Value out) {
  unsigned n = e.n;
  auto [total, cols] = shapeOf(in);
  int64_t rows = total / n;
  Value me = e.me();
  Value own = e.block(in, me, rows);
  Value mine = e.block(out, me, rows);
  e.copy(own, mine);
  if (n == 1)
    return success();
  FailureOr<int32_t> s = e.takeSemaphore(op);
  if (failed(s))
    return failure();
  e.sendToAll(
      [&](Value peer, Value chip) {
        Value theirs = e.block(in, peer, rows);
        return e.send(theirs, mine, chip, *s);
      },
      *s, n - 1);
  return success();
}

} // namespace

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

  LogicalResult lower(Operation *op, const Machine &m,
                      SmallVectorImpl<int32_t> &free) {
    FailureOr<Group> group = getGroup(op, m);
    if (failed(group))
      return failure();
    OpBuilder b(op);
    Emitter e(b, op->getLoc(), m, *group, free);
    if (auto s = dyn_cast<SendOp>(op)) {
      Value t = e.send(s.getSrc(), s.getDst(), s.getPeer(), s.getTag());
      DmaWaitOp::create(b, op->getLoc(), t);
      op->erase();
      return success();
    }
    if (auto r = dyn_cast<RecvOp>(op)) {
      e.waitSignals(r.getTag(), 1);
      op->erase();
      return success();
    }
    Kind kind = isa<AllGatherOp>(op)       ? Kind::AllGather
                : isa<ReduceScatterOp>(op) ? Kind::ReduceScatter
                : isa<AllReduceOp>(op)     ? Kind::AllReduce
                                           : Kind::AllToAll;
    Value in = op->getOperand(0), out = op->getOperand(1);
    auto [inRows, cols] = shapeOf(in);
    auto [outRows, outCols] = shapeOf(out);
    unsigned n = group->size;
    // The shapes against the chip count (the group's size).
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
    uint64_t elemBytes =
        cast<MemRefType>(in.getType()).getElementTypeBitWidth() / 8;
    uint64_t blockBytes = uint64_t(blockRows) * cols * elemBytes;
    uint64_t tileBytes = uint64_t(inRows) * cols * elemBytes;
    // One chip: a copy, whatever the algorithm.
    std::vector<Candidate> candidates =
        n == 1 ? std::vector<Candidate>{{"direct", 0}}
               : estimate(m, *group, kind,
                          kind == Kind::AllReduce ? inRows : blockRows, cols,
                          blockBytes, tileBytes);
    // The choice: the op's attribute, else the pass's option where it
    // applies, else the cheapest.
    StringRef chosen = candidates.front().name;
    StringRef why = "the cheapest estimate";
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
    if (emitRemarks && n > 1) {
      uint64_t est = 0;
      for (const Candidate &c : candidates)
        if (c.name == chosen)
          est = c.cycles;
      std::string over = std::to_string(n) + " chips";
      if (!group->whole)
        over += " (groups of " + std::to_string(n) + ", stride " +
                std::to_string(group->stride) + ", of " +
                std::to_string(m.chips) + ")";
      op->emitRemark() << kindName(kind) << " of " << blockBytes
                       << "-byte blocks over " << over << " ("
                       << sim::topologyKindName(m.topology.getKind())
                       << "): " << chosen << ", " << est
                       << " cycles estimated, " << why
                       << " (alpha-beta: " << describe(candidates, true) << ")";
    }
    LogicalResult r = failure();
    switch (kind) {
    case Kind::AllGather:
      r = emitAllGather(e, op, chosen, in, out);
      break;
    case Kind::ReduceScatter:
      r = emitReduceScatter(e, op, chosen, in, out);
      break;
    case Kind::AllReduce:
      r = emitAllReduce(e, op, chosen, in, out);
      break;
    case Kind::AllToAll:
      r = emitAllToAll(e, op, in, out);
      break;
    }
    if (succeeded(r))
      op->erase();
    return r;
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
