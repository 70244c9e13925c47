//===- MemoryTest.cpp - TileRef::overlaps, the exact strided-tile test ----===//
//
// Tiles are f32: byte address of row r = base + r * rowStride * 4, and a row
// covers cols * 4 bytes, half-open. Every expected value is worked out by
// hand in the comment beside it.
//
//===----------------------------------------------------------------------===//

#include "accel/Sim/Memory.h"
#include "accel/Support/BFloat16.h"

#include "TestPrograms.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/xxhash.h"

#include <gtest/gtest.h>

#include <random>
#include <set>

using namespace accel;
using namespace accel::sim;
using isa::MemSpace;

namespace {

TileRef hbm(uint64_t base, uint64_t rows, uint64_t cols, uint64_t stride) {
  return TileRef{MemSpace::HBM, base, rows, cols, stride};
}

/// Both orders must agree: overlap is symmetric.
void expectOverlap(const TileRef &a, const TileRef &b, bool expected) {
  EXPECT_EQ(a.overlaps(b), expected);
  EXPECT_EQ(b.overlaps(a), expected);
}

// The defect of issue 10: 128x128 tiles with row stride 512 elements (2048
// bytes). Columns 0..127 are bytes [0, 512) of each row, columns 128..255
// bytes [512, 1024). Spans: [0, 127*2048 + 512) = [0, 260608) and
// [512, 261120): they overlap, the rows never do.
TEST(TileOverlapTest, DisjointColumnsOfOneRowBand) {
  TileRef left = hbm(3211776, 128, 128, 512);
  TileRef right = hbm(3211776 + 512, 128, 128, 512);
  ASSERT_TRUE(left.span().overlaps(right.span()));
  EXPECT_EQ(left.span().end - left.span().begin, 260608u);
  expectOverlap(left, right, false);
  // Columns 127..254: the first column is column 127 of `left`.
  expectOverlap(left, hbm(3211776 + 508, 128, 128, 512), true);
}

// A tile that shares one row segment: the second tile's row 0 is the first
// tile's row 127 (byte 127 * 2048 = 260096), columns 64..191 against 0..127:
// bytes [260096 + 256, 260096 + 512) are shared.
TEST(TileOverlapTest, OneSharedRowSegment) {
  TileRef a = hbm(0, 128, 128, 512);
  expectOverlap(a, hbm(260096 + 256, 4, 128, 512), true);
  // One row further down (row 128 of the band): disjoint.
  expectOverlap(a, hbm(260096 + 2048, 4, 128, 512), false);
}

// Different strides. a: 1-element rows every 3 elements, bytes 0, 12, 24,
// 36 (4 rows). b: 1-element rows every 5 elements from byte 8: 8, 28, 48.
// No common element; with a fifth row (48), a meets b's row 2.
TEST(TileOverlapTest, InterleavedRowsWithDifferentStrides) {
  expectOverlap(hbm(0, 4, 1, 3), hbm(8, 3, 1, 5), false);
  expectOverlap(hbm(0, 5, 1, 3), hbm(8, 3, 1, 5), true);
  // a: 2-element rows [0,8) [32,40) [64,72) [96,104); b: from byte 16,
  // stride 16 elements: [16,24) [80,88) [144,152): all in a's gaps.
  expectOverlap(hbm(0, 4, 2, 8), hbm(16, 3, 2, 16), false);
  // b with stride 12 elements: [16,24) [64,72) [112,120): row 1 is a's row 2.
  expectOverlap(hbm(0, 4, 2, 8), hbm(16, 3, 2, 12), true);
}

// Equal strides, rows offset: a's rows [0,8) [64,72) [128,136); b from byte
// 40: [40,48) [104,112): between a's rows. From byte 60: [60,68) meets a's
// row 1 at bytes [64,68).
TEST(TileOverlapTest, EqualStridesOffsetRows) {
  expectOverlap(hbm(0, 3, 2, 16), hbm(40, 2, 2, 16), false);
  expectOverlap(hbm(0, 3, 2, 16), hbm(60, 2, 2, 16), true);
  // b entirely past a's last row (ends at 136): [136,144) touches it.
  expectOverlap(hbm(0, 3, 2, 16), hbm(136, 2, 2, 16), false);
}

// Stride 0: every row at `base`, bytes [0, 16) for 4 columns.
TEST(TileOverlapTest, StrideZeroAndOneRow) {
  TileRef broadcast = hbm(0, 8, 4, 0);
  expectOverlap(broadcast, hbm(16, 1, 4, 0), false); // touches at 16
  expectOverlap(broadcast, hbm(12, 1, 4, 0), true);  // byte 12..15
  // A 1-row tile ignores its stride: [508, 512) and [512, 1024).
  expectOverlap(hbm(0, 1, 128, 99999), hbm(512, 1, 128, 7), false);
  expectOverlap(hbm(4, 1, 127, 99999), hbm(0, 3, 2, 128), true); // [4,8)
  // A 1-row tile inside the gap of a strided one: rows [0,8) [512,520).
  expectOverlap(hbm(8, 1, 126, 0), hbm(0, 2, 2, 128), false);
}

// Half-open edges: a contiguous 4x8 tile is [0, 128).
TEST(TileOverlapTest, TouchingAtAnEdgeIsNotOverlap) {
  TileRef dense = hbm(0, 4, 8, 8);
  expectOverlap(dense, hbm(128, 2, 1, 100), false);
  expectOverlap(dense, hbm(124, 2, 1, 100), true);
  // Strided rows [0,16) [64,80): a tile in [16, 64) touches both.
  expectOverlap(hbm(0, 2, 4, 16), hbm(16, 1, 12, 0), false);
}

TEST(TileOverlapTest, SpacesAndEmptyTiles) {
  TileRef vmem{MemSpace::VMEM, 0, 4, 4, 4};
  expectOverlap(vmem, hbm(0, 4, 4, 4), false);
  expectOverlap(hbm(0, 0, 4, 4), hbm(0, 4, 4, 4), false);
  expectOverlap(hbm(0, 4, 0, 4), hbm(0, 4, 4, 4), false);
}

// Near the top of the address space the span's end wraps past 2^64 and
// cannot filter; the exact test still sees the shared row. a: rows at
// 2^64 - 4096 and 2^64 - 2048 (+ 2048 wraps), 64 bytes each.
TEST(TileOverlapTest, NoWrapNearTheTopOfTheAddressSpace) {
  uint64_t top = ~uint64_t(0) - 4095; // 2^64 - 4096
  TileRef a = hbm(top, 3, 16, 512);   // rows at top, top+2048, (top+4096)
  EXPECT_LT(a.span().end, a.span().begin); // wrapped
  expectOverlap(a, hbm(top + 2048 + 32, 1, 4, 0), true);
  expectOverlap(a, hbm(top + 64, 1, 4, 0), false);
  expectOverlap(a, hbm(0, 1, 4, 0), false); // row 2 is past 2^64, not at 0
}

// Against the definition, byte by byte, on small random tiles (every
// branch: equal strides, contiguous, stride 0, stride < cols, 1 row).
TEST(TileOverlapTest, AgreesWithByteSetsOnRandomTiles) {
  std::mt19937 rng(10);
  auto pick = [&](unsigned n) { return uint64_t(rng() % n); };
  auto bytes = [](const TileRef &t) {
    std::set<uint64_t> s;
    for (uint64_t r = 0; r < t.rows; ++r)
      for (uint64_t c = 0; c < t.cols * 4; ++c)
        s.insert(t.base + r * t.rowStride * 4 + c);
    return s;
  };
  unsigned overlapping = 0;
  for (int n = 0; n < 3000; ++n) {
    TileRef a = hbm(4 * pick(40), 1 + pick(5), 1 + pick(4), pick(9));
    TileRef b = hbm(4 * pick(40), 1 + pick(5), 1 + pick(4), pick(9));
    std::set<uint64_t> sa = bytes(a), sb = bytes(b);
    bool expected = llvm::any_of(sa, [&](uint64_t x) { return sb.count(x); });
    overlapping += expected;
    ASSERT_EQ(a.overlaps(b), expected)
        << a.base << " " << a.rows << "x" << a.cols << "/" << a.rowStride
        << " vs " << b.base << " " << b.rows << "x" << b.cols << "/"
        << b.rowStride;
  }
  // Both outcomes were exercised.
  EXPECT_GT(overlapping, 300u);
  EXPECT_LT(overlapping, 2700u);
}

} // namespace

