//===- Units.cpp - The functional units of one accel core -----------------===//
//
// Arithmetic of the scalar unit, the MXU and the VPU (docs/isa.md); their
// timing is UnitTiming.cpp. See Units.h.
//
//===----------------------------------------------------------------------===//

#include "accel/Sim/Units.h"
#include "accel/Support/BFloat16.h"
#include "accel/Support/FloatMax.h"
#include "accel/Support/VectorClones.h"

#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstring>
#include <limits>
#include <tuple>
#include <type_traits>

using namespace accel;
using namespace accel::sim;
using isa::Opcode;

void ScalarUnit::execute(const isa::Inst &in, CoreState &state) const {
  std::array<uint64_t, isa::kNumRegs> &regs = state.regs;
  switch (in.op) {
  case Opcode::Halt:
    state.halted = true;
    break;
  case Opcode::Li:
    regs[in.rd] = uint64_t(in.imm());
    break;
  case Opcode::Add:
    regs[in.rd] = regs[in.rs1] + regs[in.rs2];
    break;
  case Opcode::Sub:
    regs[in.rd] = regs[in.rs1] - regs[in.rs2];
    break;
  case Opcode::Mul:
    regs[in.rd] = regs[in.rs1] * regs[in.rs2];
    break;
  case Opcode::DivU: // the issue stage faults on a zero divisor
    regs[in.rd] = regs[in.rs1] / regs[in.rs2];
    break;
  case Opcode::RemU:
    regs[in.rd] = regs[in.rs1] % regs[in.rs2];
    break;
  case Opcode::Addi:
    regs[in.rd] = regs[in.rs1] + uint64_t(in.imm());
    break;
  case Opcode::Muli:
    regs[in.rd] = regs[in.rs1] * uint64_t(in.imm());
    break;
  case Opcode::Mov:
    regs[in.rd] = regs[in.rs1];
    break;
  case Opcode::Sld: {
    int32_t v;
    std::memcpy(&v, state.memory.vmemPtr(regs[in.rs1] + uint64_t(in.imm())),
                4);
    regs[in.rd] = uint64_t(int64_t(v));
    break;
  }
  case Opcode::Blt:
    if (int64_t(regs[in.rs1]) < int64_t(regs[in.rs2]))
      state.nextPc = uint32_t(in.imm());
    break;
  case Opcode::Bge:
    if (int64_t(regs[in.rs1]) >= int64_t(regs[in.rs2]))
      state.nextPc = uint32_t(in.imm());
    break;
  case Opcode::Jmp:
    state.nextPc = uint32_t(in.imm());
    break;
  default: // nop
    break;
  }
}

/// Whether operand `operand` (1 to 3) of MXU or VPU instruction `in` is
/// bf16: Inst::getElemBytes for these units' formats, which all take the
/// element width from the kFlagBf16Rs1 bits, without its out-of-line
/// lookup of the format (about 2% of a replay of layernorm_loop, perf).
static bool isBf16Operand(const isa::Inst &in, unsigned operand) {
  bool bf16 = in.flags & (isa::kFlagBf16Rs1 << (operand - 1));
  assert(bf16 == in.isBf16(operand) && "an MXU or VPU format");
  return bf16;
}

/// The VMEM tile at the address in register `reg`, of `elemBytes`-byte
/// elements.
static TileRef vmemTile(const CoreState &state, uint8_t reg, uint64_t rows,
                        uint64_t cols, uint64_t stride, unsigned elemBytes) {
  return TileRef{
      isa::MemSpace::VMEM, state.regs[reg], rows, cols, stride, 0, elemBytes};
}

/// Row `p` of `n` elements as f32: `p` itself when f32, else its bf16
/// elements widened into `buf`.
static const float *widenRow(const uint8_t *p, bool bf16, uint64_t n,
                             std::vector<float> &buf) {
  if (!bf16)
    return reinterpret_cast<const float *>(p);
  buf.resize(n);
  widenBf16(p, buf.data(), n);
  return buf.data();
}

/// Stores `n` f32 values at `p` as f32, or rounded to bf16.
static void storeRow(uint8_t *p, bool bf16, const float *v, uint64_t n) {
  if (!bf16) {
    std::memmove(p, v, n * 4);
    return;
  }
  narrowToBf16(v, p, n);
}

