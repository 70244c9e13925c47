//===- Isa.cpp - Encoding, decoding and printing of accel instructions ----===//

#include "accel/ISA/Isa.h"
#include "accel/ISA/ByteStream.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/xxhash.h"

#include <algorithm>
#include <cstring>

using namespace accel;
using namespace accel::isa;

static const OpcodeInfo kOpcodeTable[] = {
#define ACCEL_OPCODE(Enum, Value, Mnemonic, U, Format, Cost, Flops)            \
  {Opcode::Enum,       Mnemonic,        Unit::U,                               \
   InstFormat::Format, CostClass::Cost, FlopCount::Flops},
#include "accel/ISA/Opcodes.def"
};

/// Opcode byte -> table entry (nullptr for unknown bytes), built once.
static const std::array<const OpcodeInfo *, 256> &byteTable() {
  static const std::array<const OpcodeInfo *, 256> table = [] {
    std::array<const OpcodeInfo *, 256> t{};
    for (const OpcodeInfo &entry : kOpcodeTable)
      t[uint8_t(entry.op)] = &entry;
    return t;
  }();
  return table;
}

const OpcodeInfo *isa::lookup(uint8_t opcodeByte) {
  return byteTable()[opcodeByte];
}

const OpcodeInfo &isa::info(Opcode op) { return *lookup(uint8_t(op)); }

llvm::StringRef isa::cmpPredicateName(unsigned predicate) {
  static const char *const names[kNumCmpPredicates] = {
      "false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord",
      "ueq",   "ugt", "uge", "ult", "ule", "une", "uno", "true"};
  return predicate < kNumCmpPredicates ? names[predicate] : "?";
}

uint64_t isa::getFlops(const Inst &inst) {
  switch (info(inst.op).flops) {
  case FlopCount::None:
    return 0;
  case FlopCount::Element:
    return uint64_t(inst.a) * inst.b;
  case FlopCount::Matmul:
    return 2ull * inst.a * inst.b * inst.s1;
  }
  return 0;
}

std::pair<uint64_t, uint64_t> isa::getVpuOutputShape(const Inst &inst) {
  switch (inst.op) {
  case Opcode::VRSum:
  case Opcode::VRMax:
    return {inst.a, 1};
  case Opcode::VTranspose:
    return {inst.b, inst.a};
  default:
    return {inst.a, inst.b};
  }
}

bool isa::isScalarArithmetic(Opcode op) {
  const OpcodeInfo &i = info(op);
  if (i.unit != Unit::Scalar)
    return false;
  switch (i.format) {
  case InstFormat::Rd:
  case InstFormat::RdImm:
  case InstFormat::RdRs:
  case InstFormat::RdRsRs:
  case InstFormat::RdRsImm:
    return true;
  default:
    return false;
  }
}

llvm::StringRef isa::unitName(Unit unit) {
  switch (unit) {
  case Unit::Scalar:
    return "scalar";
  case Unit::Dma:
    return "dma";
  case Unit::Mxu:
    return "mxu";
  case Unit::Vpu:
    return "vpu";
  }
  return "?";
}

llvm::StringRef isa::elemTypeName(ElemType t) {
  switch (t) {
  case ElemType::F32:
    return "f32";
  case ElemType::I32:
    return "i32";
  case ElemType::BF16:
    return "bf16";
  }
  return "?";
}

unsigned Inst::getElemBytes(unsigned operand) const {
  switch (info(op).format) {
  case InstFormat::DmaIssue:
    return flags & kFlagDma16 ? 2 : 4;
  case InstFormat::Matmul:
  case InstFormat::VBinary:
  case InstFormat::VUnary:
  case InstFormat::VFill:
  case InstFormat::VCompare:
  case InstFormat::VIota:
    return operand >= 1 && operand <= 3 &&
                   (flags & (kFlagBf16Rs1 << (operand - 1)))
               ? 2
               : 4;
  default:
    return 4;
  }
}