namespace {
// Issue 12: an access whose end wraps past 2^64 (a trace's register of
// 2^64-1, an address computed as 0 - 1) read 0 bytes of coverage and then
// copied out of bounds. It is now an error, like any access outside the
// buffers; so is a buffer table whose base + bytes overflows.
TEST(MemoryBoundsTest, AccessesThatWrapAreErrors) {
  isa::Buffer v;
  v.name = "v";
  v.space = MemSpace::VMEM;
  v.base = 0;
  v.bytes = 4096;
  isa::Buffer h;
  h.name = "h";
  h.space = MemSpace::HBM;
  h.base = 65536;
  h.bytes = 4096;
  isa::Buffer huge = h;
  huge.name = "huge";
  huge.base = UINT64_MAX - 8; // base + bytes overflows
  Memory mem(4096, {v, h, huge}, /*initHbm=*/true);
  uint8_t buf[16] = {};
  for (MemSpace space : {MemSpace::VMEM, MemSpace::HBM}) {
    SCOPED_TRACE(int(space));
    llvm::Error e = mem.read(space, UINT64_MAX - 3, 8, buf);
    EXPECT_EQ(llvm::toString(std::move(e)).rfind("no buffer holds", 0), 0u);
    e = mem.install(space, UINT64_MAX, llvm::ArrayRef<uint8_t>(buf, 2));
    EXPECT_EQ(llvm::toString(std::move(e)).rfind("no buffer holds", 0), 0u);
  }
  // Inside the buffers: fine.
  EXPECT_FALSE(bool(mem.read(MemSpace::VMEM, 4080, 16, buf)));
  EXPECT_FALSE(bool(mem.read(MemSpace::HBM, 65536, 16, buf)));
  // One byte past VMEM's end.
  EXPECT_TRUE(bool(llvm::errorToBool(mem.read(MemSpace::VMEM, 4081, 16, buf))));
}
} // namespace

