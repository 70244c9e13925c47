//===- Memory.cpp - Simulated HBM and VMEM --------------------------------===//
//
// A chip's memories: VMEM, dense, and HBM, sparse pages initialized from
// the buffer table's initial bytes (InitialHbm.cpp); the accesses and copies of
// the simulator and the installs and reads of a replay, and the exact tile
// overlap test of its race and hazard checks. What they cost the host is
// MemoryFootprint.cpp.
//
//===----------------------------------------------------------------------===//

#include "accel/Sim/Memory.h"
#include "InitialHbm.h"
#include "accel/Support/BFloat16.h"

#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cstring>
#include <map>

using namespace accel;
using namespace accel::sim;

Memory::Memory(uint64_t vmemBytes, const std::vector<isa::Buffer> &bufs,
               bool initHbm, unsigned chip)
    : vmemBytes(vmemBytes), vmemExtent(getVmemExtent(vmemBytes, bufs)),
      initHbm(initHbm), buffers(bufs) {
  for (isa::Buffer &b : buffers)
    b.seed = isa::getChipSeed(b.seed, chip);
  std::sort(buffers.begin(), buffers.end(),
            [](const isa::Buffer &a, const isa::Buffer &b) {
              return std::make_pair(a.space, a.base) <
                     std::make_pair(b.space, b.base);
            });
  if (!initHbm)
    return;
  initialHashes = InitialHashes::get(buffers);
  for (const isa::Buffer &b : buffers)
    if (b.space == isa::MemSpace::HBM && b.init != isa::BufferInit::Zero) {
      initialHbm.push_back(b);
      initialHbmEnds.push_back(
          std::max(initialHbmEnds.empty() ? 0 : initialHbmEnds.back(),
                   llvm::SaturatingAdd(b.base, b.bytes)));
    }
}

/// The end of buffer `b` (base + bytes, saturated: a buffer table read from
/// a file may hold any numbers).
static uint64_t bufferEnd(const isa::Buffer &b) {
  return llvm::SaturatingAdd(b.base, b.bytes);
}

uint64_t Memory::getVmemExtent(uint64_t vmemBytes,
                               const std::vector<isa::Buffer> &buffers) {
  // Every VMEM access lies in a buffer and below vmemBytes (findBuffer,
  // accessible), so no address at or past this is ever touched.
  uint64_t end = 0;
  for (const isa::Buffer &b : buffers)
    if (b.space == isa::MemSpace::VMEM)
      end = std::max(end, bufferEnd(b));
  return std::min(end, vmemBytes);
}

llvm::Error Memory::allocateVmem() {
  if (vmem.data())
    return llvm::Error::success();
  // In huge pages: DMAs fill VMEM's buffers densely, and a page fault is
  // the costly part of a small run's first touch (about 12 us a 4 KiB page
  // on a 2-vCPU EPYC under Firecracker: 257 of the 1,070 faults of `run`
  // examples/prefetch.mlir).
  if (vmemExtent > SIZE_MAX ||
      !vmem.allocate(size_t(vmemExtent), /*huge=*/true))
    return llvm::createStringError(
        "cannot allocate %llu bytes of VMEM (the span of the program's VMEM "
        "buffers): out of memory",
        (unsigned long long)vmemExtent);
  return llvm::Error::success();
}

void Memory::allocateVmemOrDie() {
  if (llvm::Error e = allocateVmem())
    llvm::report_fatal_error(std::move(e));
}

const isa::Buffer *Memory::findBufferIn(const AddrRange &r) const {
  for (const isa::Buffer &b : buffers)
    if (holds(b, r))
      return &b;
  return nullptr;
}

void Memory::initialHbmBytes(uint64_t addr, uint64_t n, uint8_t *out) const {
  // The buffers that can hold bytes of [addr, addr + n): from the first
  // whose running maximum end passes addr to the last that starts before
  // addr + n (sorted by base: a program with thousands of constants reads
  // a row in O(log) of them, not all).
  auto first =
      std::upper_bound(initialHbmEnds.begin(), initialHbmEnds.end(), addr) -
      initialHbmEnds.begin();
  auto last =
      std::lower_bound(
          initialHbm.begin() + first, initialHbm.end(), addr + n,
          [](const isa::Buffer &b, uint64_t end) { return b.base < end; }) -
      initialHbm.begin();
  initBytes(addr, n,
            llvm::ArrayRef<isa::Buffer>(initialHbm).slice(first, last - first),
            out);
}