/// acc[r * n + j] += ar[r][kk] * bp[kk * n + j] for r < rows, kk < k and
/// j < n: `rows` (1..4) rows of C, dense f32, take the products of their
/// rows of A with B (k rows of n), each element's products added in order
/// of kk. Four rows go together so that each load of B serves them all;
/// the same bits as one row at a time. Vectorized along j per CPU
/// (VectorClones.h).
ACCEL_VECTOR_CLONES
static void multiplyAccumulate(float *acc, const float *const *ar,
                               uint64_t rows, const float *bp, uint64_t k,
                               uint64_t n) {
  if (rows == 4) {
    float *__restrict__ c0 = acc;
    float *__restrict__ c1 = c0 + n;
    float *__restrict__ c2 = c1 + n;
    float *__restrict__ c3 = c2 + n;
    // Blocks of 4 rows x 16 columns of C held in eight 8-lane vectors over
    // all of kk: each step loads two vectors of B and multiplies and adds
    // into registers, where the loop below loads and stores C for every
    // kk (callgrind, run llama2_mlp: 0.43 host instructions per
    // multiply-add against 0.61; issue 34).
    typedef float V8 __attribute__((vector_size(32)));
    uint64_t j0 = 0;
    for (; j0 + 16 <= n; j0 += 16) {
      V8 acc8[4][2];
      float *const cRows[4] = {c0, c1, c2, c3};
      for (unsigned r = 0; r < 4; ++r)
        for (unsigned h = 0; h < 2; ++h)
          std::memcpy(&acc8[r][h], cRows[r] + j0 + 8 * h, sizeof(V8));
      for (uint64_t kk = 0; kk < k; ++kk) {
        V8 b0, b1;
        std::memcpy(&b0, bp + kk * n + j0, sizeof(V8));
        std::memcpy(&b1, bp + kk * n + j0 + 8, sizeof(V8));
        for (unsigned r = 0; r < 4; ++r) {
          float v = ar[r][kk];
          acc8[r][0] += v * b0;
          acc8[r][1] += v * b1;
        }
      }
      for (unsigned r = 0; r < 4; ++r)
        for (unsigned h = 0; h < 2; ++h)
          std::memcpy(cRows[r] + j0 + 8 * h, &acc8[r][h], sizeof(V8));
    }
    // The columns past the last whole block.
    if (j0 == n)
      return;
    for (uint64_t kk = 0; kk < k; ++kk) {
      float v0 = ar[0][kk], v1 = ar[1][kk], v2 = ar[2][kk], v3 = ar[3][kk];
      const float *__restrict__ brow = bp + kk * n;
      for (uint64_t j = j0; j < n; ++j) {
        float bj = brow[j];
        c0[j] += v0 * bj;
        c1[j] += v1 * bj;
        c2[j] += v2 * bj;
        c3[j] += v3 * bj;
      }
    }
  } else {
    for (uint64_t r = 0; r < rows; ++r) {
      float *__restrict__ ac = acc + r * n;
      for (uint64_t kk = 0; kk < k; ++kk) {
        float av = ar[r][kk];
        const float *__restrict__ brow = bp + kk * n;
        for (uint64_t j = 0; j < n; ++j)
          ac[j] += av * brow[j];
      }
    }
  }
}

