//===- Memory.h - Simulated HBM and VMEM ------------------------*- C++ -*-===//

#ifndef ACCEL_SIM_MEMORY_H
#define ACCEL_SIM_MEMORY_H

#include "accel/ISA/Isa.h"
#include "accel/Support/BulkVector.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/Compiler.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/MathExtras.h"

#include <cassert>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace accel {
namespace sim {

/// A half-open byte range [begin, end) in one memory: a space (HBM or
/// VMEM) of one chip (0 on a one-chip system). Ranges of different chips or
/// spaces never overlap.
struct AddrRange {
  isa::MemSpace space = isa::MemSpace::VMEM;
  uint64_t begin = 0, end = 0;
  uint32_t chip = 0;
  bool overlaps(const AddrRange &o) const {
    return space == o.space && chip == o.chip && begin < o.end && o.begin < end;
  }
};

/// A strided 2-D tile: `rows` rows of `cols` elements of `elemBytes` bytes
/// (4: f32 or i32, 2: bf16), rows `rowStride` elements apart, starting at
/// byte address `base` of memory `space` of chip `chip`.
struct TileRef {
  isa::MemSpace space = isa::MemSpace::VMEM;
  uint64_t base = 0;
  uint64_t rows = 0, cols = 0, rowStride = 0;
  uint32_t chip = 0;
  uint32_t elemBytes = 4;
  /// Bytes of one row's elements (cols * elemBytes).
  uint64_t rowBytes() const { return cols * elemBytes; }
  /// Byte address of row `r`.
  uint64_t rowAddr(uint64_t r) const {
    return base + r * rowStride * elemBytes;
  }
  /// The bytes the tile spans (first to last element, inclusive). A bound
  /// for bounds checks and a cheap filter: two tiles whose spans are
  /// disjoint share no byte, but two tiles whose spans overlap may not
  /// either (e.g. columns 0..127 and 128..255 of the same rows); use
  /// overlaps() to decide.
  AddrRange span() const {
    uint64_t len = rows == 0 ? 0 : ((rows - 1) * rowStride + cols) * elemBytes;
    return {space, base, base + len, chip};
  }
  /// Whether this tile and `o` share at least one byte: some row of one
  /// ([rowAddr(r), + rowBytes()), half-open) intersects
  /// some row of the other, in the same memory space. Exact for any strides,
  /// including 0 (every row at `base`) and strides below `cols`, when rows,
  /// cols and rowStride are below 2^32 (ISA tiles have 16-bit shapes);
  /// larger non-empty tiles of one space count as overlapping (conservative).
  /// Nothing wraps: addresses past 2^64 are compared in 128 bits. Cost: the
  /// span test first (the common, disjoint case), then O(1) when the strides
  /// are equal or either tile is one contiguous range, else O(min(rows,
  /// o.rows)). The simulator's race and data-hazard checks use it.
  bool overlaps(const TileRef &o) const {
    // With every field below 2^30 no span length wraps; a span whose end
    // wrapped past 2^64 cannot filter.
    if (((rows | cols | rowStride | o.rows | o.cols | o.rowStride) >> 30) ==
        0) {
      AddrRange a = span(), b = o.span();
      if (a.begin <= a.end && b.begin <= b.end && !a.overlaps(b))
        return false;
    }
    return rowsOverlap(o);
  }
  /// The exact test of overlaps() without its span filter, for callers
  /// that have already found the (non-wrapping) spans to overlap.
  bool rowsOverlap(const TileRef &o) const;
};

class InitialHashes;

/// HBM is sparse (pages materialise on first touch, initialised from the
/// program's buffer table: isa::initValue or zeros). VMEM is dense but
/// spans only the program's VMEM buffers (every access lies in one, so the
/// addresses past the highest buffer's end are never touched), and is
/// allocated on first use as zero pages that the OS provides on first
/// touch. Nothing is allocated up front: a memory of 4 GiB of VMEM costs
/// what its program's buffers use. Every access must lie inside one buffer
/// of the program's buffer table.
class Memory {
public:
  static constexpr uint64_t kHbmPageBytes = 64 * 1024;
  /// Bytes of bookkeeping per materialised HBM page, counted by
  /// getMemoryFootprint: an upper bound (its map entry is 24 bytes since
  /// the pages come from a PageArena; 128 covered a heap Page and block).
  static constexpr uint64_t kHbmPageOverheadBytes = 128;

