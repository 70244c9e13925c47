//===- TestPrograms.h - Shared helpers of the unit tests --------*- C++ -*-===//
//
// Helpers shared by SimulatorTest, DeviceTest, RecorderTest and ReplayTest:
// instruction builders, buffer-table makers, config makers, the
// hand-written loop program (and the values it computes), memory probes and
// an observer that records every simulator callback.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_UNITTESTS_TESTPROGRAMS_H
#define ACCEL_UNITTESTS_TESTPROGRAMS_H

#include "accel/ISA/Isa.h"
#include "accel/Replay/Recorder.h"
#include "accel/Replay/Trace.h"
#include "accel/Sim/Device.h"
#include "accel/Sim/MachineConfig.h"
#include "accel/Sim/Simulator.h"

#include "llvm/Support/CRC.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <utility>
#include <vector>

namespace accel {
namespace test {

//===----------------------------------------------------------------------===//
// Instruction builders
//===----------------------------------------------------------------------===//

inline isa::Inst li(uint8_t rd, int64_t v) {
  isa::Inst i;
  i.op = isa::Opcode::Li;
  i.rd = rd;
  i.setImm(v);
  return i;
}
inline isa::Inst rrr(isa::Opcode op, uint8_t rd, uint8_t rs1, uint8_t rs2) {
  isa::Inst i;
  i.op = op;
  i.rd = rd;
  i.rs1 = rs1;
  i.rs2 = rs2;
  return i;
}
inline isa::Inst add(uint8_t rd, uint8_t rs1, uint8_t rs2) {
  return rrr(isa::Opcode::Add, rd, rs1, rs2);
}
inline isa::Inst mul(uint8_t rd, uint8_t rs1, uint8_t rs2) {
  return rrr(isa::Opcode::Mul, rd, rs1, rs2);
}
inline isa::Inst rri(isa::Opcode op, uint8_t rd, uint8_t rs1, int64_t imm) {
  isa::Inst i;
  i.op = op;
  i.rd = rd;
  i.rs1 = rs1;
  i.setImm(imm);
  return i;
}
inline isa::Inst addi(uint8_t rd, uint8_t rs1, int64_t imm) {
  return rri(isa::Opcode::Addi, rd, rs1, imm);
}
/// sld rd, imm(rs1): a scalar i32 load from VMEM.
inline isa::Inst sld(uint8_t rd, uint8_t rs1, int64_t imm) {
  return rri(isa::Opcode::Sld, rd, rs1, imm);
}
inline isa::Inst branch(isa::Opcode op, uint8_t rs1, uint8_t rs2,
                        int64_t target) {
  isa::Inst i;
  i.op = op;
  i.rs1 = rs1;
  i.rs2 = rs2;
  i.setImm(target);
  return i;
}
inline isa::Inst blt(uint8_t rs1, uint8_t rs2, int64_t target) {
  return branch(isa::Opcode::Blt, rs1, rs2, target);
}
inline isa::Inst bge(uint8_t rs1, uint8_t rs2, int64_t target) {
  return branch(isa::Opcode::Bge, rs1, rs2, target);
}
inline isa::Inst jmp(int64_t target) {
  isa::Inst i;
  i.op = isa::Opcode::Jmp;
  i.setImm(target);
  return i;
}
inline isa::Inst nop() { return isa::Inst(); }
inline isa::Inst halt() {
  isa::Inst i;
  i.op = isa::Opcode::Halt;
  return i;
}
/// dma.issue rd, rsSrc, rsDst: rows x cols f32, row strides in elements.
inline isa::Inst dmaIssue(uint8_t rd, uint8_t rsSrc, uint8_t rsDst,
                          isa::MemSpace src, isa::MemSpace dst, uint16_t rows,
                          uint16_t cols, uint16_t srcStride,
                          uint16_t dstStride) {
  isa::Inst i;
  i.op = isa::Opcode::DmaIssue;
  i.rd = rd;
  i.rs1 = rsSrc;
  i.rs2 = rsDst;
  i.flags = uint8_t(uint8_t(src) | (uint8_t(dst) << 1));
  i.a = rows;
  i.b = cols;
  i.s1 = srcStride;
  i.s2 = dstStride;
  return i;
}
/// A dma.issue whose destination (`remoteDst`) or source lies on the chip
/// in register `rsChip`; with `signal` >= 0 its completion signals that
/// semaphore of the destination's chip.
inline isa::Inst remoteDma(uint8_t rd, uint8_t rsSrc, uint8_t rsDst,
                           uint8_t rsChip, bool remoteDst, isa::MemSpace src,
                           isa::MemSpace dst, uint16_t rows, uint16_t cols,
                           int signal = -1) {
  isa::Inst i = dmaIssue(rd, rsSrc, rsDst, src, dst, rows, cols, cols, cols);
  i.rs3 = rsChip;
  i.flags |= remoteDst ? isa::kFlagRemoteDst : isa::kFlagRemoteSrc;
  if (signal >= 0) {
    i.flags |= isa::kFlagSignal;
    i.s3 = uint16_t(signal);
  }
  return i;
}
/// sem.wait: until semaphore `sem` has the number of signals in `rsCount`.
inline isa::Inst semWait(uint16_t sem, uint8_t rsCount) {
  isa::Inst i;
  i.op = isa::Opcode::SemWait;
  i.a = sem;
  i.rs1 = rsCount;
  return i;
}
inline isa::Inst chipId(uint8_t rd) {
  isa::Inst i;
  i.op = isa::Opcode::ChipId;
  i.rd = rd;
  return i;
}
inline isa::Inst dmaWait(uint8_t rs) {
  isa::Inst i;
  i.op = isa::Opcode::DmaWait;
  i.rs1 = rs;
  return i;
}
/// mxu.matmul: C[m x n] (+)= A[m x k] * B[k x n]; A row stride sa, C row
/// stride sc, B dense.
inline isa::Inst matmul(uint8_t rsC, uint8_t rsA, uint8_t rsB, uint16_t m,
                        uint16_t n, uint16_t k, uint16_t sa, uint16_t sc,
                        bool acc = false) {
  isa::Inst i;
  i.op = isa::Opcode::Matmul;
  i.rs3 = rsC;
  i.rs1 = rsA;
  i.rs2 = rsB;
  i.a = m;
  i.b = n;
  i.s1 = k;
  i.s2 = sa;
  i.s3 = sc;
  i.flags = acc ? isa::kFlagAccumulate : 0;
  return i;
}
/// vpu.iota into a dense rows x cols tile: R[rsBase] + the row (or, with
/// `alongCols`, the column) index.
inline isa::Inst viota(uint8_t rsOut, uint8_t rsBase, uint16_t rows,
                       uint16_t cols, bool alongCols) {
  isa::Inst i;
  i.op = isa::Opcode::VIota;
  i.rs3 = rsOut;
  i.rs1 = rsBase;
  i.a = rows;
  i.b = cols;
  i.s3 = cols;
  i.flags = alongCols ? isa::kFlagIotaCols : 0;
  return i;
}
inline isa::Inst vbinary(isa::Opcode op, uint8_t rsOut, uint8_t rsX,
                         uint8_t rsY, uint16_t rows, uint16_t cols, uint16_t sx,
                         uint16_t sy, uint16_t sout, bool bcast = false) {
  isa::Inst i;
  i.op = op;
  i.rs3 = rsOut;
  i.rs1 = rsX;
  i.rs2 = rsY;
  i.a = rows;
  i.b = cols;
  i.s1 = sx;
  i.s2 = sy;
  i.s3 = sout;
  i.flags = bcast ? isa::kFlagBroadcast : 0;
  return i;
}
inline isa::Inst vadd(uint8_t rsOut, uint8_t rsX, uint8_t rsY, uint16_t rows,
                      uint16_t cols, uint16_t sx, uint16_t sy, uint16_t sout) {
  return vbinary(isa::Opcode::VAdd, rsOut, rsX, rsY, rows, cols, sx, sy, sout);
}
inline isa::Inst vunary(isa::Opcode op, uint8_t rsOut, uint8_t rsX,
                        uint16_t rows, uint16_t cols, uint16_t sx,
                        uint16_t sout) {
  isa::Inst i;
  i.op = op;
  i.rs3 = rsOut;
  i.rs1 = rsX;
  i.a = rows;
  i.b = cols;
  i.s1 = sx;
  i.s3 = sout;
  return i;
}
inline isa::Inst vcopy(uint8_t rsOut, uint8_t rsX, uint16_t rows, uint16_t cols,
                       uint16_t sx, uint16_t sout) {
  return vunary(isa::Opcode::VCopy, rsOut, rsX, rows, cols, sx, sout);
}
inline isa::Inst vfill(uint8_t rsOut, uint16_t rows, uint16_t cols,
                       uint16_t sout, float v) {
  isa::Inst i;
  i.op = isa::Opcode::VFill;
  i.rs3 = rsOut;
  i.a = rows;
  i.b = cols;
  i.s3 = sout;
  uint32_t bits;
  std::memcpy(&bits, &v, 4);
  i.s1 = uint16_t(bits);
  i.s2 = uint16_t(bits >> 16);
  return i;
}

//===----------------------------------------------------------------------===//
// Buffer tables and configs
//===----------------------------------------------------------------------===//

/// A 1-D f32 HBM buffer: initValue(seed, i), or zeros with `zero`.
inline isa::Buffer hbmBuffer(std::string name, uint64_t base, uint64_t bytes,
                             uint32_t seed, bool zero = false) {
  isa::Buffer b;
  b.name = std::move(name);
  b.space = isa::MemSpace::HBM;
  b.base = base;
  b.bytes = bytes;
  b.shape = {int64_t(bytes / 4)};
  b.seed = seed;
  b.init = zero ? isa::BufferInit::Zero : isa::BufferInit::Random;
  return b;
}
/// A 1-D f32 VMEM buffer that starts as zeros.
inline isa::Buffer vmemBuffer(std::string name, uint64_t base, uint64_t bytes) {
  isa::Buffer b;
  b.name = std::move(name);
  b.space = isa::MemSpace::VMEM;
  b.base = base;
  b.bytes = bytes;
  b.shape = {int64_t(bytes / 4)};
  b.init = isa::BufferInit::Zero;
  return b;
}

/// The default config overridden by `json`; `sourceName` names it in
/// errors. A bad override fails the test and gives the default.
inline sim::MachineConfig configFrom(llvm::StringRef json,
                                     llvm::StringRef sourceName) {
  auto c = sim::MachineConfig::fromJson(json, sourceName);
  EXPECT_TRUE(bool(c)) << (c ? "" : llvm::toString(c.takeError()));
  return c ? std::move(*c) : sim::MachineConfig::getDefault();
}

/// hbm<->vmem links with T_b = 100 and 64 B/cycle; scalar latency 1; the
/// default MXU (128 x 128), VPU (1024 lanes, depth 8) and VMEM (32 MiB).
constexpr const char *kTwoLinkConfig = R"json({
  "scalar": { "latency": 1 },
  "dma": { "links": [
    { "src": "hbm", "dst": "vmem", "base_latency": 100, "bytes_per_cycle": 64 },
    { "src": "vmem", "dst": "hbm", "base_latency": 100, "bytes_per_cycle": 64 }
  ] }
})json";