void MatrixUnit::execute(const isa::Inst &in, CoreState &state) {
  uint64_t m = in.a, n = in.b, k = in.s1;
  bool aBf16 = isBf16Operand(in, 1), bBf16 = isBf16Operand(in, 2),
       cBf16 = isBf16Operand(in, 3);
  TileRef a = vmemTile(state, in.rs1, m, k, in.s2, aBf16 ? 2 : 4);
  TileRef b = vmemTile(state, in.rs2, k, n, n, bBf16 ? 2 : 4);
  TileRef c = vmemTile(state, in.rs3, m, n, in.s3, cBf16 ? 2 : 4);
  // B as f32 rows n apart (widened once when bf16).
  const float *bp =
      widenRow(state.memory.vmemBytePtr(b.base), bBf16, k * n, bF32);
  // C (+)= A * B, rows of C accumulated in dense f32 temporaries, a block
  // of kRowBlock rows at a time so that each load of B serves them all
  // (every element still adds its products in order of kk: the same bits
  // as one row at a time). When C shares bytes with A or B, one row at a
  // time: a row of C is stored before the next row of A is read, as
  // before.
  constexpr uint64_t kRowBlock = 4;
  bool accumulate = in.flags & isa::kFlagAccumulate;
  uint64_t block = c.overlaps(a) || c.overlaps(b) ? 1 : kRowBlock;
  acc.resize(block * n);
  aRows.resize(block);
  for (uint64_t i0 = 0; i0 < m; i0 += block) {
    uint64_t rows = std::min(block, m - i0);
    const float *ar[kRowBlock];
    for (uint64_t r = 0; r < rows; ++r) {
      float *ac = acc.data() + r * n;
      if (accumulate) {
        const float *cv = widenRow(state.memory.vmemBytePtr(c.rowAddr(i0 + r)),
                                   cBf16, n, aRows[r]);
        std::copy(cv, cv + n, ac);
      } else {
        std::fill(ac, ac + n, 0.0f);
      }
      ar[r] = widenRow(state.memory.vmemBytePtr(a.rowAddr(i0 + r)), aBf16, k,
                       aRows[r]);
    }
    multiplyAccumulate(acc.data(), ar, rows, bp, k, n);
    for (uint64_t r = 0; r < rows; ++r)
      storeRow(state.memory.vmemBytePtr(c.rowAddr(i0 + r)), cBf16,
               acc.data() + r * n, n);
  }
}

namespace {
/// f32 addition, as a type: VpuWalk::reduce recognizes the row sum by it.
struct AddF {
  float operator()(float a, float b) const { return a + b; }
};

/// One VPU instruction's walk over its tiles: the input rows x (and y) and
/// the output rows, `nRows` rows of `nCols` elements (one long row when
/// the tiles are contiguous and the op elementwise), read as f32 (bf16
/// widened into `rowBufs`) and written as f32 or rounded to bf16. Each
/// opcode family is one method; they compute what VectorUnit::execute
/// did in one piece, element for element in the same order.
struct VpuWalk {
  /// Widened x and y rows; the output row of a bf16 output.
  std::array<std::vector<float>, 3> &rowBufs;
  /// The input tile's shape and the output's columns.
  uint64_t rows, cols, outCols;
  bool xBf16, yBf16, oBf16;
  /// y is one element per row (kFlagBroadcast), or one row for every row
  /// of x (kFlagBroadcastRow).
  bool bcast, rowBcast;
  /// The first byte of x and y (a snapshot when the output overlaps them),
  /// null when the op has no such input; the output's first byte.
  const uint8_t *xp, *yp;
  uint8_t *o0;
  /// The rows and columns walked by the elementwise families.
  uint64_t nRows, nCols;
  /// Bytes between rows of x, y and the output; bytes of an x element.
  uint64_t xStride, yStride, oStride;
  unsigned xElemBytes;