  /// With `initHbm` false, HBM pages start as zeros instead of the buffer
  /// table's initial values (replay installs the recorded state instead).
  /// The memory of chip `chip` of a system starts HBM buffers from
  /// isa::getChipSeed of their seeds. `vmemBytes` is the VMEM capacity (the
  /// config's vmem.bytes); nothing is allocated here.
  Memory(uint64_t vmemBytes, const std::vector<isa::Buffer> &buffers,
         bool initHbm = true, unsigned chip = 0);

  /// The bytes of VMEM a memory of `vmemBytes` bytes allocates for
  /// `buffers`: the end of the highest VMEM buffer, at most `vmemBytes`.
  static uint64_t getVmemExtent(uint64_t vmemBytes,
                                const std::vector<isa::Buffer> &buffers);
  /// Allocates VMEM (getVmemExtent bytes, zeroed) unless done already.
  /// Errors: "cannot allocate N bytes of VMEM: out of memory" when the
  /// allocation fails (the caller checks the footprint first:
  /// checkMemoryFootprint). read() and install() call it; the simulator
  /// calls it before the first instruction.
  llvm::Error allocateVmem();
  /// Bytes of VMEM allocated (0 or getVmemExtent).
  uint64_t vmemAllocatedBytes() const { return vmem.size(); }

  /// Reads `n` bytes at `addr` of `space`; fails unless buffers of the
  /// program cover the range ("no buffer holds HBM [a, b)").
  llvm::Error read(isa::MemSpace space, uint64_t addr, uint64_t n,
                   uint8_t *out);
  /// Writes bytes without marking HBM pages dirty (replay's trace-load).
  /// Fails like read().
  llvm::Error install(isa::MemSpace space, uint64_t addr,
                      llvm::ArrayRef<uint8_t> bytes);

  /// The buffer that contains all of `range`, or nullptr. `hint` (a buffer
  /// of this memory, or nullptr) is tried first: the simulator passes the
  /// buffer the same operand of the same instruction found last time.
  const isa::Buffer *findBuffer(const AddrRange &range,
                                const isa::Buffer *hint = nullptr) const {
    if (hint && holds(*hint, range)) // inline: once per operand per step
      return hint;
    return findBufferIn(range);
  }

  /// Copies tile `src` of memory `from` (another chip's) to tile `dst` of
  /// this memory: a remote DMA's functional effect. The tiles cannot
  /// overlap; the caller checked both tiles' bounds.
  void copyTileFrom(Memory &from, const TileRef &src, const TileRef &dst);
  /// Copies a tile to a dense row-major f32 array and back; a bf16 tile
  /// (elemBytes 2) is widened on read and rounded to nearest even on write.
  void readTile(const TileRef &t, float *out);
  void writeTile(const TileRef &t, const float *in);
  /// Copies tile `src` to `dst` (the same rows x cols; any spaces and
  /// strides) with the semantics of a DMA (docs/isa.md, `dma.issue`): as if
  /// every element were read before any is written. The caller checked both
  /// tiles' bounds. Memory: none when both are in VMEM and share no byte,
  /// one row otherwise; when the tiles overlap, a snapshot of the source's
  /// span or of its elements, whichever is smaller, so never more than the
  /// buffer holding the source (a stride-0 tile of 65535 x 65535 elements
  /// copies 65535 x 4 bytes, not 16 GiB).
  void copyTile(const TileRef &src, const TileRef &dst);
  /// Direct pointer to a VMEM byte address (the caller checked bounds: the
  /// address lies in a VMEM buffer). Allocates VMEM if allocateVmem() has
  /// not (a failure then is fatal: the simulator allocates before it
  /// executes anything, so only a caller that skips it can get there).
  float *vmemPtr(uint64_t addr) {
    return reinterpret_cast<float *>(vmemBytePtr(addr));
  }
  uint8_t *vmemBytePtr(uint64_t addr) {
    uint8_t *base = vmemData();
    assert(addr <= vmemExtent && "VMEM address past the VMEM buffers");
    return base + addr;
  }