/// The config of the loop program tests: one hbm->vmem link, T_b = 100,
/// 64 B/cycle; scalar latency 1.
inline sim::MachineConfig makeLoopConfig(llvm::StringRef sourceName) {
  return configFrom(R"json({
    "scalar": { "latency": 1 },
    "dma": { "links": [
      { "src": "hbm", "dst": "vmem", "base_latency": 100,
        "bytes_per_cycle": 64 } ] }
  })json",
                    sourceName);
}

//===----------------------------------------------------------------------===//
// The loop program
//===----------------------------------------------------------------------===//

constexpr uint64_t kX = 0x10000; // HBM x: 4 KiB, seed 7 -> [65536, 69632)
constexpr uint32_t kSeed = 7;
constexpr uint64_t kA = 0;    // VMEM a: [0, 4096)
constexpr uint64_t kB = 4096; // VMEM b: [4096, 8192)
constexpr uint64_t kC = 8192; // VMEM c: [8192, 12288)

/// The loop program (25 instructions). Pre-loop: pcs 0..14; the loop body
/// pcs 15..23 runs for i = 0 and i = 1; pc 24 halts. In iteration i the DMA
/// copies x[16i .. 16i+16) (64 bytes at X + 64i) to VMEM [64i, 64i + 64).
///
/// Dynamic instruction sequence: pcs 0..14 (15 instructions), iteration 0
/// pcs 15..23 (9), iteration 1 pcs 15..23 (9), halt: 34 instructions.
/// Arrivals at pc 15: after 15 and after 24 instructions; pc 19: after 19
/// and after 28 instructions.
inline isa::Program makeLoopProgram() {
  using isa::MemSpace;
  isa::Program p;
  p.name = "loop";
  p.code = {
      li(1, kX),                // 0  r1 = X
      li(2, kA),                // 1  r2 = A
      li(3, kB),                // 2  r3 = B
      li(4, kC),                // 3  r4 = C
      li(5, 2),                 // 4  r5 = n = 2
      li(7, 64),                // 5  r7 = 64 (bytes per iteration)
      li(9, 77),                // 6
      addi(15, 3, 1024),        // 7  r15 = B + 1024 = 5120
      vfill(3, 1, 8, 8, 1.5f),  // 8  VMEM [4096, 4128) = 1.5
      vfill(4, 2, 2, 2, 0.25f), // 9  VMEM [8192, 8208) = 0.25
      li(6, 0),                 // 10 i = 0
      vfill(4, 1, 2, 2, 4.0f),  // 11 VMEM [8192, 8200) = 4.0
      li(9, 3),                 // 12
      add(16, 9, 9),            // 13 r16 = 6
      add(17, 3, 0),            // 14 r17 = B
      mul(10, 6, 7),            // 15 r10 = 64 i
      add(11, 1, 10),           // 16 r11 = X + 64 i
      add(12, 2, 10),           // 17 r12 = A + 64 i
      // 18 r13 = DMA id (i): x[16i .. 16i + 16) -> VMEM [64i, 64i + 64)
      dmaIssue(13, 11, 12, MemSpace::HBM, MemSpace::VMEM, 1, 16, 16, 16),
      dmaWait(13),                    // 19
      vadd(15, 12, 3, 1, 8, 8, 8, 8), // 20 [5120, 5152) = a[64i..] + 1.5
      matmul(4, 15, 17, 2, 2, 2, 4, 2, /*acc=*/true), // 21 C += A * B
      addi(6, 6, 1),                                  // 22 i += 1
      blt(6, 5, 15),                                  // 23 if i < n goto 15
      halt(),                                         // 24
  };
  auto o = [](uint32_t id, const char *name, const char *loc) {
    return isa::Origin{id, name, loc};
  };
  p.origins = {
      o(1, "accel.const", "src/model.mlir:3:5"),      // 0
      o(1, "accel.const", "src/model.mlir:3:5"),      // 1
      o(1, "accel.const", "src/model.mlir:3:5"),      // 2
      o(1, "accel.const", "src/model.mlir:3:5"),      // 3
      o(1, "accel.const", "src/model.mlir:3:5"),      // 4
      o(1, "accel.const", "src/model.mlir:3:5"),      // 5
      o(2, "accel.scalar", "src/model.mlir:4:5"),     // 6
      o(2, "accel.scalar", "src/model.mlir:4:5"),     // 7
      o(3, "accel.fill", "src/model.mlir:5:5"),       // 8
      o(4, "accel.fill", "src/model.mlir:6:5"),       // 9
      o(5, "accel.const", "src/model.mlir:8:5"),      // 10
      o(6, "accel.fill", "src/model.mlir:9:5"),       // 11
      o(7, "accel.scalar", "src/model.mlir:10:5"),    // 12
      o(7, "accel.scalar", "src/model.mlir:10:5"),    // 13
      o(7, "accel.scalar", "src/model.mlir:10:5"),    // 14
      o(8, "accel.index", "src/model.mlir:12:7"),     // 15
      o(8, "accel.index", "src/model.mlir:12:7"),     // 16
      o(8, "accel.index", "src/model.mlir:12:7"),     // 17
      o(9, "accel.dma_start", "src/model.mlir:13:7"), // 18
      o(10, "accel.dma_wait", "src/model.mlir:14:7"), // 19
      o(11, "accel.vadd", "inc/helpers.mlir:16:9"),   // 20
      o(12, "accel.matmul", "src/model.mlir:16:7"),   // 21
      o(13, "accel.for", "src/model.mlir:11:5"),      // 22
      o(13, "accel.for", "src/model.mlir:11:5"),      // 23
      o(14, "accel.halt", "src/model.mlir:18:3"),     // 24
  };
  p.buffers = {hbmBuffer("x", kX, 4096, kSeed), vmemBuffer("a", kA, 4096),
               vmemBuffer("b", kB, 4096), vmemBuffer("c", kC, 4096)};
  return p;
}

