//===- UnitTiming.cpp - The cycles of the units of one accel core ---------===//
//
// Timing (docs/isa.md, "Timing"; docs/config.md) of the scalar unit, the
// MXU and the VPU: calibrated tables, or the models of the machine config.
// Their arithmetic is Units.cpp. See Units.h.
//
//===----------------------------------------------------------------------===//

#include "accel/Sim/Units.h"

#include "llvm/Support/MathExtras.h"

#include <algorithm>

using namespace accel;
using namespace accel::sim;
using isa::Opcode;

TimingModel::TimingModel(const MachineConfig &config) : config(config) {
  for (const CalibrationEntry &e : config.calibration)
    if (e.opcode != Opcode::DmaIssue && !calibrated[uint8_t(e.opcode)])
      calibrated[uint8_t(e.opcode)] = &e;
}

TimingModel::~TimingModel() = default;

unsigned TimingModel::getVpuCost(isa::CostClass cost) const {
  switch (cost) {
  case isa::CostClass::VpuDiv:
    return config.vpuCostDiv;
  case isa::CostClass::VpuExp:
    return config.vpuCostExp;
  case isa::CostClass::VpuSqrt:
    return config.vpuCostSqrt;
  case isa::CostClass::VpuReduce:
    return config.vpuCostReduce;
  case isa::CostClass::VpuTranspose:
    return config.vpuCostTranspose;
  default:
    return config.vpuCostSimple;
  }
}

uint64_t TimingModel::getLatency(const isa::Inst &in) const {
  const isa::OpcodeInfo &info = isa::info(in.op);
  if (const CalibrationEntry *e = calibrated[uint8_t(in.op)]) {
    std::array<double, kMaxCalibrationKeys> point{};
    for (size_t i = 0; i < e->keys.size(); ++i) {
      switch (e->keys[i]) {
      case CalibrationKey::M:
      case CalibrationKey::Rows:
        point[i] = in.a;
        break;
      case CalibrationKey::N:
      case CalibrationKey::Cols:
        point[i] = in.b;
        break;
      case CalibrationKey::K:
        point[i] = in.s1;
        break;
      case CalibrationKey::Bytes: // dma.issue only
        break;
      }
    }
    return e->getCycles(llvm::ArrayRef(point).take_front(e->keys.size()),
                        /*minCycles=*/1);
  }
  switch (info.unit) {
  case isa::Unit::Scalar:
    return config.scalarLatency;
  case isa::Unit::Dma:
    return 0;
  case isa::Unit::Mxu:
    return getMxuCycles(config, in.a, in.b, in.s1);
  case isa::Unit::Vpu: {
    // Lane-passes: register tiles of the input, or of the output when it
    // takes more (a transpose of a tall, narrow tile writes more passes
    // than it reads; docs/isa.md, "VPU").
    auto passes = [&](uint64_t rows, uint64_t cols) {
      return llvm::divideCeil(rows, config.vpuSublanes) *
             llvm::divideCeil(cols, config.vpuLanes);
    };
    auto [outRows, outCols] = isa::getVpuOutputShape(in);
    return config.vpuPipelineDepth +
           std::max(passes(in.a, in.b), passes(outRows, outCols)) *
               getVpuCost(info.cost);
  }
  }
  return 0;
}

uint64_t TimingModel::getMxuCycles(const MachineConfig &config, uint64_t m,
                                   uint64_t n, uint64_t k) {
  uint64_t r = config.mxuRows, c = config.mxuCols;
  uint64_t folds = 0, t = 0, fill = 0;
  switch (config.mxuDataflow) {
  case MxuDataflow::WeightStationary:
    folds = llvm::divideCeil(k, r) * llvm::divideCeil(n, c);
    t = m;
    fill = r;
    break;
  case MxuDataflow::InputStationary:
    folds = llvm::divideCeil(k, r) * llvm::divideCeil(m, c);
    t = n;
    fill = r;
    break;
  case MxuDataflow::OutputStationary:
    folds = llvm::divideCeil(m, r) * llvm::divideCeil(n, c);
    t = k;
    fill = 0;
    break;
  }
  folds = std::max<uint64_t>(folds, 1);
  uint64_t skewAndDrain = r + c - 2;
  uint64_t cycles = config.mxuOverlap ? fill + (folds - 1) * std::max(t, fill) +
                                            t + skewAndDrain
                                      : folds * (fill + t + skewAndDrain);
  return std::max<uint64_t>(cycles - 1, 1); // a 1 x 1 array still takes 1
}
