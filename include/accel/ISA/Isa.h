//===- Isa.h - The accel instruction set ------------------------*- C++ -*-===//
//
// The accel ISA: 128-bit fixed-width instructions (two little-endian 64-bit
// words), 256 scalar registers of 64 bits (r0 reads as zero), separate byte
// address spaces for HBM and VMEM. Opcodes and their formats are listed once
// in Opcodes.def; docs/isa.md is the reference manual.
//
// Word 0: op[7:0] rd[15:8] rs1[23:16] rs2[31:24] rs3[39:32] flags[47:40]
//         a[63:48]
// Word 1: either imm (64-bit signed) or b[15:0] s1[31:16] s2[47:32] s3[63:48]
//
// The data flow it serves is SnR's (Zarkadas et al., SoCC '25) Fig. 3:
// DMA ISSUE / WAIT between HBM and VMEM, compute on VMEM tiles.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_ISA_ISA_H
#define ACCEL_ISA_ISA_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace accel {
namespace isa {

/// Version of the instruction encoding and semantics. Traces and images
/// record it; readers refuse other versions. Version 7: bf16 tiles (the
/// element-type flag bits) and the element type of every buffer. Version
/// 8: vpu.min, abs, rsqrt, tanh, log, log1p and erf. Version 9:
/// vpu.transpose, vpu.cmp, vpu.select and vpu.iota. Version 10: HBM
/// buffers with initial data in the image (BufferInit::Data: the constants
/// of the program).
constexpr uint32_t kIsaVersion = 10;
/// Bytes per instruction.
constexpr unsigned kInstBytes = 16;
/// Number of scalar registers.
constexpr unsigned kNumRegs = 256;
/// Bytes of the word `sld` loads (an i32), and the alignment of every
/// 32-bit element.
constexpr unsigned kWordBytes = 4;
/// Semaphores per chip (sem.wait's `a`, dma.issue's `s3` with
/// kFlagSignal); a larger index is a fault.
constexpr unsigned kNumSemaphores = 256;

enum class Opcode : uint8_t {
#define ACCEL_OPCODE(Enum, Value, Mnemonic, Unit, Format, Cost, Flops)         \
  Enum = Value,
#include "accel/ISA/Opcodes.def"
};

/// The functional unit that executes an instruction.
enum class Unit : uint8_t { Scalar, Dma, Mxu, Vpu };

/// Which fields an instruction uses (docs/isa.md, "Formats").
enum class InstFormat : uint8_t {
  None,
  Rd,
  RdImm,
  RdRs,
  RdRsRs,
  RdRsImm,
  RsRsTarget,
  Target,
  Rs,
  DmaIssue,
  Matmul,
  VBinary,
  VUnary,
  VFill,
  VCompare,
  VIota,
  Load,
  SemWait,
};

/// The timing class an instruction's unit latency comes from (Opcodes.def,
/// column Cost; the numbers are the machine config's, docs/config.md):
/// `Scalar` the scalar latency, `Dma` the link of the DMA, `Matmul` the
/// MXU's pass formula, `Vpu*` the VPU's cycles per lane-pass of that kind.
enum class CostClass : uint8_t {
  Scalar,
  Dma,
  Matmul,
  VpuSimple,
  VpuDiv,
  VpuExp,
  VpuSqrt,
  VpuReduce,
  VpuTranspose,
};

/// The arithmetic an instruction does, as the roofline counts it
/// (Opcodes.def, column Flops): none, one operation per element of its
/// rows x cols operand tile, or 2*m*n*k for a matmul.
enum class FlopCount : uint8_t { None, Element, Matmul };

/// Element types of tensor data (docs/isa.md, "Element types"): f32, i32
/// (index tables, read by `sld`) and bf16 (the upper half of an f32;
/// accel/Support/BFloat16.h converts).
enum class ElemType : uint8_t { F32 = 0, I32 = 1, BF16 = 2 };
/// Bytes per element: 4, 4 or 2.
inline unsigned getElemBytes(ElemType t) { return t == ElemType::BF16 ? 2 : 4; }
/// "f32", "i32", "bf16".
llvm::StringRef elemTypeName(ElemType t);

/// Memory spaces addressed by DMA descriptors (flags of dma.issue).
enum class MemSpace : uint8_t { HBM = 0, VMEM = 1 };

/// Flag bits.
constexpr uint8_t kFlagAccumulate = 1; ///< mxu.matmul: C += A*B.
constexpr uint8_t kFlagBroadcast = 1;  ///< vpu binary: y is rows x 1.
constexpr uint8_t kFlagBroadcastRow = 2; ///< vpu binary: y is 1 x cols.
/// vpu.iota: the column index instead of the row index.
constexpr uint8_t kFlagIotaCols = 1;
/// vpu.cmp's predicates (field rd), arith.cmpf's numbering: false, oeq,
/// ogt, oge, olt, ole, one, ord, ueq, ugt, uge, ult, ule, une, uno, true.
constexpr unsigned kNumCmpPredicates = 16;
/// The predicate's name ("olt"), or "?" past the last. Its semantics:
/// accel::compareF (FloatMax.h).
llvm::StringRef cmpPredicateName(unsigned predicate);
/// vpu.max, vpu.rmax: IEEE 754-2008 maxNum (a NaN operand is ignored)
/// instead of IEEE 754-2019 maximum (a NaN operand gives NaN); vpu.min:
/// minNum instead of minimum.
constexpr uint8_t kFlagMaxNum = 4;
/// mxu.matmul and vpu.*: the tile whose address is in rs1 / rs2 / rs3 holds
/// bf16 elements instead of f32 (MXU: A / B / C; VPU: x / y / out).
/// Arithmetic is f32; a bf16 operand is widened exactly and a bf16 result
/// rounded to nearest even once (docs/isa.md, "Element types").
constexpr uint8_t kFlagBf16Rs1 = 8;
constexpr uint8_t kFlagBf16Rs2 = 16;
constexpr uint8_t kFlagBf16Rs3 = 32;

/// dma.issue: bits 0 and 1 are the source and destination spaces; the
/// source (kFlagRemoteSrc) or destination (kFlagRemoteDst) lies on the chip
/// whose id is in rs3 instead of on the issuing chip; with kFlagSignal the
/// DMA's completion signals semaphore s3 of the destination's chip.
constexpr uint8_t kFlagRemoteSrc = 4;
constexpr uint8_t kFlagRemoteDst = 8;
constexpr uint8_t kFlagSignal = 16;
/// dma.issue: the elements are 2 bytes (bf16) instead of 4; tile widths and
/// strides count them.
constexpr uint8_t kFlagDma16 = 32;

/// One decoded instruction. Field meanings depend on the format.
struct Inst {
  Opcode op = Opcode::Nop;
  uint8_t rd = 0, rs1 = 0, rs2 = 0, rs3 = 0, flags = 0;
  uint16_t a = 0;
  // Word 1, read either as imm or as {b, s1, s2, s3}.
  uint16_t b = 0, s1 = 0, s2 = 0, s3 = 0;