/// out[j] of iteration `it` of the loop program (pc 20): x[16 it + j] + 1.5.
inline float vaddOut(int it, int j) {
  return isa::initValue(kSeed, 16 * it + j) + 1.5f;
}

/// C after iterations 0 .. last of the loop program. C starts as
/// [[4, 4], [0.25, 0.25]] (pc 9, then pc 11 over the first row); in
/// iteration it, A is the 2x2 tile of out with row stride 4 (out[0], out[1];
/// out[4], out[5]) and B is 2x2 of 1.5 (pc 8); the MXU accumulates kk = 0
/// then kk = 1 in f32.
inline std::vector<float> cAfter(int last) {
  std::vector<float> c = {4.0f, 4.0f, 0.25f, 0.25f};
  for (int it = 0; it <= last; ++it)
    for (int i = 0; i < 2; ++i) {
      float a0 = vaddOut(it, 4 * i), a1 = vaddOut(it, 4 * i + 1);
      for (int j = 0; j < 2; ++j) {
        float acc = c[2 * i + j];
        acc += a0 * 1.5f;
        acc += a1 * 1.5f;
        c[2 * i + j] = acc;
      }
    }
  return c;
}

//===----------------------------------------------------------------------===//
// Errors, bytes and probes
//===----------------------------------------------------------------------===//