  /// Row r of the output as f32: in place when f32, else a temporary that
  /// finishRow rounds into place.
  float *outRow(uint64_t r) {
    if (!oBf16)
      return reinterpret_cast<float *>(o0 + r * oStride);
    rowBufs[2].resize(std::max<uint64_t>(nCols, outCols));
    return rowBufs[2].data();
  }
  void finishRow(uint64_t r, const float *o, uint64_t n) {
    if (oBf16)
      storeRow(o0 + r * oStride, true, o, n);
  }
  /// The broadcast y element of row r.
  float yScalar(uint64_t r) const {
    return yBf16 ? bf16ToF32(
                       *reinterpret_cast<const uint16_t *>(yp + r * yStride))
                 : *reinterpret_cast<const float *>(yp + r * yStride);
  }
  /// out = f(x, y) element by element, y broadcast as the flags say.
  template <typename F> void binary(F f) {
    for (uint64_t r = 0; r < nRows; ++r) {
      const float *xr = widenRow(xp + r * xStride, xBf16, nCols, rowBufs[0]);
      float *o = outRow(r);
      if (bcast) {
        float yv = yScalar(r);
        for (uint64_t c = 0; c < nCols; ++c)
          o[c] = f(xr[c], yv);
      } else {
        const float *yr = widenRow(rowBcast ? yp : yp + r * yStride, yBf16,
                                   nCols, rowBufs[1]);
        for (uint64_t c = 0; c < nCols; ++c)
          o[c] = f(xr[c], yr[c]);
      }
      finishRow(r, o, nCols);
    }
  }
  /// out = f(x) element by element.
  template <typename F> void unary(F f) {
    for (uint64_t r = 0; r < nRows; ++r) {
      const float *xr = widenRow(xp + r * xStride, xBf16, nCols, rowBufs[0]);
      float *o = outRow(r);
      for (uint64_t c = 0; c < nCols; ++c)
        o[c] = f(xr[c]);
      finishRow(r, o, nCols);
    }
  }
  /// Every output element `v`.
  void fill(float v) {
    for (uint64_t r = 0; r < nRows; ++r) {
      float *o = outRow(r);
      std::fill(o, o + nCols, v);
      finishRow(r, o, nCols);
    }
  }
  /// vpu.select: out keeps its value where the mask x is 0.0 (+0 or -0),
  /// takes y elsewhere (a NaN mask selects y).
  void select() {
    for (uint64_t r = 0; r < nRows; ++r) {
      const float *xr = widenRow(xp + r * xStride, xBf16, nCols, rowBufs[0]);
      float *o = outRow(r);
      if (oBf16)
        widenBf16(o0 + r * oStride, o, nCols);
      const float *yr = nullptr;
      float yv = 0.0f;
      if (bcast)
        yv = yScalar(r);
      else
        yr = widenRow(rowBcast ? yp : yp + r * yStride, yBf16, nCols,
                      rowBufs[1]);
      for (uint64_t c = 0; c < nCols; ++c)
        if (xr[c] != 0.0f)
          o[c] = bcast ? yv : yr[c];
      finishRow(r, o, nCols);
    }
  }
  /// vpu.iota: the signed `base` plus the row (or, `alongCols`, column)
  /// index, rounded to f32 (exact below 2^24 in magnitude).
  void iota(int64_t base, bool alongCols) {
    for (uint64_t r = 0; r < rows; ++r) {
      float *o = outRow(r);
      for (uint64_t c = 0; c < cols; ++c)
        o[c] = float(base + int64_t(alongCols ? c : r));
      finishRow(r, o, cols);
    }
  }
  /// vpu.transpose: row c of out is column c of x, read element by element
  /// (the values move unchanged; a bf16 x into an f32 out widens, the
  /// reverse rounds).
  void transpose() {
    for (uint64_t c = 0; c < cols; ++c) {
      float *o = outRow(c);
      for (uint64_t r = 0; r < rows; ++r) {
        const uint8_t *e = xp + r * xStride + c * xElemBytes;
        if (xBf16) {
          uint16_t h;
          std::memcpy(&h, e, 2);
          o[r] = bf16ToF32(h);
        } else {
          std::memcpy(&o[r], e, 4);
        }
      }
      finishRow(c, o, rows);
    }
  }
  /// The row reductions: each row folded left to right with `f`, from
  /// `init` or (`fromFirst`) from its first element, into one output
  /// element (the order is part of the model: results must be
  /// bit-identical across runs). f32 rows go kBlock at a time, each row's
  /// fold still left to right: the rows' dependency chains interleave
  /// instead of running one after the other (the same results, several
  /// times faster). Rows before `firstRow` are done (sumRowBlocks).
  template <typename F>
  void reduce(float init, bool fromFirst, F f, uint64_t firstRow = 0) {
    constexpr uint64_t kBlock = 8;
    uint64_t r = firstRow;
    if (!xBf16 && cols > 0)
      for (; r + kBlock <= rows; r += kBlock) {
        const float *xr[kBlock];
        float v[kBlock];
        for (uint64_t j = 0; j < kBlock; ++j) {
          xr[j] = reinterpret_cast<const float *>(xp + (r + j) * xStride);
          v[j] = fromFirst ? xr[j][0] : init;
        }
        for (uint64_t c = fromFirst ? 1 : 0; c < cols; ++c)
          for (uint64_t j = 0; j < kBlock; ++j)
            v[j] = f(v[j], xr[j][c]);
        for (uint64_t j = 0; j < kBlock; ++j)
          storeRow(o0 + (r + j) * oStride, oBf16, &v[j], 1);
      }
    for (; r < rows; ++r) {
      const float *xr = widenRow(xp + r * xStride, xBf16, cols, rowBufs[0]);
      float v = fromFirst ? xr[0] : init;
      for (uint64_t c = fromFirst ? 1 : 0; c < cols; ++c)
        v = f(v, xr[c]);
      storeRow(o0 + r * oStride, oBf16, &v, 1);
    }
  }
};
} // namespace