// Issue 12 (found by fuzz-trace under UBSan): a trace's empty memory chunk
// reached memcpy with a null source, which memcpy's contract forbids even
// for 0 bytes. Empty reads and installs do nothing.
TEST(MemoryBoundsTest, EmptyAccessesTouchNothing) {
  Memory m(8192, {test::vmemBuffer("v", 0, 4096),
                  test::hbmBuffer("h", 65536, 4096, /*seed=*/0)});
  for (MemSpace space : {MemSpace::VMEM, MemSpace::HBM}) {
    uint64_t at = space == MemSpace::VMEM ? 16 : 65536 + 16;
    EXPECT_FALSE(bool(m.install(space, at, llvm::ArrayRef<uint8_t>())));
    EXPECT_FALSE(bool(m.read(space, at, 0, nullptr)));
  }
  EXPECT_EQ(m.hbmResidentBytes(), 0u);
}

// ISA version 10: an HBM buffer of BufferInit::Data holds the image's bytes,
// also across a page boundary, and its neighbours keep their own contents.
TEST(MemoryInitTest, DataBuffersHoldTheirBytes) {
  const uint64_t page = Memory::kHbmPageBytes;
  std::vector<uint8_t> bytes(page + 64);
  for (size_t i = 0; i < bytes.size(); ++i)
    bytes[i] = uint8_t(i * 7 + 3);
  isa::Buffer c = test::hbmBuffer("@c", page - 32, bytes.size(), /*seed=*/0);
  c.init = isa::BufferInit::Data;
  c.data = std::make_shared<const std::vector<uint8_t>>(bytes);
  isa::Buffer r = test::hbmBuffer("%arg0", 3 * page, 64, /*seed=*/5);
  Memory m(4096, {c, r});
  std::vector<uint8_t> got(bytes.size());
  m.readHbm(c.base, got.data(), got.size());
  EXPECT_EQ(got, bytes);
  float first;
  m.readHbm(r.base, &first, 4);
  EXPECT_EQ(first, isa::initValue(5, 0));
}