llvm::StringRef isa::memSpaceName(MemSpace space) {
  return space == MemSpace::HBM ? "hbm" : "vmem";
}

int64_t Inst::imm() const {
  uint64_t w = uint64_t(b) | (uint64_t(s1) << 16) | (uint64_t(s2) << 32) |
               (uint64_t(s3) << 48);
  return int64_t(w);
}

void Inst::setImm(int64_t v) {
  uint64_t w = uint64_t(v);
  b = uint16_t(w);
  s1 = uint16_t(w >> 16);
  s2 = uint16_t(w >> 32);
  s3 = uint16_t(w >> 48);
}

std::array<uint8_t, kInstBytes> isa::encode(const Inst &inst) {
  uint64_t w0 = uint64_t(inst.op) | (uint64_t(inst.rd) << 8) |
                (uint64_t(inst.rs1) << 16) | (uint64_t(inst.rs2) << 24) |
                (uint64_t(inst.rs3) << 32) | (uint64_t(inst.flags) << 40) |
                (uint64_t(inst.a) << 48);
  uint64_t w1 = uint64_t(inst.imm());
  std::array<uint8_t, kInstBytes> out;
  for (unsigned i = 0; i < 8; ++i) {
    out[i] = uint8_t(w0 >> (8 * i));
    out[8 + i] = uint8_t(w1 >> (8 * i));
  }
  return out;
}

llvm::Expected<Inst> isa::decode(llvm::ArrayRef<uint8_t> bytes) {
  if (bytes.size() < kInstBytes)
    return llvm::createStringError("truncated instruction: %zu of %u bytes",
                                   bytes.size(), kInstBytes);
  uint64_t w0 = 0, w1 = 0;
  for (unsigned i = 0; i < 8; ++i) {
    w0 |= uint64_t(bytes[i]) << (8 * i);
    w1 |= uint64_t(bytes[8 + i]) << (8 * i);
  }
  if (!lookup(uint8_t(w0)))
    return llvm::createStringError("unknown opcode 0x%02x", unsigned(w0 & 0xff));
  Inst inst;
  inst.op = Opcode(uint8_t(w0));
  inst.rd = uint8_t(w0 >> 8);
  inst.rs1 = uint8_t(w0 >> 16);
  inst.rs2 = uint8_t(w0 >> 24);
  inst.rs3 = uint8_t(w0 >> 32);
  inst.flags = uint8_t(w0 >> 40);
  inst.a = uint16_t(w0 >> 48);
  inst.setImm(int64_t(w1));
  return inst;
}

static void printReg(llvm::raw_ostream &os, uint8_t r) { os << 'r' << unsigned(r); }

/// " a:bf16 c:bf16": the operands (named by rs1, rs2, rs3; nullptr for one
/// the format lacks) that hold bf16 elements.
static void printBf16(llvm::raw_ostream &os, const Inst &inst,
                      std::array<const char *, 3> names) {
  for (unsigned i = 0; i < 3; ++i)
    if (names[i] && inst.isBf16(i + 1))
      os << ' ' << names[i] << ":bf16";
}

/// "rs3, rs1, rs2, AxB, s=S1,S2,S3" and the broadcast suffix of the
/// VBinary and VCompare formats.
static void printVBinaryOperands(llvm::raw_ostream &os, const Inst &inst) {
  printReg(os, inst.rs3);
  os << ", ";
  printReg(os, inst.rs1);
  os << ", ";
  printReg(os, inst.rs2);
  os << ", " << inst.a << "x" << inst.b << ", s=" << inst.s1 << "," << inst.s2
     << "," << inst.s3;
  if (inst.flags & kFlagBroadcast)
    os << " bcast";
  else if (inst.flags & kFlagBroadcastRow)
    os << " rbcast";
}

