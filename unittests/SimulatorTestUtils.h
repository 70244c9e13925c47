//===- SimulatorTestUtils.h - Shared by the simulator's tests --*- C++ -*-===//
//
// Helpers of SimulatorTest.cpp and SimulatorDmaTest.cpp: the address map
// and buffer table of their hand-built programs, tile readers and writers,
// and the fault text of a run.
//
// Timing rules used for the expected values (Simulator.cpp header,
// docs/isa.md "Timing"):
//  - the first instruction issues at cycle 0, each next one at the previous
//    issue + scalar latency at best;
//  - a WAIT resumes at max(ready, complete) with the Fig. 4 stall split
//    (SnR, Zarkadas et al., SoCC '25);
//  - MXU latency: the systolic-array model of docs/isa.md "MXU" (SCALE-Sim
//    folds; weight-stationary with double-buffered weights by default);
//  - VPU latency = pipeline_depth + ceil(rows / sublanes) *
//    ceil(cols / lanes) * cost (docs/isa.md "VPU");
//  - total = max(halt issue + 1, units free, DMA drain).
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_UNITTESTS_SIMULATORTESTUTILS_H
#define ACCEL_UNITTESTS_SIMULATORTESTUTILS_H

#include "TestPrograms.h"

#include "accel/Sim/Simulator.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace accel::test {

using isa::Inst;
using isa::MemSpace;
using sim::RunSummary;
using sim::Simulator;
using sim::StallCause;

// Address map of most tests: HBM input x (4 KiB, seed kSeed) at kX, VMEM
// a, b, c (4 KiB each) at kA, kB, kC (TestPrograms.h), and:
constexpr uint64_t kOut = 0x20000; // HBM output, 4 KiB, zeros

inline isa::Program makeProgram(std::vector<Inst> code) {
  isa::Program p;
  p.name = "test";
  p.code = std::move(code);
  p.buffers = {hbmBuffer("x", kX, 4096, kSeed),
               hbmBuffer("out", kOut, 4096, 0, /*zero=*/true),
               vmemBuffer("a", kA, 4096), vmemBuffer("b", kB, 4096),
               vmemBuffer("c", kC, 4096)};
  return p;
}

/// The source name of this file's configs in errors.
constexpr const char *kConfigName = "sim-test.json";

constexpr const char *kDmaConfig = kTwoLinkConfig;

inline void writeVmem(Simulator &sim, uint64_t base, uint64_t rows,
                      uint64_t cols, uint64_t stride,
                      const std::vector<float> &values) {
  ASSERT_EQ(values.size(), rows * cols);
  sim.getMemory().writeTile({MemSpace::VMEM, base, rows, cols, stride},
                            values.data());
}
inline std::vector<float> readTile(Simulator &sim, MemSpace space,
                                   uint64_t base, uint64_t rows, uint64_t cols,
                                   uint64_t stride) {
  std::vector<float> out(rows * cols);
  sim.getMemory().readTile({space, base, rows, cols, stride}, out.data());
  return out;
}
inline std::vector<float> readVmem(Simulator &sim, uint64_t base, uint64_t rows,
                                   uint64_t cols, uint64_t stride) {
  return readTile(sim, MemSpace::VMEM, base, rows, cols, stride);
}

inline std::string faultOf(llvm::Expected<RunSummary> r) {
  if (r)
    return "<no fault>";
  return llvm::toString(r.takeError());
}

inline uint64_t stall(const RunSummary &s, StallCause c) {
  return s.stallCycles[size_t(c)];
}

/// `i` with the row broadcast flag (y is 1 x cols) instead of any other.
inline isa::Inst rowBroadcast(isa::Inst i) {
  i.flags = isa::kFlagBroadcastRow;
  return i;
}

} // namespace accel::test

#endif // ACCEL_UNITTESTS_SIMULATORTESTUTILS_H