uint8_t *Memory::writableHbmPage(uint64_t pageAddr) {
  Page &slot = hbm[pageAddr];
  if (!slot.own) {
    slot.own = hbmPages.allocate();
    initialHbmBytes(pageAddr, kHbmPageBytes, slot.own);
  }
  return slot.own;
}

static llvm::Error noBuffer(isa::MemSpace space, uint64_t addr, uint64_t n) {
  return llvm::createStringError(
      "no buffer holds %s [%llu, %llu)", isa::memSpaceName(space).str().c_str(),
      (unsigned long long)addr,
      (unsigned long long)llvm::SaturatingAdd(addr, n));
}

/// Whether [b, e) is covered by buffers of `space` (adjacent buffers may
/// share it: coalesced ranges of a trace span them).
/// [b, b + n) must not wrap past 2^64 (Memory::read and install check).
static bool coveredByBuffers(const std::vector<isa::Buffer> &buffers,
                             isa::MemSpace space, uint64_t b, uint64_t e) {
  while (b < e) {
    const isa::Buffer *hit = nullptr;
    for (const isa::Buffer &buf : buffers)
      if (buf.space == space && b >= buf.base && b < bufferEnd(buf)) {
        hit = &buf;
        break;
      }
    if (!hit)
      return false;
    b = bufferEnd(*hit);
  }
  return true;
}

/// Whether [addr, addr + n) of `space` is memory a program may access: no
/// wrap past 2^64, covered by buffers, and (VMEM) inside VMEM.
static bool accessible(const std::vector<isa::Buffer> &buffers,
                       uint64_t vmemBytes, isa::MemSpace space, uint64_t addr,
                       uint64_t n) {
  if (n > UINT64_MAX - addr)
    return false;
  if (space == isa::MemSpace::VMEM && addr + n > vmemBytes)
    return false;
  return coveredByBuffers(buffers, space, addr, addr + n);
}

llvm::Error Memory::read(isa::MemSpace space, uint64_t addr, uint64_t n,
                         uint8_t *out) {
  if (!accessible(buffers, vmemBytes, space, addr, n))
    return noBuffer(space, addr, n);
  if (n == 0) // `out` may be null: memcpy's arguments may not
    return llvm::Error::success();
  if (space == isa::MemSpace::VMEM) {
    if (llvm::Error e = allocateVmem())
      return e;
    std::memcpy(out, vmem.data() + addr, n);
  } else {
    readHbm(addr, out, n);
  }
  return llvm::Error::success();
}

llvm::Error Memory::install(isa::MemSpace space, uint64_t addr,
                            llvm::ArrayRef<uint8_t> bytes) {
  if (!accessible(buffers, vmemBytes, space, addr, bytes.size()))
    return noBuffer(space, addr, bytes.size());
  if (bytes.empty()) // an empty chunk of a trace: data() may be null
    return llvm::Error::success();
  if (space == isa::MemSpace::VMEM) {
    if (llvm::Error e = allocateVmem())
      return e;
    std::memcpy(vmem.data() + addr, bytes.data(), bytes.size());
    return llvm::Error::success();
  }
  const uint8_t *src = bytes.data();
  uint64_t n = bytes.size();
  while (n) {
    uint64_t page = addr & ~(kHbmPageBytes - 1);
    uint64_t off = addr - page;
    uint64_t len = std::min(n, kHbmPageBytes - off);
    std::memcpy(writableHbmPage(page) + off, src, len);
    src += len, addr += len, n -= len;
  }
  return llvm::Error::success();
}

void Memory::readHbm(uint64_t addr, void *out, uint64_t n) {
  auto *dst = static_cast<uint8_t *>(out);
  while (n) {
    uint64_t page = addr & ~(kHbmPageBytes - 1);
    uint64_t off = addr - page;
    uint64_t len = std::min(n, kHbmPageBytes - off);
    auto it = hbm.find(page);
    if (it != hbm.end())
      std::memcpy(dst, it->second.own + off, len);
    else
      initialHbmBytes(addr, len, dst);
    dst += len, addr += len, n -= len;
  }
}

uint64_t Memory::hashHbm(uint64_t addr, uint64_t n) {
  bool written = false;
  for (uint64_t page = addr & ~(kHbmPageBytes - 1); page < addr + n && !written;
       page += kHbmPageBytes)
    written = hbm.count(page);
  if (!written && initialHashes)
    return initialHashes->initialHash(addr, n);
  return hashPieces(n, [&](uint64_t at, uint64_t len, uint8_t *out) {
    readHbm(addr + at, out, len);
  });
}