namespace {
/// The initial bytes of HBM as the simulator has always defined them, page
/// by page: zeros, then each HBM buffer in address order writes every
/// element that lies wholly inside both the page and the buffer.
std::vector<uint8_t> referencePage(uint64_t page,
                                   std::vector<isa::Buffer> bufs) {
  const uint64_t kPage = Memory::kHbmPageBytes;
  std::vector<uint8_t> bytes(kPage, 0);
  std::stable_sort(bufs.begin(), bufs.end(),
                   [](const isa::Buffer &a, const isa::Buffer &b) {
                     return a.base < b.base;
                   });
  for (const isa::Buffer &b : bufs) {
    if (b.init == isa::BufferInit::Zero)
      continue;
    if (b.init == isa::BufferInit::Data) {
      for (uint64_t a = std::max(page, b.base);
           a < std::min(page + kPage, b.base + b.bytes); ++a)
        if (a - b.base < b.data->size())
          bytes[a - page] = (*b.data)[a - b.base];
      continue;
    }
    unsigned size = isa::getElemBytes(b.elemType);
    for (uint64_t i = 0; b.base + (i + 1) * size <= b.base + b.bytes; ++i) {
      uint64_t at = b.base + i * size;
      if (at < page || at + size > page + kPage)
        continue;
      uint8_t v[4];
      if (b.init == isa::BufferInit::Iota) {
        int32_t x = int32_t(i);
        std::memcpy(v, &x, 4);
      } else if (size == 2) {
        uint16_t x = f32ToBf16(isa::initValue(b.seed, i));
        std::memcpy(v, &x, 2);
      } else {
        float x = isa::initValue(b.seed, i);
        std::memcpy(v, &x, 4);
      }
      std::memcpy(&bytes[at - page], v, size);
    }
  }
  return bytes;
}

// HBM's initial bytes are made for the range a read asks for (issue 34: no
// image of the weights is kept). Any range must read as the same slice of
// the reference pages: f32 buffers aligned or not (an element across a
// page boundary stays zero), bf16, iota and data buffers, overlapping
// buffers, ranges that cut elements, and pages written in between (their
// own bytes).
TEST(MemoryInitTest, AnyRangeReadsAsTheSliceOfItsPages) {
  const uint64_t kPage = Memory::kHbmPageBytes;
  std::mt19937_64 rng(34);
  for (int table = 0; table < 40; ++table) {
    std::vector<isa::Buffer> bufs;
    uint64_t at = rng() % 64;
    for (int i = 0; i < 4; ++i) {
      isa::Buffer b = test::hbmBuffer("%arg" + std::to_string(i), at,
                                      1 + rng() % (3 * kPage), uint32_t(rng()));
      switch (rng() % 5) {
      case 0:
        b.elemType = isa::ElemType::BF16;
        break;
      case 1:
        b.init = isa::BufferInit::Iota;
        break;
      case 2: {
        b.init = isa::BufferInit::Data;
        std::vector<uint8_t> data(b.bytes - rng() % 8); // maybe short
        for (uint8_t &x : data)
          x = uint8_t(rng());
        b.data = std::make_shared<const std::vector<uint8_t>>(data);
        break;
      }
      case 3:
        b.init = isa::BufferInit::Zero;
        break;
      default:
        break;
      }
      // Aligned to the element mostly, sometimes not (a hand-built table).
      unsigned size = isa::getElemBytes(b.elemType);
      if (rng() % 4 && b.base % size)
        b.base += size - b.base % size;
      bufs.push_back(b);
      // The next one after it, or (one time in four) over its second part:
      // a later buffer's bytes win where they overlap.
      at = rng() % 4 ? b.base + b.bytes + rng() % 100
                     : b.base + size + rng() % b.bytes;
    }
    Memory m(4096, bufs);
    uint64_t end = at + kPage;
    std::map<uint64_t, std::vector<uint8_t>> pages;
    auto expected = [&](uint64_t a) -> uint8_t {
      uint64_t page = a & ~(kPage - 1);
      auto [it, inserted] = pages.try_emplace(page);
      if (inserted)
        it->second = referencePage(page, bufs);
      return it->second[a - page];
    };
    for (int read = 0; read < 30; ++read) {
      if (read == 15) { // a write: that page holds its own bytes from now on
        uint64_t w = rng() % end;
        uint8_t v = 0x5a;
        m.writeHbm(w, &v, 1);
        expected(w);
        pages[w & ~(kPage - 1)][w % kPage] = v;
      }
      uint64_t a = rng() % end, n = 1 + rng() % (kPage + 200);
      std::vector<uint8_t> got(n, 0xcd); // no byte may be left as it was
      m.readHbm(a, got.data(), n);
      for (uint64_t i = 0; i < n; ++i)
        ASSERT_EQ(got[i], expected(a + i))
            << "table " << table << ", byte " << a + i << " of a read of [" << a
            << ", " << a + n << ")";
    }
  }
}

// The result hash of an unwritten buffer is computed once per buffer table
// and shared (issue 34): it must equal
// the hash of its bytes read through the memory, for buffers that share
// pages with their neighbours, and after a neighbour's page was read first.
TEST(MemoryInitTest, UnwrittenBufferHashesAreTheirBytes) {
  const uint64_t page = Memory::kHbmPageBytes;
  for (bool readFirst : {false, true}) {
    // Other seeds for the second table: a fresh image, not the first's.
    uint32_t s = readFirst ? 10 : 0;
    isa::Buffer a = test::hbmBuffer("%arg0", 100, 3 * page + 12, s + 1);
    isa::Buffer z = test::hbmBuffer("%arg1", a.base + a.bytes, 40, 0,
                                    /*zero=*/true);
    isa::Buffer b = test::hbmBuffer("%arg2", z.base + z.bytes, page / 2, s + 2);
    isa::Buffer c = test::hbmBuffer("%arg3", 8 * page + 4, 2 * page, s + 3);
    Memory m(4096, {a, z, b, c});
    if (readFirst) { // b's first page, which a's last page also is
      float v;
      m.readHbm(b.base, &v, 4);
      EXPECT_EQ(v, isa::initValue(s + 2, 0));
    }
    for (const isa::Buffer &buf : {b, a, z, c}) {
      std::vector<uint8_t> bytes(buf.bytes);
      m.readHbm(buf.base, bytes.data(), bytes.size());
      EXPECT_EQ(m.hashHbm(buf.base, buf.bytes), llvm::xxh3_64bits(bytes))
          << buf.name << (readFirst ? ", b read first" : "");
      // A piece of it too, and a range over two buffers.
      EXPECT_EQ(
          m.hashHbm(buf.base + 4, buf.bytes - 8),
          llvm::xxh3_64bits(llvm::ArrayRef(bytes).slice(4, buf.bytes - 8)));
    }
    std::vector<uint8_t> both(a.bytes + z.bytes + b.bytes);
    m.readHbm(a.base, both.data(), both.size());
    EXPECT_EQ(m.hashHbm(a.base, both.size()), llvm::xxh3_64bits(both));
  }
}

// A buffer of many of the 64 KiB pieces the hash is fed in: its unwritten
// bytes (made a piece at a time) and, once a byte in its third MiB is
// written, its bytes read back, hash as all of them at once would.
TEST(MemoryInitTest, LargeBufferHashesAreTheirBytes) {
  isa::Buffer w = test::hbmBuffer("%w", 64, (5 << 20) / 2 + 12, 7);
  Memory m(4096, {w});
  std::vector<uint8_t> bytes(w.bytes);
  m.readHbm(w.base, bytes.data(), bytes.size());
  EXPECT_EQ(m.hashHbm(w.base, w.bytes), llvm::xxh3_64bits(bytes));
  uint8_t v = 0xa5;
  m.writeHbm(w.base + (2 << 20) + 3, &v, 1);
  bytes[(2 << 20) + 3] = v;
  EXPECT_EQ(m.hashHbm(w.base, w.bytes), llvm::xxh3_64bits(bytes));
}
} // namespace