/// The first byte of input tile `t` of a VPU op writing `out`: in VMEM
/// itself, or a copy of its span in `snapshot` when `out` overlaps it.
/// Every input is read before any output is written (docs/isa.md): an
/// input the output tile overlaps is read from a snapshot of its span,
/// unless it is the output tile itself with rows that do not overlap
/// (`elementwise`: an in-place elementwise op, which reads each element
/// just before writing it). The output is then written row by row in
/// place, so no temporary is larger than an operand's span (a stride-0
/// tile of 65535 x 65535 elements does not allocate 16 GiB).
static inline const uint8_t *readInput(CoreState &state, const TileRef &t,
                                       const TileRef &out,
                                       std::vector<uint8_t> &snapshot,
                                       bool elementwise) {
  bool outRowsDisjoint = out.rows == 1 || out.rowStride >= out.cols;
  bool inPlace = elementwise && outRowsDisjoint && t.base == out.base &&
                 t.rowStride == out.rowStride && t.rows == out.rows &&
                 t.cols == out.cols && t.elemBytes == out.elemBytes;
  if (inPlace || !t.overlaps(out))
    return state.memory.vmemBytePtr(t.base);
  AddrRange span = t.span();
  snapshot.assign(state.memory.vmemBytePtr(t.base),
                  state.memory.vmemBytePtr(t.base) + (span.end - span.begin));
  return snapshot.data();
}

/// The shape of VPU instruction `in`: its entry of `shapes`, made again
/// when the entry describes another instruction (every field compared: a
/// caller may execute an instruction of its own at any address).
static const VectorUnit::WalkShape &
getWalkShape(const isa::Inst &in, VectorUnit::WalkShapes &shapes) {
  static_assert(std::has_unique_object_representations_v<isa::Inst>,
                "no padding: equal bytes are equal fields");
  VectorUnit::WalkShape &s =
      shapes[(reinterpret_cast<uintptr_t>(&in) / sizeof(isa::Inst)) %
             shapes.size()];
  if (s.valid && std::memcmp(&s.inst, &in, sizeof(isa::Inst)) == 0)
    return s;
  s.inst = in;
  s.valid = true;
  s.rows = in.a;
  s.cols = in.b;
  s.reduce = in.op == Opcode::VRSum || in.op == Opcode::VRMax;
  s.transpose = in.op == Opcode::VTranspose;
  isa::InstFormat format = isa::info(in.op).format;
  s.binary =
      format == isa::InstFormat::VBinary || format == isa::InstFormat::VCompare;
  s.noInput = in.op == Opcode::VFill || in.op == Opcode::VIota;
  s.bcast = s.binary && (in.flags & isa::kFlagBroadcast);
  s.rowBcast = s.binary && !s.bcast && (in.flags & isa::kFlagBroadcastRow);
  s.xBf16 = isBf16Operand(in, 1);
  s.yBf16 = s.binary && isBf16Operand(in, 2);
  s.oBf16 = isBf16Operand(in, 3);
  std::tie(s.outRows, s.outCols) = isa::getVpuOutputShape(in);
  s.xStride = uint64_t(in.s1) * (s.xBf16 ? 2 : 4);
  s.yStride = uint64_t(in.s2) * (s.yBf16 ? 2 : 4);
  s.oStride = uint64_t(in.s3) * (s.oBf16 ? 2 : 4);
  // Contiguous tiles of an elementwise op without broadcast are one long
  // row.
  auto contiguous = [](uint64_t rows, uint64_t cols, uint64_t stride) {
    return rows == 1 || stride == cols;
  };
  s.flat = !s.reduce && !s.transpose && !s.bcast && !s.rowBcast &&
           contiguous(s.outRows, s.outCols, in.s3) && in.op != Opcode::VIota &&
           (s.noInput || contiguous(s.rows, s.cols, in.s1)) &&
           (!s.binary || contiguous(s.rows, s.cols, in.s2));
  return s;
}