void isa::print(const Inst &inst, llvm::raw_ostream &os) {
  // Long: one case per instruction format of the listing (docs/isa.md).
  const OpcodeInfo &oi = info(inst.op);
  os << oi.mnemonic;
  auto sep = [&](bool first = false) { os << (first ? " " : ", "); };
  switch (oi.format) {
  case InstFormat::None:
    break;
  case InstFormat::Rd:
    sep(true), printReg(os, inst.rd);
    break;
  case InstFormat::SemWait:
    sep(true), os << "sem" << inst.a, sep(), printReg(os, inst.rs1);
    break;
  case InstFormat::RdImm:
    sep(true), printReg(os, inst.rd), sep(), os << inst.imm();
    break;
  case InstFormat::RdRs:
    sep(true), printReg(os, inst.rd), sep(), printReg(os, inst.rs1);
    break;
  case InstFormat::RdRsRs:
    sep(true), printReg(os, inst.rd), sep(), printReg(os, inst.rs1), sep(),
        printReg(os, inst.rs2);
    break;
  case InstFormat::RdRsImm:
    sep(true), printReg(os, inst.rd), sep(), printReg(os, inst.rs1), sep(),
        os << inst.imm();
    break;
  case InstFormat::RsRsTarget:
    sep(true), printReg(os, inst.rs1), sep(), printReg(os, inst.rs2), sep(),
        os << "@" << inst.imm();
    break;
  case InstFormat::Target:
    sep(true), os << "@" << inst.imm();
    break;
  case InstFormat::Rs:
    sep(true), printReg(os, inst.rs1);
    break;
  case InstFormat::Load:
    sep(true), printReg(os, inst.rd), sep(),
        os << "[", printReg(os, inst.rs1), os << " + " << inst.imm() << "]";
    break;
  case InstFormat::DmaIssue:
    sep(true), printReg(os, inst.rd), sep(), printReg(os, inst.rs1), sep(),
        printReg(os, inst.rs2), sep(), os << memSpaceName(inst.dmaSrc());
    if (inst.flags & kFlagRemoteSrc)
      os << "@", printReg(os, inst.rs3);
    os << "->" << memSpaceName(inst.dmaDst());
    if (inst.flags & kFlagRemoteDst)
      os << "@", printReg(os, inst.rs3);
    sep(), os << inst.a << "x" << inst.b << ", s=" << inst.s1 << "," << inst.s2;
    if (inst.flags & kFlagSignal)
      os << ", signal sem" << inst.s3;
    if (inst.flags & kFlagDma16)
      os << ", bf16";
    break;
  case InstFormat::Matmul:
    sep(true), printReg(os, inst.rs3), sep(), printReg(os, inst.rs1), sep(),
        printReg(os, inst.rs2), sep(),
        os << "m=" << inst.a << " n=" << inst.b << " k=" << inst.s1
           << " sa=" << inst.s2 << " sc=" << inst.s3;
    if (inst.flags & kFlagAccumulate)
      os << " acc";
    printBf16(os, inst, {"a", "b", "c"});
    break;
  case InstFormat::VCompare:
    sep(true), os << cmpPredicateName(inst.rd), sep();
    printVBinaryOperands(os, inst);
    printBf16(os, inst, {"x", "y", "out"});
    break;
  case InstFormat::VIota:
    sep(true), printReg(os, inst.rs3), sep(), printReg(os, inst.rs1), sep(),
        os << inst.a << "x" << inst.b << ", s=" << inst.s3 << ", "
           << (inst.flags & kFlagIotaCols ? "cols" : "rows");
    printBf16(os, inst, {nullptr, nullptr, "out"});
    break;
  case InstFormat::VBinary:
    sep(true);
    printVBinaryOperands(os, inst);
    if (inst.op == Opcode::VMax && (inst.flags & kFlagMaxNum))
      os << " maxnum";
    if (inst.op == Opcode::VMin && (inst.flags & kFlagMaxNum))
      os << " minnum";
    printBf16(os, inst, {"x", "y", "out"});
    break;
  case InstFormat::VUnary:
    sep(true), printReg(os, inst.rs3), sep(), printReg(os, inst.rs1), sep(),
        os << inst.a << "x" << inst.b << ", s=" << inst.s1 << "," << inst.s3;
    if (inst.op == Opcode::VRMax && (inst.flags & kFlagMaxNum))
      os << " maxnum";
    printBf16(os, inst, {"x", nullptr, "out"});
    break;
  case InstFormat::VFill: {
    uint32_t bits = inst.fillBits();
    float v;
    std::memcpy(&v, &bits, 4);
    sep(true), printReg(os, inst.rs3), sep(),
        os << inst.a << "x" << inst.b << ", s=" << inst.s3 << ", "
           << llvm::format("%g", double(v));
    printBf16(os, inst, {nullptr, nullptr, "out"});
    break;
  }
  }
}