void Memory::writeHbm(uint64_t addr, const void *in, uint64_t n) {
  auto *src = static_cast<const uint8_t *>(in);
  while (n) {
    uint64_t page = addr & ~(kHbmPageBytes - 1);
    uint64_t off = addr - page;
    uint64_t len = std::min(n, kHbmPageBytes - off);
    std::memcpy(writableHbmPage(page) + off, src, len);
    hbm[page].dirty = true;
    src += len, addr += len, n -= len;
  }
}

namespace {
/// Wide enough for a 64-bit address plus rows * stride * 4 of 32-bit fields.
__extension__ typedef __int128 Int128;

/// A tile in bytes: `rows` rows of `width` bytes, `stride` bytes apart,
/// starting at `base`; rows == 1 when the rows form one contiguous range.
struct ByteTile {
  Int128 base, width, stride;
  uint64_t rows;
};

ByteTile toBytes(const TileRef &t) {
  ByteTile b{Int128(t.base), Int128(t.cols) * t.elemBytes,
             Int128(t.rowStride) * t.elemBytes, t.rows};
  // Rows that touch or repeat form one range: contiguous rows (stride ==
  // cols) or every row at the same place (stride 0, or a single row).
  if (b.rows <= 1 || b.stride == 0 || b.stride == b.width) {
    if (b.rows > 1 && b.stride != 0)
      b.width = b.stride * Int128(b.rows - 1) + b.width;
    b.rows = 1;
    b.stride = 0;
  }
  return b;
}

/// Floor division for a positive divisor.
Int128 floorDiv(Int128 a, Int128 d) {
  Int128 q = a / d;
  return (a % d != 0 && a < 0) ? q - 1 : q;
}

/// Whether some k in [kLo, kHi] has lo < k * stride < hi (stride > 0).
bool multipleInOpen(Int128 lo, Int128 hi, Int128 stride, Int128 kLo,
                    Int128 kHi) {
  // Smallest k with k * stride > lo.
  Int128 k = std::max(kLo, floorDiv(lo, stride) + 1);
  return k <= kHi && k * stride < hi;
}
} // namespace

bool TileRef::rowsOverlap(const TileRef &o) const {
  if (space != o.space || chip != o.chip || rows == 0 || cols == 0 ||
      o.rows == 0 || o.cols == 0)
    return false;
  // Beyond the exact test's range (no ISA tile is): assume they overlap.
  if ((rows | cols | rowStride | o.rows | o.cols | o.rowStride) >> 32)
    return true;
  // Every product below is under 2^67: no 128-bit value wraps.
  ByteTile a = toBytes(*this), b = toBytes(o);
  // Row i of a, [a.base + i*a.stride, + a.width), and row j of b intersect
  // iff  b.base + j*b.stride - (a.base + i*a.stride)  is in
  // (-b.width, a.width).
  if (a.stride == b.stride || a.rows == 1 || b.rows == 1) {
    if (a.rows == 1 && b.rows == 1)
      return b.base - a.base > -b.width && b.base - a.base < a.width;
    // With equal strides only k = j - i matters, k in [-(a.rows-1),
    // b.rows-1]; with one single row, the other's rows alone vary.
    Int128 d = b.base - a.base;
    if (a.rows == 1) // b's row j: j*b.stride in (-b.width - d, a.width - d)
      return multipleInOpen(-b.width - d, a.width - d, b.stride, 0,
                            Int128(b.rows) - 1);
    if (b.rows == 1) // a's row i: i*a.stride in (d - a.width, d + b.width)
      return multipleInOpen(d - a.width, d + b.width, a.stride, 0,
                            Int128(a.rows) - 1);
    return multipleInOpen(-b.width - d, a.width - d, a.stride,
                          -(Int128(a.rows) - 1), Int128(b.rows) - 1);
  }
  // Different strides: for each row of the tile with fewer rows, whether a
  // row of the other meets it.
  if (a.rows > b.rows)
    std::swap(a, b);
  for (uint64_t i = 0; i < a.rows; ++i) {
    Int128 d = b.base - (a.base + Int128(i) * a.stride);
    if (multipleInOpen(-b.width - d, a.width - d, b.stride, 0,
                       Int128(b.rows) - 1))
      return true;
  }
  return false;
}

void Memory::readBytes(isa::MemSpace space, uint64_t addr, void *out,
                       uint64_t n) {
  if (space == isa::MemSpace::VMEM)
    std::memcpy(out, vmemData() + addr, n);
  else
    readHbm(addr, out, n);
}