  /// Reads `n` bytes of HBM at `addr` (materialising pages).
  void readHbm(uint64_t addr, void *out, uint64_t n);
  void writeHbm(uint64_t addr, const void *in, uint64_t n);
  /// xxh3_64bits of the `n` bytes of HBM at `addr` (inside the program's
  /// HBM buffers). When no page of the range holds a copy of its own (none
  /// was written or installed), the hash of the initial contents, computed
  /// once per buffer table and range and shared by every run of it (issue
  /// 34: an fdo loop hashed the Llama MLP's 516 MiB of weights in each of
  /// its runs); otherwise the bytes are read and hashed.
  uint64_t hashHbm(uint64_t addr, uint64_t n);

  /// HBM pages written during the run: page address -> contents.
  std::map<uint64_t, std::vector<uint8_t>> dirtyHbmPages() const;
  /// Number of HBM bytes held (sparse footprint): the pages written or
  /// installed, each a copy of its own. Unwritten bytes are made when read
  /// (initialHbmBytes) and take no memory.
  uint64_t hbmResidentBytes() const { return hbm.size() * kHbmPageBytes; }

private:
  /// Whether buffer `b` contains all of `r` (and, in VMEM, lies within the
  /// VMEM this memory has).
  bool holds(const isa::Buffer &b, const AddrRange &r) const {
    uint64_t end = llvm::SaturatingAdd(b.base, b.bytes);
    return b.space == r.space && r.begin >= b.base && r.begin <= r.end &&
           r.end <= end && (r.space != isa::MemSpace::VMEM || end <= vmemBytes);
  }
  /// findBuffer without a hint: the first buffer that holds `range`.
  const isa::Buffer *findBufferIn(const AddrRange &range) const;

  /// An HBM page written or installed: its bytes (made from the initial
  /// ones on the first write), and whether a write, not only an install,
  /// changed it.
  struct Page {
    uint8_t *own = nullptr; ///< kHbmPageBytes of hbmPages
    bool dirty = false;
  };
  /// The bytes of page `pageAddr`, copied from its initial bytes on first
  /// write.
  uint8_t *writableHbmPage(uint64_t pageAddr);
  /// The initial bytes of HBM [addr, addr + n) into `out` (initBytes of the
  /// initialized HBM buffers, or zeros without `initHbm`).
  void initialHbmBytes(uint64_t addr, uint64_t n, uint8_t *out) const;

  /// VMEM's bytes, allocated on first use.
  uint8_t *vmemData() {
    if (LLVM_UNLIKELY(!vmem.data()))
      allocateVmemOrDie();
    return vmem.data();
  }
  void allocateVmemOrDie();
  /// Copies the rows of tile `src` of `from` (this memory or another's)
  /// to tile `dst` of this one, row by row: the tiles share no byte.
  /// Between VMEM and anything, straight from one memory's bytes to the
  /// other's; HBM to HBM through a one-row staging buffer.
  void copyRows(Memory &from, const TileRef &src, const TileRef &dst);
  /// Reads or writes `n` bytes of `space` at `addr` (bounds checked by
  /// the caller).
  void readBytes(isa::MemSpace space, uint64_t addr, void *out, uint64_t n);
  void writeBytes(isa::MemSpace space, uint64_t addr, const void *in,
                  uint64_t n);