/// The walk of VPU instruction `in` over its tiles in `state`'s VMEM,
/// its inputs read (or snapshot into `snapshots`) first; its shape from
/// `shapes` (getWalkShape).
static VpuWalk startWalk(const isa::Inst &in, CoreState &state,
                         VectorUnit::WalkShapes &shapes,
                         std::array<std::vector<uint8_t>, 2> &snapshots,
                         std::array<std::vector<float>, 3> &rowBufs) {
  const VectorUnit::WalkShape &s = getWalkShape(in, shapes);
  TileRef out =
      vmemTile(state, in.rs3, s.outRows, s.outCols, in.s3, s.oBf16 ? 2 : 4);
  const uint8_t *xp = nullptr, *yp = nullptr;
  if (!s.noInput) {
    TileRef x = vmemTile(state, in.rs1, s.rows, s.cols, in.s1, s.xBf16 ? 2 : 4);
    xp = readInput(state, x, out, snapshots[0], !s.reduce && !s.transpose);
  }
  if (s.binary) {
    TileRef y = vmemTile(state, in.rs2, s.rowBcast ? 1 : s.rows,
                         s.bcast ? 1 : s.cols, in.s2, s.yBf16 ? 2 : 4);
    yp = readInput(state, y, out, snapshots[1], !s.bcast && !s.rowBcast);
  }
  return VpuWalk{rowBufs,
                 s.rows,
                 s.cols,
                 s.outCols,
                 s.xBf16,
                 s.yBf16,
                 s.oBf16,
                 s.bcast,
                 s.rowBcast,
                 xp,
                 yp,
                 state.memory.vmemBytePtr(out.base),
                 s.flat ? 1 : s.rows,
                 s.flat ? s.rows * s.cols : s.cols,
                 s.xStride,
                 s.yStride,
                 s.oStride,
                 s.xBf16 ? 2u : 4u};
}

/// The elementwise binary opcodes (and vpu.cmp) of `in` on `w`.
ACCEL_VECTOR_CLONES
static void executeBinary(const isa::Inst &in, VpuWalk &w) {
  bool maxNum = in.flags & isa::kFlagMaxNum;
  switch (in.op) {
  case Opcode::VAdd:
    return w.binary([](float a, float b) { return a + b; });
  case Opcode::VSub:
    return w.binary([](float a, float b) { return a - b; });
  case Opcode::VMul:
    return w.binary([](float a, float b) { return a * b; });
  case Opcode::VDiv:
    return w.binary([](float a, float b) { return a / b; });
  case Opcode::VMax:
    return maxNum ? w.binary(maxNumF) : w.binary(maximumF);
  case Opcode::VMin:
    return maxNum ? w.binary(minNumF) : w.binary(minimumF);
  case Opcode::VCopySign:
    return w.binary(copySignF);
  case Opcode::VCmp: {
    unsigned predicate = in.rd; // < kNumCmpPredicates: checked at issue
    return w.binary([predicate](float a, float b) {
      return compareF(predicate, a, b) ? 1.0f : 0.0f;
    });
  }
  default:
    return;
  }
}

/// The elementwise unary opcodes of `in` on `w` (FloatMax.h: the same
/// functions the frontend folds constants with).
static void executeUnary(const isa::Inst &in, VpuWalk &w) {
  switch (in.op) {
  case Opcode::VExp:
    return w.unary([](float a) { return expF(a); });
  case Opcode::VSqrt:
    return w.unary([](float a) { return std::sqrt(a); });
  case Opcode::VRsqrt:
    return w.unary([](float a) { return rsqrtF(a); });
  case Opcode::VTanh:
    return w.unary([](float a) { return tanhF(a); });
  case Opcode::VLog:
    return w.unary([](float a) { return logF(a); });
  case Opcode::VLog1p:
    return w.unary([](float a) { return log1pF(a); });
  case Opcode::VErf:
    return w.unary([](float a) { return erfF(a); });
  case Opcode::VAbs:
    return w.unary([](float a) { return absF(a); });
  case Opcode::VExpm1:
    return w.unary([](float a) { return expm1F(a); });
  case Opcode::VFloor:
    return w.unary([](float a) { return floorF(a); });
  case Opcode::VCeil:
    return w.unary([](float a) { return ceilF(a); });
  case Opcode::VRoundEven:
    return w.unary([](float a) { return roundEvenF(a); });
  case Opcode::VRound:
    return w.unary([](float a) { return roundF(a); });
  case Opcode::VCopy:
    // f32 -> bf16 rounds, bf16 -> f32 widens: the conversions.
    return w.unary([](float a) { return a; });
  default:
    return;
  }
}