std::string isa::toString(const Inst &inst) {
  std::string s;
  llvm::raw_string_ostream os(s);
  print(inst, os);
  return s;
}

uint32_t isa::getChipSeed(uint32_t seed, unsigned chip) {
  if (chip == 0)
    return seed;
  // The upper half of a splitmix64 step of (seed, chip).
  uint64_t z = (uint64_t(chip) << 32 | seed) + 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return uint32_t((z ^ (z >> 31)) >> 32);
}

void Program::printListing(llvm::raw_ostream &os) const {
  os << "; accel ISA v" << isaVersion << " listing of '" << name << "': "
     << code.size() << " instructions\n";
  for (const Buffer &b : buffers) {
    os << "; buffer " << b.name << " " << memSpaceName(b.space) << " [0x"
       << llvm::utohexstr(b.base) << ", 0x" << llvm::utohexstr(b.base + b.bytes)
       << ") " << b.bytes << " bytes";
    // A constant's data, by its first bytes and a hash of them all.
    if (b.init == BufferInit::Data) {
      llvm::ArrayRef<uint8_t> data = b.getData();
      os << ", data";
      for (uint8_t byte : data.take_front(8))
        os << llvm::format(" %02x", byte);
      if (data.size() > 8)
        os << " ...";
      os << " (xxh3 " << llvm::format_hex_no_prefix(llvm::xxh3_64bits(data), 16)
         << ")";
    }
    os << "\n";
  }
  for (size_t pc = 0; pc < code.size(); ++pc) {
    auto bytes = encode(code[pc]);
    os << llvm::format("%5zu: ", pc);
    for (unsigned i = 0; i < kInstBytes; ++i)
      os << llvm::format("%02x", bytes[i]);
    os << "  ";
    std::string text = toString(code[pc]);
    os << text;
    for (size_t pad = text.size(); pad < 52; ++pad)
      os << ' ';
    if (pc < origins.size())
      os << " ; op " << origins[pc].opId << " " << origins[pc].opName << " @ "
         << origins[pc].loc;
    os << "\n";
  }
}


llvm::Error Program::checkBuffersFit(uint64_t vmemBytes,
                                     uint64_t hbmBytes) const {
  for (size_t i = 0; i < buffers.size(); ++i) {
    const Buffer &b = buffers[i];
    bool vmem = b.space == MemSpace::VMEM;
    uint64_t capacity = vmem ? vmemBytes : hbmBytes;
    if (b.base > UINT64_MAX - b.bytes || b.base + b.bytes > capacity)
      return llvm::createStringError(
          "buffer %zu '%s' %s [%llu, %llu) does not fit the config's %s %llu",
          i, b.name.c_str(), memSpaceName(b.space).str().c_str(),
          (unsigned long long)b.base, (unsigned long long)(b.base + b.bytes),
          vmem ? "vmem.bytes" : "hbm.bytes", (unsigned long long)capacity);
  }
  return llvm::Error::success();
}

static constexpr char kImageMagic[8] = {'A', 'C', 'C', 'E', 'L', 'B', 'I', 'N'};