  /// The VMEM capacity (vmem.bytes) and the bytes allocated for it
  /// (getVmemExtent).
  uint64_t vmemBytes = 0, vmemExtent = 0;
  /// Untouched zero pages until written, so a run does not pay for
  /// clearing all of VMEM up front, and 2 MiB stretches it never touches
  /// cost no memory (transparent huge pages: one fault per 2 MiB touched).
  /// Empty until allocateVmem().
  ZeroedArray<uint8_t> vmem;
  /// copyTile's staging: one row, or an overlapping source's snapshot.
  std::vector<uint8_t> staging;
  bool initHbm = true;
  std::vector<isa::Buffer> buffers; ///< sorted by (space, base)
  /// The hashes of initial HBM bytes, shared with other memories of an
  /// equal buffer table (null without `initHbm`).
  std::shared_ptr<InitialHashes> initialHashes;
  /// The HBM buffers whose initial bytes are not zeros (none without
  /// `initHbm`), in order of base: what initialHbmBytes reads; and the
  /// largest end among initialHbm[0..i], for each i.
  std::vector<isa::Buffer> initialHbm;
  std::vector<uint64_t> initialHbmEnds;
  llvm::DenseMap<uint64_t, Page> hbm;
  /// The bytes of hbm's pages (huge pages where the kernel has them).
  PageArena hbmPages{kHbmPageBytes};
};

/// What a caller adds to a run's footprint beside the simulated memories,
/// in bytes: per chip (e.g. the analyses' tables) and once (e.g. copies of
/// the results), with what for, for the message.
struct FootprintExtras {
  uint64_t perChip = 0;
  std::string perChipWhat;
  uint64_t once = 0;
  std::string onceWhat;
};

/// The most memory, in bytes, the simulated memories of a run can hold:
/// `chips` chips, each with the VMEM its buffers span
/// (Memory::getVmemExtent) and the HBM pages its HBM buffers cover (with
/// their bookkeeping), plus what the caller adds per chip (e.g. the
/// analyses' tables) and once (e.g. copies of the results). A run reaches
/// it when every chip touches all of its buffers.
struct MemoryFootprint {
  uint64_t chips = 1;
  /// The config's vmem.bytes, and the VMEM each chip's buffers span (at
  /// most vmem.bytes).
  uint64_t vmemBytes = 0, vmemPerChip = 0;
  /// HBM pages each chip's buffers cover, with their bookkeeping.
  uint64_t hbmPerChip = 0;
  /// What the caller adds.
  FootprintExtras extras;
  /// chips * (vmemPerChip + hbmPerChip + extras.perChip) + extras.once,
  /// saturated at 2^64 - 1.
  uint64_t total() const;
};

/// The footprint of a run of a program with `buffers` on `chips` chips of
/// `vmemBytes` bytes of VMEM each. Overflow-safe for any buffer table
/// (sums saturate).
MemoryFootprint getMemoryFootprint(uint64_t chips, uint64_t vmemBytes,
                                   const std::vector<isa::Buffer> &buffers);
/// The bytes of the distinct kHbmPageBytes pages that the HBM buffers of
/// `buffers` cover (without bookkeeping; saturated).
uint64_t getHbmPageBytes(const std::vector<isa::Buffer> &buffers);

/// Checks `footprint` against `availableBytes`, the memory available to
/// the process (accel::getAvailableMemory; `availableSource` names its
/// bound, e.g. "RLIMIT_AS"). Errors: one, naming the config's fields:
/// "machine config: chips × vmem.bytes = 1024 × 32 MiB needs up to 34.6
/// GiB, more than the memory available to this process (3906 MiB:
/// RLIMIT_AS); per chip: 32 MiB of VMEM (all of vmem.bytes), 64.1 KiB of
/// HBM pages, ...".
llvm::Error checkMemoryFootprint(const MemoryFootprint &footprint,
                                 uint64_t availableBytes,
                                 llvm::StringRef availableSource);
/// The same against the memory available now (accel::getAvailableMemory).
llvm::Error checkMemoryFootprint(const MemoryFootprint &footprint);

/// Compares the final HBM contents of two runs bit for bit: every page
/// written by either run must be identical (an unwritten page holds its
/// initial contents, which `initial` reproduces). Returns the first
/// differing byte address, or std::nullopt when identical.
std::optional<uint64_t>
compareHbm(const std::map<uint64_t, std::vector<uint8_t>> &a,
           const std::map<uint64_t, std::vector<uint8_t>> &b,
           const std::vector<isa::Buffer> &buffers);

} // namespace sim
} // namespace accel

#endif // ACCEL_SIM_MEMORY_H