  int64_t imm() const;
  void setImm(int64_t v);
  /// Source / destination memory space of a dma.issue (flags bits 0 and 1).
  MemSpace dmaSrc() const { return MemSpace(flags & 1); }
  MemSpace dmaDst() const { return MemSpace((flags >> 1) & 1); }
  /// Whether a dma.issue reads or writes another chip (the one in rs3).
  bool dmaRemote() const { return flags & (kFlagRemoteSrc | kFlagRemoteDst); }
  /// The f32 bit pattern of a vpu.fill (s1 low half, s2 high half).
  uint32_t fillBits() const { return uint32_t(s1) | (uint32_t(s2) << 16); }
  /// Bytes per element of a memory operand: for dma.issue its tiles' (2
  /// with kFlagDma16, else 4; `operand` is ignored); for mxu.matmul and
  /// vpu.* the tile whose address is in rs`operand` (1, 2 or 3: 2 when its
  /// kFlagBf16Rs* bit is set, else 4); 4 for any other instruction.
  unsigned getElemBytes(unsigned operand) const;
  /// Whether that operand holds bf16 elements (getElemBytes is 2).
  bool isBf16(unsigned operand) const { return getElemBytes(operand) == 2; }
};

struct OpcodeInfo {
  Opcode op;
  const char *mnemonic;
  Unit unit;
  InstFormat format;
  CostClass cost;
  FlopCount flops;
};

/// Table entry for a known opcode, or nullptr for an unknown byte.
const OpcodeInfo *lookup(uint8_t opcodeByte);
const OpcodeInfo &info(Opcode op);
llvm::StringRef unitName(Unit unit);
/// The floating-point operations `inst` performs (its FlopCount column):
/// 0, rows * cols (fields a and b), or 2 * m * n * k (a, b, s1).
uint64_t getFlops(const Inst &inst);
/// The shape, in elements, of the tile a VPU instruction writes (docs/isa.md,
/// "VUnary"): rows x 1 for vpu.rsum / vpu.rmax, cols x rows for
/// vpu.transpose, rows x cols (fields a and b) for any other VPU
/// instruction. Meaningless for other units.
std::pair<uint64_t, uint64_t> getVpuOutputShape(const Inst &inst);
/// Whether `op` is scalar register arithmetic (li, mov, add, ...: a scalar
/// instruction that neither branches, halts nor touches memory). The
/// analyzer treats such address math as movable with the DMA it feeds
/// (SnR §5.2, "lightweight" scalar operations).
bool isScalarArithmetic(Opcode op);
llvm::StringRef memSpaceName(MemSpace space);

/// Encodes into 16 bytes (little-endian).
std::array<uint8_t, kInstBytes> encode(const Inst &inst);
/// Decodes 16 bytes; fails on an unknown opcode, naming the byte value.
llvm::Expected<Inst> decode(llvm::ArrayRef<uint8_t> bytes);
/// Prints "mnemonic operands" (no newline), e.g.
/// "dma.issue r9, r3, r4, hbm->vmem, 128x128, s=11008,128".
void print(const Inst &inst, llvm::raw_ostream &os);
std::string toString(const Inst &inst);

/// Where an instruction came from: the stable op id of the MLIR op that
/// produced it and that op's location ("file:line:col").
struct Origin {
  uint32_t opId = 0;
  std::string opName;
  std::string loc;
  /// Op id of the innermost enclosing scf.for (0: the function body).
  uint32_t loopId = 0;
};

/// A loop (region) of the program: its op id, the enclosing loop's op id
/// (0: the function body) and its location.
struct LoopInfo {
  uint32_t id = 0, parentId = 0;
  std::string loc;
};

/// How an HBM buffer's initial contents are made (the init byte of a buffer
/// record of the image, docs/isa.md "Binary image format").
enum class BufferInit : uint8_t {
  /// Element i holds initValue(seed, i): the stand-in for an input.
  Random = 0,
  /// Zeros.
  Zero = 1,
  /// Element i holds the 32-bit integer i (index tables).
  Iota = 2,
  /// The bytes of Buffer::data, carried by the image (ISA version 10): a
  /// constant of the program (an `arith.constant dense<[...]>` or a
  /// `memref.global` with an initializer).
  Data = 3,
};
/// The largest init byte a version-10 image may hold.
constexpr uint8_t kMaxBufferInit = uint8_t(BufferInit::Data);

/// A named buffer of the program: an HBM function argument, an HBM
/// constant (`@SYMBOL`, a memref.global) or a VMEM allocation. Sizes in
/// bytes; shape in elements of `elemType`.
struct Buffer {
  std::string name;
  MemSpace space = MemSpace::HBM;
  ElemType elemType = ElemType::F32;
  uint64_t base = 0;
  uint64_t bytes = 0;
  std::vector<int64_t> shape;
  /// HBM buffers only: what they hold at the start of a run.
  BufferInit init = BufferInit::Random;
  uint32_t seed = 0;
  /// BufferInit::Data: the initial contents, `bytes` bytes in the
  /// little-endian layout of `elemType` (null for every other init). Shared:
  /// the copies of a program (a trace's, each chip's memory) hold one.
  std::shared_ptr<const std::vector<uint8_t>> data;