inline std::string errorOf(llvm::Error e) {
  if (!e)
    return "<success>";
  return llvm::toString(std::move(e));
}
template <typename T> std::string errorOf(llvm::Expected<T> e) {
  if (e)
    return "<success>";
  return llvm::toString(e.takeError());
}

inline std::vector<uint8_t> floatBytes(const std::vector<float> &v) {
  std::vector<uint8_t> out(v.size() * 4);
  std::memcpy(out.data(), v.data(), out.size());
  return out;
}
/// initValue(kSeed, first .. first + n - 1) as bytes.
inline std::vector<uint8_t> initBytes(uint64_t first, uint64_t n) {
  std::vector<float> v;
  for (uint64_t i = 0; i < n; ++i)
    v.push_back(isa::initValue(kSeed, first + i));
  return floatBytes(v);
}
/// `n` bytes of the device's memory at `addr` (a failed read fails the test
/// and leaves 0xee bytes).
inline std::vector<uint8_t> readMem(sim::Device &d, isa::MemSpace space,
                                    uint64_t addr, uint64_t n) {
  std::vector<uint8_t> out(n, 0xee);
  llvm::Error e = d.readMemory(space, addr, n, out.data());
  EXPECT_FALSE(bool(e)) << llvm::toString(std::move(e));
  return out;
}

