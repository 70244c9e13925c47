//===- Access.cpp - What an instruction reads and writes ------------------===//

#include "accel/Sim/Access.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>

using namespace accel;
using namespace accel::sim;
using isa::InstFormat;
using isa::MemSpace;
using isa::Opcode;

InstAccess sim::getAccesses(const isa::Inst &in,
                            llvm::function_ref<uint64_t(unsigned)> readReg,
                            uint32_t chip) {
  InstAccess a;
  getAccesses(in, readReg, chip, a);
  return a;
}

void sim::getAccesses(const isa::Inst &in,
                      llvm::function_ref<uint64_t(unsigned)> readReg,
                      uint32_t chip, InstAccess &a) {
  // Long: one case per opcode: the ISA's operand description, in one place.
  a.regReads.clear();
  a.regWrites.clear();
  a.memReads.clear();
  a.memWrites.clear();
  // The VMEM tile at the address in rs`operand` (1-3) of an MXU or VPU
  // instruction, of that operand's element size.
  auto vmem = [&](unsigned operand, uint64_t rows, uint64_t cols,
                  uint64_t stride) {
    uint8_t reg = operand == 1 ? in.rs1 : operand == 2 ? in.rs2 : in.rs3;
    return TileRef{
        MemSpace::VMEM,          readReg(reg), rows, cols, stride, chip,
        in.getElemBytes(operand)};
  };
  switch (isa::info(in.op).format) {
  case InstFormat::None:
  case InstFormat::Target:
    break;
  case InstFormat::Rd:
  case InstFormat::RdImm:
    a.regWrites.push_back(in.rd);
    break;
  case InstFormat::RdRs:
  case InstFormat::RdRsImm:
    a.regReads.push_back(in.rs1);
    a.regWrites.push_back(in.rd);
    break;
  case InstFormat::RdRsRs:
    a.regReads.append({in.rs1, in.rs2});
    a.regWrites.push_back(in.rd);
    break;
  case InstFormat::RsRsTarget:
    a.regReads.append({in.rs1, in.rs2});
    break;
  case InstFormat::Rs:
  case InstFormat::SemWait:
    a.regReads.push_back(in.rs1);
    break;
  case InstFormat::Load:
    a.regReads.push_back(in.rs1);
    a.regWrites.push_back(in.rd);
    a.memReads.push_back(
        {TileRef{MemSpace::VMEM, readReg(in.rs1) + uint64_t(in.imm()), 1, 1, 1,
                 chip},
         "scalar load"});
    break;
  case InstFormat::DmaIssue: {
    a.regReads.append({in.rs1, in.rs2});
    uint32_t remote = chip;
    if (in.dmaRemote()) {
      a.regReads.push_back(in.rs3);
      // An id past 2^32 - 1 names no chip either way (the simulator
      // faults on any id at or past its chip count).
      remote = uint32_t(std::min<uint64_t>(readReg(in.rs3), UINT32_MAX));
    }
    a.regWrites.push_back(in.rd);
    unsigned elemBytes = in.getElemBytes(0);
    a.memReads.push_back(
        {TileRef{in.dmaSrc(), readReg(in.rs1), in.a, in.b, in.s1,
                 in.flags & isa::kFlagRemoteSrc ? remote : chip, elemBytes},
         "DMA source"});
    a.memWrites.push_back(
        {TileRef{in.dmaDst(), readReg(in.rs2), in.a, in.b, in.s2,
                 in.flags & isa::kFlagRemoteDst ? remote : chip, elemBytes},
         "DMA destination"});
    break;
  }
  case InstFormat::Matmul: {
    uint64_t m = in.a, n = in.b, k = in.s1;
    a.regReads.append({in.rs1, in.rs2, in.rs3});
    a.memReads.push_back({vmem(1, m, k, in.s2), "MXU operand A"});
    a.memReads.push_back({vmem(2, k, n, n), "MXU operand B"});
    if (in.flags & isa::kFlagAccumulate)
      a.memReads.push_back({vmem(3, m, n, in.s3), "MXU operand C"});
    a.memWrites.push_back({vmem(3, m, n, in.s3), "MXU operand C"});
    break;
  }
  case InstFormat::VBinary:
  case InstFormat::VCompare: {
    bool bcast = in.flags & isa::kFlagBroadcast;
    bool rowBcast = !bcast && (in.flags & isa::kFlagBroadcastRow);
    a.regReads.append({in.rs1, in.rs2, in.rs3});
    a.memReads.push_back({vmem(1, in.a, in.b, in.s1), "VPU operand x"});
    a.memReads.push_back({vmem(2, rowBcast ? 1 : in.a, bcast ? 1 : in.b, in.s2),
                          "VPU operand y"});
    // vpu.select keeps out where the mask is 0: it reads out too.
    if (in.op == Opcode::VSelect)
      a.memReads.push_back({vmem(3, in.a, in.b, in.s3), "VPU output"});
    a.memWrites.push_back({vmem(3, in.a, in.b, in.s3), "VPU output"});
    break;
  }
  case InstFormat::VUnary: {
    auto [outRows, outCols] = isa::getVpuOutputShape(in);
    a.regReads.append({in.rs1, in.rs3});
    a.memReads.push_back({vmem(1, in.a, in.b, in.s1), "VPU operand x"});
    a.memWrites.push_back({vmem(3, outRows, outCols, in.s3), "VPU output"});
    break;
  }
  case InstFormat::VIota:
    a.regReads.append({in.rs1, in.rs3}); // the base value, out's address
    a.memWrites.push_back({vmem(3, in.a, in.b, in.s3), "VPU output"});
    break;
  case InstFormat::VFill:
    a.regReads.push_back(in.rs3);
    a.memWrites.push_back({vmem(3, in.a, in.b, in.s3), "VPU output"});
    break;
  }
}

bool sim::getAccessTemplates(const isa::Inst &in, uint32_t chip,
                             llvm::SmallVectorImpl<OperandTemplate> &out,
                             unsigned &numReads, unsigned &numWrites) {
  constexpr uint64_t kProbe = uint64_t(1) << 40;
  InstAccess zero = getAccesses(
      in, [](unsigned) { return uint64_t(0); }, chip);
  InstAccess probe = getAccesses(
      in, [](unsigned r) { return kProbe * (uint64_t(r) + 1); }, chip);
  if (zero.memReads.size() != probe.memReads.size() ||
      zero.memWrites.size() != probe.memWrites.size())
    return false;
  llvm::SmallVector<OperandTemplate, 6> found;
  for (auto [z, p] : {std::make_pair(&zero.memReads, &probe.memReads),
                      std::make_pair(&zero.memWrites, &probe.memWrites)})
    for (auto [a, b] : llvm::zip_equal(*z, *p)) {
      const TileRef &s = a.tile, &t = b.tile;
      if (s.space != t.space || s.rows != t.rows || s.cols != t.cols ||
          s.rowStride != t.rowStride || s.chip != t.chip ||
          s.elemBytes != t.elemBytes || a.role != b.role)
        return false;
      uint64_t diff = t.base - s.base;
      OperandTemplate o{a};
      if (diff != 0) {
        if (diff % kProbe != 0 || diff / kProbe > 256)
          return false;
        o.hasBaseReg = true;
        o.baseReg = uint8_t(diff / kProbe - 1);
      }
      found.push_back(o);
    }
  numReads = zero.memReads.size();
  numWrites = zero.memWrites.size();
  out.append(found.begin(), found.end());
  return true;
}