  /// The initial contents of a BufferInit::Data buffer; empty otherwise.
  llvm::ArrayRef<uint8_t> getData() const {
    return data ? llvm::ArrayRef<uint8_t>(*data) : llvm::ArrayRef<uint8_t>();
  }
};

/// splitmix64's constants (Steele, Lea and Flood, OOPSLA '14), as
/// initValue uses them: the increment and the two multipliers.
constexpr uint64_t kInitGamma = 0x9e3779b97f4a7c15ULL;
constexpr uint64_t kInitMix1 = 0xbf58476d1ce4e5b9ULL;
constexpr uint64_t kInitMix2 = 0x94d049bb133111ebULL;
/// Deterministic initial value of element `index` of an HBM buffer with
/// `seed`: uniform in [-0.125, 0.125), from a 64-bit integer hash. A bf16
/// buffer holds it rounded to bf16 (nearest even). Inline: the simulator
/// fills HBM pages with it, hundreds of millions of elements for a model's
/// weights (lib/Sim/InitialHbm.cpp has a vector copy of it).
inline float initValue(uint32_t seed, uint64_t index) {
  // splitmix64 of (seed, index).
  uint64_t z = index + kInitGamma * (uint64_t(seed) + 1);
  z = (z ^ (z >> 30)) * kInitMix1;
  z = (z ^ (z >> 27)) * kInitMix2;
  z = z ^ (z >> 31);
  // 24 random bits -> [0, 1) -> [-0.125, 0.125). (Converted as a 32-bit
  // integer, the same value, which vector units convert in one step.)
  float u = float(int32_t(uint32_t(z >> 40))) / float(1u << 24);
  return (u - 0.5f) * 0.25f;
}
/// The seed chip `chip` of a system uses for an HBM buffer of seed `seed`:
/// `seed` itself on chip 0 (a one-chip run is unchanged), another for every
/// other chip, so that the chips of an SPMD program start with different
/// data (e.g. the shards of an All-Gather) from one buffer table.
uint32_t getChipSeed(uint32_t seed, unsigned chip);

/// A lowered program: code, the origin table (one entry per instruction),
/// and the buffer table.
struct Program {
  uint32_t isaVersion = kIsaVersion;
  std::string name;
  /// The fingerprint of the module it was lowered from
  /// (accel::getProgramFingerprint: 16 hex digits), or empty when unknown.
  /// metrics.json carries it as "program_fingerprint", also after a replay,
  /// so --accel-attach-metrics can tell the metrics of another program.
  std::string fingerprint;
  std::vector<Inst> code;
  std::vector<Origin> origins;
  std::vector<Buffer> buffers;
  std::vector<LoopInfo> loops;