/// Stops `device` at the `hit`-th arrival at `pc` and records `count`
/// instructions from there (a failure fails the test and gives an empty
/// trace).
inline replay::Trace recordAt(sim::Device &device, const isa::Program &program,
                              const sim::MachineConfig &config, uint32_t pc,
                              uint64_t hit, uint64_t count) {
  device.setBreakpoint(pc, hit);
  llvm::Error e = device.continueToBreakpoint();
  EXPECT_FALSE(bool(e)) << llvm::toString(std::move(e));
  auto trace = replay::record(device, program, config.jsonText, count);
  EXPECT_TRUE(bool(trace)) << llvm::toString(trace.takeError());
  return trace ? std::move(*trace) : replay::Trace();
}

//===----------------------------------------------------------------------===//
// Observers
//===----------------------------------------------------------------------===//

/// Records every callback of the simulator.
struct EventLog : sim::Observer {
  std::vector<sim::RetireEvent> retired;
  std::vector<std::pair<uint32_t, sim::DmaTiming>> issued; // (pc, timing)
  std::vector<sim::WaitEvent> waits;
  std::vector<uint64_t> halts;
  void onRetire(const sim::RetireEvent &e) override { retired.push_back(e); }
  void onDmaIssue(uint32_t pc, const sim::DmaTiming &t) override {
    issued.push_back({pc, t});
  }
  void onDmaWait(const sim::WaitEvent &e) override { waits.push_back(e); }
  void onHalt(uint64_t total) override { halts.push_back(total); }
};

//===----------------------------------------------------------------------===//
// Editing serialized traces (docs/trace-format.md): little-endian fields
//===----------------------------------------------------------------------===//

inline uint32_t le32(const std::vector<uint8_t> &b, size_t at) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i)
    v |= uint32_t(b[at + i]) << (8 * i);
  return v;
}
inline uint64_t le64(const std::vector<uint8_t> &b, size_t at) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i)
    v |= uint64_t(b[at + i]) << (8 * i);
  return v;
}
inline void put32(std::vector<uint8_t> &b, size_t at, uint32_t v) {
  for (int i = 0; i < 4; ++i)
    b[at + i] = uint8_t(v >> (8 * i));
}
inline void put64(std::vector<uint8_t> &b, size_t at, uint64_t v) {
  for (int i = 0; i < 8; ++i)
    b[at + i] = uint8_t(v >> (8 * i));
}
/// Makes a trace header's payload size (byte 24) and CRC-32 (byte 20)
/// agree with the payload after an edit.
inline void resealHeader(std::vector<uint8_t> &b) {
  put64(b, 24, b.size() - 32);
  put32(b, 20, llvm::crc32(llvm::ArrayRef<uint8_t>(b).drop_front(32)));
}

} // namespace test
} // namespace accel

#endif // ACCEL_UNITTESTS_TESTPROGRAMS_H