namespace {
// Random f32 weights are made by a vector kernel per CPU (InitialHbm.cpp:
// AVX2's 32-bit multiplies, or the compiler's vectors of initValue): every
// element must equal initValue, at any index (indices where splitmix64's
// additions carry into the high words, up to 2^38) and for any seed
// (0 and 2^32 - 1 included), from any element of a read on, for lengths
// around the kernel's 8 elements per step.
TEST(MemoryInitTest, RandomWeightsAreInitValueAtAnyIndex) {
  std::mt19937_64 rng(3434);
  const uint64_t kBytes = uint64_t(1) << 40;
  for (uint32_t seed :
       {0u, 1u, 0xffffffffu, uint32_t(rng()), uint32_t(rng())}) {
    isa::Buffer w = test::hbmBuffer("%w", 0, kBytes, seed);
    Memory m(4096, {w});
    for (int read = 0; read < 40; ++read) {
      uint64_t first = read < 4 ? (uint64_t(1) << (30 + 2 * read)) - 5
                                : rng() % (kBytes / 4 - 100);
      size_t count = 1 + rng() % 40;
      std::vector<float> got(count);
      m.readHbm(4 * first, got.data(), 4 * count);
      for (size_t i = 0; i < count; ++i)
        ASSERT_EQ(got[i], isa::initValue(seed, first + i))
            << "seed " << seed << ", element " << first + i;
    }
  }
}
} // namespace