void Memory::writeBytes(isa::MemSpace space, uint64_t addr, const void *in,
                        uint64_t n) {
  if (space == isa::MemSpace::VMEM)
    std::memcpy(vmemData() + addr, in, n);
  else
    writeHbm(addr, in, n);
}

void Memory::copyTile(const TileRef &src, const TileRef &dst) {
  assert(src.rows == dst.rows && src.cols == dst.cols &&
         src.elemBytes == dst.elemBytes && "shapes differ");
  uint64_t rowBytes = src.rowBytes();
  auto srcRow = [&](uint64_t r) { return src.rowAddr(r); };
  auto dstRow = [&](uint64_t r) { return dst.rowAddr(r); };
  if (!src.overlaps(dst)) {
    // No element of the source is written: copy row by row, straight
    // between the memories unless both tiles are in HBM.
    copyRows(*this, src, dst);
    return;
  }
  // Overlapping tiles: stage the whole source first. Its span holds every
  // element (rows at their stride); the elements alone are fewer bytes when
  // the stride is at least the width. Either is at most the buffer.
  AddrRange span = src.span();
  uint64_t spanBytes = span.end - span.begin;
  uint64_t denseBytes = src.rows * rowBytes;
  bool useSpan = spanBytes < denseBytes;
  staging.resize(useSpan ? spanBytes : denseBytes);
  if (useSpan)
    readBytes(src.space, src.base, staging.data(), spanBytes);
  else
    for (uint64_t r = 0; r < src.rows; ++r)
      readBytes(src.space, srcRow(r), staging.data() + r * rowBytes, rowBytes);
  for (uint64_t r = 0; r < src.rows; ++r) {
    uint64_t at = useSpan ? srcRow(r) - src.base : r * rowBytes;
    writeBytes(dst.space, dstRow(r), staging.data() + at, rowBytes);
  }
}

void Memory::copyTileFrom(Memory &from, const TileRef &src,
                          const TileRef &dst) {
  assert(src.rows == dst.rows && src.cols == dst.cols &&
         src.elemBytes == dst.elemBytes && "shapes differ");
  assert(&from != this && "copyTileFrom within one memory: use copyTile");
  copyRows(from, src, dst);
}

void Memory::copyRows(Memory &from, const TileRef &src, const TileRef &dst) {
  uint64_t rowBytes = src.rowBytes();
  bool srcVmem = src.space == isa::MemSpace::VMEM,
       dstVmem = dst.space == isa::MemSpace::VMEM;
  if (!srcVmem && !dstVmem)
    staging.resize(rowBytes);
  for (uint64_t r = 0; r < src.rows; ++r) {
    uint64_t s = src.rowAddr(r), d = dst.rowAddr(r);
    if (dstVmem)
      from.readBytes(src.space, s, vmemData() + d, rowBytes);
    else if (srcVmem)
      writeHbm(d, from.vmemData() + s, rowBytes);
    else {
      from.readHbm(s, staging.data(), rowBytes);
      writeHbm(d, staging.data(), rowBytes);
    }
  }
}

void Memory::readTile(const TileRef &t, float *out) {
  std::vector<uint16_t> row(t.elemBytes == 2 ? t.cols : 0);
  for (uint64_t r = 0; r < t.rows; ++r) {
    float *o = out + r * t.cols;
    if (t.elemBytes != 2) {
      readBytes(t.space, t.rowAddr(r), o, t.rowBytes());
      continue;
    }
    readBytes(t.space, t.rowAddr(r), row.data(), t.rowBytes());
    widenBf16(row.data(), o, t.cols);
  }
}

void Memory::writeTile(const TileRef &t, const float *in) {
  std::vector<uint16_t> row(t.elemBytes == 2 ? t.cols : 0);
  for (uint64_t r = 0; r < t.rows; ++r) {
    const float *i = in + r * t.cols;
    if (t.elemBytes != 2) {
      writeBytes(t.space, t.rowAddr(r), i, t.rowBytes());
      continue;
    }
    narrowToBf16(i, row.data(), t.cols);
    writeBytes(t.space, t.rowAddr(r), row.data(), t.rowBytes());
  }
}

std::map<uint64_t, std::vector<uint8_t>> Memory::dirtyHbmPages() const {
  std::map<uint64_t, std::vector<uint8_t>> out;
  for (const auto &entry : hbm)
    if (entry.second.dirty)
      out[entry.first].assign(entry.second.own,
                              entry.second.own + kHbmPageBytes);
  return out;
}