/// vpu.rsum's sums of f32 rows from 0.0, eight rows at a time as the
/// eight lanes of one vector: each 8x8 block of the rows is transposed so
/// that a vector holds one column of the eight rows, and the columns are
/// added in order, so each lane is its row's left-to-right sum, bit for bit
/// (-ffp-contract=off; IEEE addition per lane). Against VpuWalk::reduce's
/// interleaved scalar folds: 2.2 times fewer host instructions (callgrind),
/// a quarter less time on an AVX-512 machine (perf), where each row's chain
/// of dependent adds now bounds it. Returns the rows done (a multiple of
/// 8); reduce folds the rest.
ACCEL_VECTOR_CLONES
static uint64_t sumRowBlocks(const VpuWalk &w) {
  typedef float V8 __attribute__((vector_size(32)));
  uint64_t r = 0;
  for (; r + 8 <= w.rows; r += 8) {
    const uint8_t *xr[8];
    for (unsigned j = 0; j < 8; ++j)
      xr[j] = w.xp + (r + j) * w.xStride;
    V8 acc = {0, 0, 0, 0, 0, 0, 0, 0};
    uint64_t c = 0;
    for (; c + 8 <= w.cols; c += 8) {
      V8 m0, m1, m2, m3, m4, m5, m6, m7; // row j, columns c to c + 7
      std::memcpy(&m0, xr[0] + 4 * c, sizeof(V8));
      std::memcpy(&m1, xr[1] + 4 * c, sizeof(V8));
      std::memcpy(&m2, xr[2] + 4 * c, sizeof(V8));
      std::memcpy(&m3, xr[3] + 4 * c, sizeof(V8));
      std::memcpy(&m4, xr[4] + 4 * c, sizeof(V8));
      std::memcpy(&m5, xr[5] + 4 * c, sizeof(V8));
      std::memcpy(&m6, xr[6] + 4 * c, sizeof(V8));
      std::memcpy(&m7, xr[7] + 4 * c, sizeof(V8));
      // Rows j and j+1 interleaved (t), then four rows' columns in each
      // 128-bit half (u), then the halves: the block's columns in order.
      // (Macros, not lambdas: a lambda taking or returning V8 draws GCC's
      // -Wpsabi note in the baseline copy.)
#define ACCEL_SHUFFLE(a, b, ...) __builtin_shufflevector(a, b, __VA_ARGS__)
#define ACCEL_LO1(a, b) ACCEL_SHUFFLE(a, b, 0, 8, 1, 9, 4, 12, 5, 13)
#define ACCEL_HI1(a, b) ACCEL_SHUFFLE(a, b, 2, 10, 3, 11, 6, 14, 7, 15)
#define ACCEL_LO2(a, b) ACCEL_SHUFFLE(a, b, 0, 1, 8, 9, 4, 5, 12, 13)
#define ACCEL_HI2(a, b) ACCEL_SHUFFLE(a, b, 2, 3, 10, 11, 6, 7, 14, 15)
#define ACCEL_LO3(a, b) ACCEL_SHUFFLE(a, b, 0, 1, 2, 3, 8, 9, 10, 11)
#define ACCEL_HI3(a, b) ACCEL_SHUFFLE(a, b, 4, 5, 6, 7, 12, 13, 14, 15)
      V8 t0 = ACCEL_LO1(m0, m1), t1 = ACCEL_HI1(m0, m1);
      V8 t2 = ACCEL_LO1(m2, m3), t3 = ACCEL_HI1(m2, m3);
      V8 t4 = ACCEL_LO1(m4, m5), t5 = ACCEL_HI1(m4, m5);
      V8 t6 = ACCEL_LO1(m6, m7), t7 = ACCEL_HI1(m6, m7);
      V8 u0 = ACCEL_LO2(t0, t2), u1 = ACCEL_HI2(t0, t2);
      V8 u2 = ACCEL_LO2(t1, t3), u3 = ACCEL_HI2(t1, t3);
      V8 u4 = ACCEL_LO2(t4, t6), u5 = ACCEL_HI2(t4, t6);
      V8 u6 = ACCEL_LO2(t5, t7), u7 = ACCEL_HI2(t5, t7);
      acc += ACCEL_LO3(u0, u4); // column c
      acc += ACCEL_LO3(u1, u5);
      acc += ACCEL_LO3(u2, u6);
      acc += ACCEL_LO3(u3, u7);
      acc += ACCEL_HI3(u0, u4); // column c + 4
      acc += ACCEL_HI3(u1, u5);
      acc += ACCEL_HI3(u2, u6);
      acc += ACCEL_HI3(u3, u7);
#undef ACCEL_SHUFFLE
#undef ACCEL_LO1
#undef ACCEL_HI1
#undef ACCEL_LO2
#undef ACCEL_HI2
#undef ACCEL_LO3
#undef ACCEL_HI3
    }
    for (; c < w.cols; ++c) {
      V8 v;
      for (unsigned j = 0; j < 8; ++j) {
        float e;
        std::memcpy(&e, xr[j] + 4 * c, 4);
        v[j] = e;
      }
      acc += v;
    }
    for (unsigned j = 0; j < 8; ++j) {
      float v = acc[j];
      // Which NaN a sum of NaNs gives depends on the operands' order
      // (x86 keeps the first), which the compiler may swap in a vector
      // add: a NaN row is summed again one element at a time.
      if (v != v) {
        const float *x = reinterpret_cast<const float *>(xr[j]);
        v = 0.0f;
        for (uint64_t k = 0; k < w.cols; ++k)
          v = AddF{}(v, x[k]);
      }
      storeRow(w.o0 + (r + j) * w.oStride, w.oBf16, &v, 1);
    }
  }
  return r;
}