std::vector<uint8_t> Program::toImage() const {
  ByteWriter w;
  w.out.insert(w.out.end(), kImageMagic, kImageMagic + 8);
  w.u32(isaVersion);
  w.str(name);
  w.str(fingerprint);
  w.u32(uint32_t(code.size()));
  for (const Inst &inst : code) {
    auto bytes = encode(inst);
    w.out.insert(w.out.end(), bytes.begin(), bytes.end());
  }
  w.u32(uint32_t(buffers.size()));
  for (const Buffer &b : buffers) {
    w.str(b.name);
    w.u8(uint8_t(b.space));
    w.u8(uint8_t(b.init));
    w.u8(uint8_t(b.elemType));
    w.u32(b.seed);
    w.u64(b.base);
    w.u64(b.bytes);
    w.u32(uint32_t(b.shape.size()));
    for (int64_t d : b.shape)
      w.u64(uint64_t(d));
    // Version 10: a data buffer's contents follow its record, `size` bytes.
    // (Exactly `size` bytes: data a hand-built program lacks reads as 0.)
    if (b.init == BufferInit::Data) {
      llvm::ArrayRef<uint8_t> data = b.getData().take_front(b.bytes);
      w.out.insert(w.out.end(), data.begin(), data.end());
      w.out.resize(w.out.size() + (b.bytes - data.size()), 0);
    }
  }
  w.u32(uint32_t(origins.size()));
  for (const Origin &o : origins) {
    w.u32(o.opId);
    w.str(o.opName);
    w.str(o.loc);
    w.u32(o.loopId);
  }
  w.u32(uint32_t(loops.size()));
  for (const LoopInfo &l : loops) {
    w.u32(l.id);
    w.u32(l.parentId);
    w.str(l.loc);
  }
  return w.out;
}