  /// Writes the assembler listing: one line per instruction with its PC,
  /// encoding in hex, disassembly, op id and location.
  void printListing(llvm::raw_ostream &os) const;
  /// Serialises to the binary image format of docs/isa.md ("ACCELBIN").
  std::vector<uint8_t> toImage() const;
  /// Checks that every buffer fits a machine with `vmemBytes` of VMEM and
  /// `hbmBytes` of HBM: [base, base + bytes) inside [0, capacity) of its
  /// space. The lowering only makes such programs; an image or a trace may
  /// claim others, which a run would then allocate tiles of. Errors: one,
  /// naming the first buffer that does not fit: "buffer I 'NAME' vmem
  /// [B, E) does not fit the config's vmem.bytes V".
  llvm::Error checkBuffersFit(uint64_t vmemBytes, uint64_t hbmBytes) const;
  /// Parses an image (docs/isa.md, "Binary image format"). Never throws;
  /// allocates no more than the image's size, whatever its counts claim.
  /// Errors name the byte offset of the problem: bad magic, another ISA
  /// version, a truncated field ("truncated image at byte offset N while
  /// reading WHAT"), an unknown opcode, a buffer whose base plus size passes
  /// 2^64 ("byte offset N (buffer I 'NAME'): base 0x... plus size 0x...
  /// passes 2^64"), or an origin count other than the instruction count
  /// ("byte offset N: the origin count is O but the program has C
  /// instructions (one origin per instruction)"), so a decoded program's
  /// origin table can be indexed by any PC of its code; and bytes after
  /// the loop table ("byte offset N: K bytes after the last field").
  static llvm::Expected<Program> fromImage(llvm::ArrayRef<uint8_t> bytes);
};

} // namespace isa
} // namespace accel

#endif // ACCEL_ISA_ISA_H