/// vpu.rsum (summed from 0.0 in f32) and vpu.rmax (folded from the first
/// element) of `in` on `w`.
ACCEL_VECTOR_CLONES
static void executeReduce(const isa::Inst &in, VpuWalk &w) {
  if (in.op == Opcode::VRSum)
    w.reduce(0.0f, false, AddF{}, w.xBf16 ? 0 : sumRowBlocks(w));
  else if (in.flags & isa::kFlagMaxNum)
    w.reduce(0.0f, true, [](float a, float b) { return maxNumF(a, b); });
  else
    w.reduce(0.0f, true, [](float a, float b) { return maximumF(a, b); });
}

void VectorUnit::execute(const isa::Inst &in, CoreState &state) {
  VpuWalk w = startWalk(in, state, walkShapes, snapshots, rowBufs);
  switch (in.op) {
  case Opcode::VAdd:
  case Opcode::VSub:
  case Opcode::VMul:
  case Opcode::VDiv:
  case Opcode::VMax:
  case Opcode::VMin:
  case Opcode::VCopySign:
  case Opcode::VCmp:
    executeBinary(in, w);
    break;
  case Opcode::VExp:
  case Opcode::VSqrt:
  case Opcode::VRsqrt:
  case Opcode::VTanh:
  case Opcode::VLog:
  case Opcode::VLog1p:
  case Opcode::VErf:
  case Opcode::VAbs:
  case Opcode::VExpm1:
  case Opcode::VFloor:
  case Opcode::VCeil:
  case Opcode::VRoundEven:
  case Opcode::VRound:
  case Opcode::VCopy:
    executeUnary(in, w);
    break;
  case Opcode::VFill: {
    uint32_t bits = in.fillBits();
    float v;
    std::memcpy(&v, &bits, 4);
    w.fill(v);
    break;
  }
  case Opcode::VSelect:
    w.select();
    break;
  case Opcode::VIota:
    w.iota(int64_t(state.regs[in.rs1]), in.flags & isa::kFlagIotaCols);
    break;
  case Opcode::VTranspose:
    w.transpose();
    break;
  case Opcode::VRSum:
  case Opcode::VRMax:
    executeReduce(in, w);
    break;
  default:
    break;
  }
}