llvm::Expected<Program> Program::fromImage(llvm::ArrayRef<uint8_t> bytes) {
  // Long: the image's fields in file order, each read and checked
  // (docs/isa.md).
  ByteReader r(bytes, 0, "truncated image at byte offset ");
  if (bytes.size() < 8 || std::memcmp(bytes.data(), kImageMagic, 8) != 0)
    return llvm::createStringError("not an accel image: bad magic at byte offset 0");
  r.setPos(8);
  Program p;
  size_t versionAt = r.getPos();
  p.isaVersion = r.u32("ISA version");
  if (r.err.empty() && p.isaVersion != kIsaVersion)
    return llvm::createStringError(
        "unsupported ISA version %u at byte offset %zu (this build reads %u)",
        p.isaVersion, versionAt, kIsaVersion);
  p.name = r.str("program name");
  p.fingerprint = r.str("program fingerprint");
  uint32_t n = r.u32("instruction count");
  // Reserve no more than the bytes left can hold: a count is a claim of the
  // file, checked record by record below.
  p.code.reserve(std::min<uint64_t>(n, r.rest().size() / kInstBytes));
  for (uint32_t i = 0; i < n && r.err.empty(); ++i) {
    size_t at = r.getPos();
    if (!r.need(kInstBytes, "instruction"))
      break;
    auto inst = decode(bytes.slice(r.getPos(), kInstBytes));
    if (!inst)
      return llvm::createStringError(
          "byte offset %zu (instruction %u): %s", at, i,
          llvm::toString(inst.takeError()).c_str());
    p.code.push_back(*inst);
    r.skip(kInstBytes);
  }
  uint32_t nb = r.u32("buffer count");
  for (uint32_t i = 0; i < nb && r.err.empty(); ++i) {
    Buffer b;
    b.name = r.str("buffer name");
    b.space = MemSpace(r.u8("buffer space") & 1);
    size_t initAt = r.getPos();
    uint8_t init = r.u8("buffer init");
    if (r.ok() && init > kMaxBufferInit)
      return llvm::createStringError(
          "byte offset %zu (buffer %u '%s'): init %u is none of 0 (initValue), "
          "1 (zeros), 2 (iota), 3 (data)",
          initAt, i, b.name.c_str(), unsigned(init));
    b.init = BufferInit(init);
    size_t typeAt = r.getPos();
    uint8_t type = r.u8("buffer element type");
    if (r.ok() && type > uint8_t(ElemType::BF16))
      return llvm::createStringError(
          "byte offset %zu (buffer %u '%s'): element type %u is none of 0 "
          "(f32), 1 (i32), 2 (bf16)",
          typeAt, i, b.name.c_str(), unsigned(type));
    b.elemType = ElemType(type);
    // An iota buffer holds i32 indices: 4-byte elements.
    if (b.init == BufferInit::Iota && b.elemType == ElemType::BF16)
      return llvm::createStringError(
          "byte offset %zu (buffer %u '%s'): an iota buffer (init 2) of bf16 "
          "elements; iota holds 32-bit indices",
          typeAt, i, b.name.c_str());
    b.seed = r.u32("buffer seed");
    size_t baseAt = r.getPos();
    b.base = r.u64("buffer base");
    b.bytes = r.u64("buffer size");
    // [base, base + size) must be a range of addresses: the simulator's
    // bounds checks compute its end.
    if (r.ok() && b.base > UINT64_MAX - b.bytes)
      return llvm::createStringError(
          "byte offset %zu (buffer %u '%s'): base 0x%llx plus size 0x%llx "
          "passes 2^64",
          baseAt, i, b.name.c_str(), (unsigned long long)b.base,
          (unsigned long long)b.bytes);
    uint32_t rank = r.u32("buffer rank");
    for (uint32_t d = 0; d < rank && r.err.empty(); ++d)
      b.shape.push_back(int64_t(r.u64("buffer shape")));
    if (r.ok() && b.init == BufferInit::Data) {
      if (b.space != MemSpace::HBM)
        return llvm::createStringError(
            "byte offset %zu (buffer %u '%s'): a VMEM buffer with initial "
            "data (init 3); only HBM buffers have initial contents",
            initAt, i, b.name.c_str());
      // Whatever the size claims, no more than the bytes that are left.
      if (!r.need(b.bytes, "buffer data"))
        break;
      auto data = r.rest().take_front(b.bytes);
      b.data = std::make_shared<const std::vector<uint8_t>>(data.begin(),
                                                            data.end());
      r.skip(b.bytes);
    }
    p.buffers.push_back(std::move(b));
  }
  size_t originsAt = r.getPos();
  uint32_t no = r.u32("origin count");
  // One origin per instruction (docs/isa.md, "Origin table"): tools index
  // the table by PC.
  if (r.ok() && no != p.code.size())
    return llvm::createStringError(
        "byte offset %zu: the origin count is %u but the program has %zu "
        "instructions (one origin per instruction)",
        originsAt, no, p.code.size());
  p.origins.reserve(no);
  for (uint32_t i = 0; i < no && r.err.empty(); ++i) {
    Origin o;
    o.opId = r.u32("origin op id");
    o.opName = r.str("origin op name");
    o.loc = r.str("origin location");
    o.loopId = r.u32("origin loop id");
    p.origins.push_back(std::move(o));
  }
  uint32_t nl = r.u32("loop count");
  for (uint32_t i = 0; i < nl && r.err.empty(); ++i) {
    LoopInfo l;
    l.id = r.u32("loop id");
    l.parentId = r.u32("loop parent id");
    l.loc = r.str("loop location");
    p.loops.push_back(std::move(l));
  }
  if (!r.err.empty())
    return llvm::createStringError(r.err);
  // The image ends with its loop table: bytes after it mean a count that
  // is too small (records left unread) or a block size that is too large
  // (a trace's image block).
  if (!r.rest().empty())
    return llvm::createStringError(
        "byte offset %zu: %zu byte%s after the last field (the loop table); "
        "the image ends there",
        r.getPos(), r.rest().size(), r.rest().size() == 1 ? "" : "s");
  return p;
}
