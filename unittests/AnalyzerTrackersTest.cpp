//===- AnalyzerTrackersTest.cpp - RangeMap, VMEM and dependency trackers --===//
//
// Unit tests of the analyzer's trackers (Analyzer.h): RangeMap, VmemTracker
// (SnR Fig. 8) and DependencyTracker (Fig. 9, conservative vs relaxed
// backtails).
//
// The timing and analyzer rules behind the expected values are in
// AnalyzerTestUtils.h.
//
//===----------------------------------------------------------------------===//

#include "AnalyzerTestUtils.h"

#include "accel/Profile/RangeMap.h"

#include <random>
#include <set>

using namespace accel;
using namespace accel::profile;
using namespace accel::test;
using isa::MemSpace;

namespace {

/// Values of the ranges of `m` overlapping [b, e), in address order.
std::vector<int64_t> overlaps(const RangeMap<int64_t> &m, uint64_t b,
                              uint64_t e) {
  std::vector<int64_t> out;
  m.forEachOverlap(b, e, [&](int64_t v) { out.push_back(v); });
  return out;
}
using V = std::vector<int64_t>;

sim::AddrRange vmemRange(uint64_t b, uint64_t e) {
  return {MemSpace::VMEM, b, e};
}
sim::AddrRange hbmRange(uint64_t b, uint64_t e) {
  return {MemSpace::HBM, b, e};
}

//===----------------------------------------------------------------------===//
// RangeMap
//===----------------------------------------------------------------------===//

TEST(RangeMapTest, AssignOverwriteSplit) {
  RangeMap<int64_t> m;
  EXPECT_TRUE(m.empty());
  EXPECT_EQ(overlaps(m, 0, 1000), V{});
  m.assign(5, 5, 9);  // empty: no-op
  m.assign(10, 5, 9); // reversed: no-op
  EXPECT_TRUE(m.empty());

  // [0,100)=1, then [20,40)=2 splits it: [0,20)=1 [20,40)=2 [40,100)=1.
  m.assign(0, 100, 1);
  m.assign(20, 40, 2);
  EXPECT_FALSE(m.empty());
  EXPECT_EQ(overlaps(m, 0, 100), (V{1, 2, 1}));
  EXPECT_EQ(overlaps(m, 10, 50), (V{1, 2, 1}));
  EXPECT_EQ(overlaps(m, 19, 20), (V{1})); // last byte of the left part
  EXPECT_EQ(overlaps(m, 20, 21), (V{2})); // first byte of the middle
  EXPECT_EQ(overlaps(m, 39, 40), (V{2}));
  EXPECT_EQ(overlaps(m, 40, 41), (V{1})); // first byte of the right part
  EXPECT_EQ(overlaps(m, 20, 40), (V{2}));
  EXPECT_EQ(overlaps(m, 99, 100), (V{1}));
  EXPECT_EQ(overlaps(m, 100, 200), V{}); // past the end

  // [10,60)=3 overwrites all of 2 and parts of both 1s:
  // [0,10)=1 [10,60)=3 [60,100)=1.
  m.assign(10, 60, 3);
  EXPECT_EQ(overlaps(m, 0, 100), (V{1, 3, 1}));
  EXPECT_EQ(overlaps(m, 9, 10), (V{1}));
  EXPECT_EQ(overlaps(m, 10, 11), (V{3}));
  EXPECT_EQ(overlaps(m, 59, 61), (V{3, 1}));
  // Exactly the same range: replaced, no split: [10,60)=4.
  m.assign(10, 60, 4);
  EXPECT_EQ(overlaps(m, 0, 100), (V{1, 4, 1}));

  // A disjoint range leaves a gap [100,150).
  m.assign(150, 200, 5);
  EXPECT_EQ(overlaps(m, 90, 160), (V{1, 5}));
  EXPECT_EQ(overlaps(m, 100, 150), V{});
  EXPECT_EQ(overlaps(m, 0, 1000), (V{1, 4, 1, 5}));

  // [5,170)=6 covers the gap, 4, the right 1 and the start of 5:
  // [0,5)=1 [5,170)=6 [170,200)=5.
  m.assign(5, 170, 6);
  EXPECT_EQ(overlaps(m, 0, 1000), (V{1, 6, 5}));
  EXPECT_EQ(overlaps(m, 169, 170), (V{6}));
  EXPECT_EQ(overlaps(m, 170, 171), (V{5}));

  // Adjacent: [200,210)=7 right after [170,200)=5.
  m.assign(200, 210, 7);
  EXPECT_EQ(overlaps(m, 199, 201), (V{5, 7}));
  EXPECT_EQ(overlaps(m, 210, 300), V{});

  // Split of the first range only on its left: [0,3)=8 [3,5)=1.
  m.assign(0, 3, 8);
  EXPECT_EQ(overlaps(m, 0, 6), (V{8, 1, 6}));
  EXPECT_EQ(overlaps(m, 0, 1000), (V{8, 1, 6, 5, 7}));
}

/// Ranges across chunk boundaries (RangeMap::kChunkBytes): each chunk keeps
/// its own pieces, so a range is reported once per chunk it overlaps, and
/// queries see exactly the last value of every byte.
TEST(RangeMapTest, AcrossChunks) {
  constexpr uint64_t C = RangeMap<int64_t>::kChunkBytes;
  RangeMap<int64_t> m;
  // [C-10, 2C+10)=1 spans three chunks: one piece in each.
  m.assign(C - 10, 2 * C + 10, 1);
  EXPECT_EQ(overlaps(m, 0, 4 * C), (V{1, 1, 1}));
  EXPECT_EQ(overlaps(m, C - 11, C - 10), V{});
  EXPECT_EQ(overlaps(m, C - 10, C - 9), (V{1}));
  EXPECT_EQ(overlaps(m, 2 * C + 9, 2 * C + 10), (V{1}));
  EXPECT_EQ(overlaps(m, 2 * C + 10, 3 * C), V{});
  // A whole chunk overwritten collapses to one piece: [C, 2C)=2.
  m.assign(C, 2 * C, 2);
  EXPECT_EQ(overlaps(m, 0, 4 * C), (V{1, 2, 1}));
  // Rows of a strided tile: 8 rows of 512 bytes, 1 KiB apart, from chunk 5
  // into chunk 6.
  for (int64_t r = 0; r < 8; ++r)
    m.assign(5 * C + r * 1024, 5 * C + r * 1024 + 512, 10 + r);
  EXPECT_EQ(overlaps(m, 5 * C, 7 * C), (V{10, 11, 12, 13, 14, 15, 16, 17}));
  EXPECT_EQ(overlaps(m, 5 * C + 512, 5 * C + 1024), V{}); // a gap
  // One write over rows 1..3 and the gaps between them.
  m.assign(5 * C + 1024 + 100, 5 * C + 3 * 1024 + 100, 20);
  EXPECT_EQ(overlaps(m, 5 * C, 7 * C), (V{10, 11, 20, 13, 14, 15, 16, 17}));
  EXPECT_EQ(overlaps(m, 5 * C + 1024, 5 * C + 1124), (V{11}));
  EXPECT_EQ(overlaps(m, 5 * C + 3 * 1024 + 100, 5 * C + 3 * 1024 + 101),
            (V{13}));
  // Far addresses (a sparse 64-bit space).
  m.assign(uint64_t(1) << 40, (uint64_t(1) << 40) + 8, 30);
  EXPECT_EQ(overlaps(m, (uint64_t(1) << 40) - 1, (uint64_t(1) << 40) + 1),
            (V{30}));
}

/// Random assignments, rows in order (the append path), overwrites and
/// splits over four chunks, against one value per byte: every query sees
/// exactly the values of the bytes it covers.
TEST(RangeMapTest, MatchesAValuePerByte) {
  constexpr uint64_t C = RangeMap<int64_t>::kChunkBytes, kBytes = 4 * C;
  std::mt19937_64 rng(4096);
  for (int round = 0; round < 20; ++round) {
    RangeMap<int64_t> m;
    std::vector<int64_t> byte(kBytes, -1);
    auto assign = [&](uint64_t b, uint64_t e, int64_t v) {
      m.assign(b, e, v);
      for (uint64_t a = b; a < e; ++a)
        byte[a] = v;
    };
    for (int64_t v = 0; v < 200; ++v) {
      if (rng() % 3 == 0) { // a tile's rows, in order
        uint64_t rowBytes = 1 + rng() % 600, stride = rowBytes + rng() % 900;
        uint64_t at = rng() % kBytes;
        for (; at + rowBytes <= kBytes && rng() % 16; at += stride)
          assign(at, at + rowBytes, v);
      } else {
        uint64_t b = rng() % kBytes, e = b + 1 + rng() % (C + C / 2);
        assign(b, std::min(e, kBytes), v);
      }
      uint64_t b = rng() % kBytes, e = std::min(kBytes, b + 1 + rng() % C);
      std::set<int64_t> want, got;
      for (uint64_t a = b; a < e; ++a)
        if (byte[a] >= 0)
          want.insert(byte[a]);
      m.forEachOverlap(b, e, [&](int64_t x) { got.insert(x); });
      ASSERT_EQ(got, want) << "round " << round << ", after value " << v
                           << ", query [" << b << ", " << e << ")";
    }
  }
}

//===----------------------------------------------------------------------===//
// VmemTracker
//===----------------------------------------------------------------------===//

/// 16 pages of 1024 bytes. Lifetimes (live over [write, last read]):
///   page 3:     DMA op 7 writes the whole page at 1; a partial write by op 8
///               at 8 keeps it live (and counts as a use)     -> [1, 8]
///   pages 0-1:  DMA op 1 at 2; read [1000, 1100) at 15       -> [2, 15]
///   page 7:     read at 3, never written: no lifetime
///   pages 8-11: DMA op 3 at 5, never read, overwritten by DMA op 4 at 20
///               -> no lifetime, 4 x 1024 = 4096 wasted bytes of op 3;
///               then read at 22                              -> [20, 22]
///   page 5:     non-DMA op 2 at 12; read at 25 and 30        -> [12, 30]
///   page 14:    non-DMA op 5 at 30, never read: no lifetime, not wasted
///   page 15:    DMA op 6 at 35, never read: 1024 wasted bytes of op 6
void fillCraftedPattern(VmemTracker &v) {
  v.write(3072, 4096, 1, 7, true);
  v.write(0, 2048, 2, 1, true);
  v.read(7168, 7200, 3);
  v.write(8192, 12288, 5, 3, true);
  v.write(3072, 3100, 8, 8, false);
  v.write(5120, 6144, 12, 2, false);
  v.read(1000, 1100, 15);
  v.write(8192, 12288, 20, 4, true);
  v.read(8192, 12288, 22);
  v.read(5120, 5124, 25);
  v.read(6000, 6100, 30);
  v.write(14336, 15360, 30, 5, false);
  v.write(15360, 16384, 35, 6, true);
}

TEST(VmemTrackerTest, CraftedPatternBuckets) {
  VmemTracker v(16 * 1024, 1024);
  EXPECT_EQ(v.pageCount(), 16u);
  EXPECT_EQ(v.getPageBytes(), 1024u);
  fillCraftedPattern(v);
  // Before finish, only op 3's overwritten pages are known to be wasted.
  EXPECT_EQ(v.wastedBytes(), (std::map<uint32_t, uint64_t>{{3, 4096}}));
  v.finish();
  // Page 15 (op 6) is closed unread at the end; page 14 (op 5, not a DMA)
  // and the partially rewritten page 3 (op 7) are not wasted.
  EXPECT_EQ(v.wastedBytes(),
            (std::map<uint32_t, uint64_t>{{3, 4096}, {6, 1024}}));

  // Buckets of 10 cycles over [0, 40): 4 buckets; 4 blocks of 4 pages.
  std::vector<VmemTracker::Bucket> b = v.buckets(10, 40, 4);
  ASSERT_EQ(b.size(), 4u);
  // Bucket 0 [0,10): pages 0, 1 ([2,15]) and 3 ([1,8]): 3 used;
  // free 13/16; free runs: page 2 (1), pages 4..15 (12).
  EXPECT_EQ(b[0].start, 0u);
  EXPECT_EQ(b[0].usedPages, 3u);
  EXPECT_DOUBLE_EQ(b[0].freeFraction, 13.0 / 16.0);
  EXPECT_EQ(b[0].largestFreeRun, 12u);
  EXPECT_EQ(b[0].blockUsed, (std::vector<uint32_t>{3, 0, 0, 0}));
  // Bucket 1 [10,20): pages 0, 1 and 5 ([12,30]); runs 2..4 (3), 6..15 (10).
  EXPECT_EQ(b[1].start, 10u);
  EXPECT_EQ(b[1].usedPages, 3u);
  EXPECT_DOUBLE_EQ(b[1].freeFraction, 13.0 / 16.0);
  EXPECT_EQ(b[1].largestFreeRun, 10u);
  EXPECT_EQ(b[1].blockUsed, (std::vector<uint32_t>{2, 1, 0, 0}));
  // Bucket 2 [20,30): page 5 and pages 8..11 ([20,22]): 5 used, free 11/16;
  // runs 0..4 (5), 6..7 (2), 12..15 (4).
  EXPECT_EQ(b[2].start, 20u);
  EXPECT_EQ(b[2].usedPages, 5u);
  EXPECT_DOUBLE_EQ(b[2].freeFraction, 11.0 / 16.0);
  EXPECT_EQ(b[2].largestFreeRun, 5u);
  EXPECT_EQ(b[2].blockUsed, (std::vector<uint32_t>{0, 1, 4, 0}));
  // Bucket 3 [30,40): page 5 only (its last read at 30 starts the bucket);
  // pages 14 and 15 were never read: not live. Runs 0..4 (5), 6..15 (10).
  EXPECT_EQ(b[3].start, 30u);
  EXPECT_EQ(b[3].usedPages, 1u);
  EXPECT_DOUBLE_EQ(b[3].freeFraction, 15.0 / 16.0);
  EXPECT_EQ(b[3].largestFreeRun, 10u);
  EXPECT_EQ(b[3].blockUsed, (std::vector<uint32_t>{0, 1, 0, 0}));

  // Buckets of 20 cycles, 2 blocks of 8 pages.
  // [0,20): pages 0, 1, 3, 5 -> 4 used, blocks {4, 0}; run 6..15 (10).
  // [20,40): pages 5, 8..11 -> 5 used, blocks {1, 4}; runs 0..4 (5) max.
  std::vector<VmemTracker::Bucket> c = v.buckets(20, 40, 2);
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0].usedPages, 4u);
  EXPECT_EQ(c[0].largestFreeRun, 10u);
  EXPECT_EQ(c[0].blockUsed, (std::vector<uint32_t>{4, 0}));
  EXPECT_DOUBLE_EQ(c[0].freeFraction, 12.0 / 16.0);
  EXPECT_EQ(c[1].start, 20u);
  EXPECT_EQ(c[1].usedPages, 5u);
  EXPECT_EQ(c[1].largestFreeRun, 5u);
  EXPECT_EQ(c[1].blockUsed, (std::vector<uint32_t>{1, 4}));
}

// buckets() over more pages than one 64-bit word holds and a page count
// that is not a multiple of 64: free runs that cross word boundaries, the
// last partial word, and blocks of 200 / 3 = 66 pages (the last block takes
// the rest).
TEST(VmemTrackerTest, BucketsAcrossBitmapWords) {
  auto bucketOf = [](std::vector<uint64_t> pages) {
    VmemTracker v(200 * 1024, 1024);
    for (uint64_t p : pages) {
      v.write(p * 1024, p * 1024 + 4, 0, 1, true);
      v.read(p * 1024, p * 1024 + 4, 5);
    }
    v.finish();
    std::vector<VmemTracker::Bucket> b = v.buckets(10, 10, 3);
    EXPECT_EQ(b.size(), 1u);
    return b.front();
  };
  // Free runs 1..62 (62), 65..129 (65), 131..198 (68).
  VmemTracker::Bucket b = bucketOf({0, 63, 64, 130, 199});
  EXPECT_EQ(b.usedPages, 5u);
  EXPECT_EQ(b.largestFreeRun, 68u);
  EXPECT_EQ(b.blockUsed, (std::vector<uint32_t>{3, 1, 1}));
  EXPECT_DOUBLE_EQ(b.freeFraction, 195.0 / 200.0);
  // A run to the last page (6..199), through the padding of the last word.
  b = bucketOf({5});
  EXPECT_EQ(b.usedPages, 1u);
  EXPECT_EQ(b.largestFreeRun, 194u);
  EXPECT_EQ(b.blockUsed, (std::vector<uint32_t>{1, 0, 0}));
  // Pages 127 and 128 (two words), nothing else: runs 0..126 and 129..199.
  b = bucketOf({127, 128});
  EXPECT_EQ(b.largestFreeRun, 127u);
  EXPECT_EQ(b.blockUsed, (std::vector<uint32_t>{0, 2, 0}));
  // Nothing live: one run of every page.
  b = bucketOf({});
  EXPECT_EQ(b.usedPages, 0u);
  EXPECT_EQ(b.largestFreeRun, 200u);
}

TEST(VmemTrackerTest, MinFreeRunOverCycleRange) {
  VmemTracker v(16 * 1024, 1024);
  fillCraftedPattern(v);
  v.finish();
  std::vector<VmemTracker::Bucket> b = v.buckets(10, 40, 4);
  // Largest free runs per bucket: 12, 10, 5, 10.
  EXPECT_EQ(VmemTracker::minFreeRun(b, 10, 0, 40), 5u);   // all: min 5
  EXPECT_EQ(VmemTracker::minFreeRun(b, 10, 0, 10), 12u);  // bucket 0 only
  EXPECT_EQ(VmemTracker::minFreeRun(b, 10, 0, 11), 10u);  // buckets 0, 1
  EXPECT_EQ(VmemTracker::minFreeRun(b, 10, 9, 10), 12u);  // bucket 0
  EXPECT_EQ(VmemTracker::minFreeRun(b, 10, 15, 25), 5u);  // buckets 1, 2
  EXPECT_EQ(VmemTracker::minFreeRun(b, 10, 25, 30), 5u);  // bucket 2
  EXPECT_EQ(VmemTracker::minFreeRun(b, 10, 30, 31), 10u); // bucket 3
  EXPECT_EQ(VmemTracker::minFreeRun(b, 10, 10, 20), 10u); // bucket 1
  EXPECT_EQ(VmemTracker::minFreeRun({}, 10, 0, 40), 0u);
}

TEST(VmemTrackerTest, NonDmaDeadPageIsNotWasted) {
  VmemTracker v(4 * 1024, 1024);
  // Page 0: written by a VPU op (op 1) and rewritten unread: dead, but not
  // wasted DMA bytes. Page 1: written by DMA op 2, rewritten unread by DMA
  // op 3 (wasted 1024 for op 2), which is then read (not wasted).
  v.write(0, 1024, 0, 1, false);
  v.write(0, 1024, 5, 1, false);
  v.write(1024, 2048, 1, 2, true);
  v.write(1024, 2048, 6, 3, true);
  v.read(1024, 1028, 7);
  v.finish();
  EXPECT_EQ(v.wastedBytes(), (std::map<uint32_t, uint64_t>{{2, 1024}}));
  // Only page 1's second lifetime [6, 7] is live: bucket [0,10) uses 1
  // page; runs: page 0 (1), pages 2..3 (2).
  std::vector<VmemTracker::Bucket> b = v.buckets(10, 10, 1);
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b[0].usedPages, 1u);
  EXPECT_EQ(b[0].largestFreeRun, 2u);
  EXPECT_EQ(b[0].blockUsed, (std::vector<uint32_t>{1}));
}

namespace {
/// VmemTracker's page semantics written out per page and per cycle, as
/// the reference for unused() and buckets(): a write covering a page
/// starts a lifetime (a partial one to a live page counts as a read for
/// `Bucket`, not a use); a read of a live page uses it; a page is used at
/// cycle c when a used lifetime has start <= c <= its last use.
struct PageModel {
  struct Life {
    uint64_t start, lastRead, lastUse;
    bool read = false, used = false;
  };
  uint64_t pageBytes;
  std::vector<std::vector<Life>> lives; ///< per page, the last one live
  std::vector<bool> live;
  PageModel(uint64_t pages, uint64_t pageBytes)
      : pageBytes(pageBytes), lives(pages), live(pages, false) {}
  void write(uint64_t b, uint64_t e, uint64_t c) {
    for (uint64_t p = b / pageBytes; p <= (e - 1) / pageBytes; ++p) {
      bool covers = b <= p * pageBytes && e >= (p + 1) * pageBytes;
      if (live[p] && !covers) {
        lives[p].back().lastRead = std::max(lives[p].back().lastRead, c);
        lives[p].back().read = true;
        continue;
      }
      lives[p].push_back({c, c, c});
      live[p] = true;
    }
  }
  void read(uint64_t b, uint64_t e, uint64_t c) {
    for (uint64_t p = b / pageBytes; p <= (e - 1) / pageBytes; ++p) {
      if (!live[p])
        continue;
      Life &l = lives[p].back();
      l.lastRead = std::max(l.lastRead, c);
      l.lastUse = std::max(l.lastUse, c);
      l.read = l.used = true;
    }
  }
  bool usedAt(uint64_t p, uint64_t c) const {
    for (const Life &l : lives[p])
      if (l.used && l.start <= c && c <= l.lastUse)
        return true;
    return false;
  }
};

/// Expects `v.unused(bucket, total)` (after finish()) to be the per-cycle
/// sums and lower medians of `ref`'s pages, bucket by bucket.
/// Returns the cycles unused() skipped.
uint64_t expectUnusedMatches(const VmemTracker &v, const PageModel &ref,
                             uint64_t pages, uint64_t total, uint64_t bucket,
                             int trial) {
  VmemTracker::UnusedSeries u = v.unused(bucket, total);
  uint64_t n = (total + bucket - 1) / bucket;
  EXPECT_EQ(u.unusedFraction.size(), n);
  if (u.unusedFraction.size() != n)
    return 0;
  std::vector<uint64_t> freeSum(n, 0), runSum(n, 0), freeAt, runAt;
  for (uint64_t c = 0; c < total; ++c) {
    uint64_t free = 0, run = 0, longest = 0;
    for (uint64_t p = 0; p < pages; ++p) {
      bool f = !ref.usedAt(p, c);
      free += f;
      run = f ? run + 1 : 0;
      longest = std::max(longest, run);
    }
    freeSum[c / bucket] += free;
    runSum[c / bucket] += longest;
    freeAt.push_back(free);
    runAt.push_back(longest);
  }
  for (uint64_t k = 0; k < n; ++k) {
    double width = double(std::min(bucket, total - k * bucket)) * pages;
    EXPECT_DOUBLE_EQ(u.unusedFraction[k], double(freeSum[k]) / width)
        << "trial " << trial << " bucket " << k;
    EXPECT_DOUBLE_EQ(u.largestRunFraction[k], double(runSum[k]) / width)
        << "trial " << trial << " bucket " << k;
  }
  // The medians over cycles: the lower median, the value at index
  // (total - 1) / 2 of the sorted per-cycle values.
  llvm::sort(freeAt);
  llvm::sort(runAt);
  EXPECT_DOUBLE_EQ(u.medianUnusedFraction,
                   double(freeAt[(total - 1) / 2]) / double(pages))
      << "trial " << trial;
  EXPECT_DOUBLE_EQ(u.medianLargestRunFraction,
                   double(runAt[(total - 1) / 2]) / double(pages))
      << "trial " << trial;
  return u.skippedCycles;
}
} // namespace

// unused() and buckets() against the per-cycle reference on random tiles
// of several pages written, read in whole or in part and overwritten in
// part, with accesses sometimes out of cycle order (DMA completions): the
// pages of a tile are kept as one lifetime only when they end alike
// (issue 34), which must not change a number.
// A VMEM of 12 pages (one word of the free-run bitmap), one of 150
// (three words, the last partial; tiles up to 70 pages cross words) and
// one of 1000 (16 words: a tree of 4 levels above them, whose updates stop
// at the first node that does not change).
TEST(VmemTrackerTest, UnusedMatchesPerCycleReference) {
  std::mt19937_64 rng(34);
  for (int trial = 0; trial < 350; ++trial) {
    const uint64_t pages = trial < 200   ? 12
                           : trial < 300 ? 150
                                         : 1000,
                   pageBytes = 64, total = 120, bucket = 16;
    const uint64_t maxTile = trial < 200 ? 4 : 70;
    VmemTracker v(pages * pageBytes, pageBytes);
    PageModel ref(pages, pageBytes);
    uint64_t cycle = 0;
    for (int op = 0; op < 40; ++op) {
      cycle += rng() % 4;
      uint64_t at = rng() % 8 == 0 && cycle > 5 ? cycle - rng() % 5 : cycle;
      uint64_t tile = 1 + rng() % maxTile; // pages
      uint64_t first = rng() % (pages - tile + 1);
      uint64_t b = first * pageBytes, e = (first + tile) * pageBytes;
      if (tile > 1 && rng() % 3 == 0) { // a part: page-aligned or not
        b += (rng() % 2) * pageBytes + (rng() % 2) * 8;
        e -= (rng() % 2) * 40;
      }
      if (rng() % 2) {
        v.write(b, e, at, 1, rng() % 2);
        ref.write(b, e, at);
      } else {
        v.read(b, e, at);
        ref.read(b, e, at);
      }
    }
    v.finish();
    expectUnusedMatches(v, ref, pages, total, bucket, trial);
    uint64_t n = (total + bucket - 1) / bucket;
    // buckets(): a page is used in a bucket when a lifetime read before
    // its next write is live at some cycle of it, [start, last read]
    // (partial overwrites count as reads).
    std::vector<VmemTracker::Bucket> bk = v.buckets(bucket, total, 0);
    ASSERT_EQ(bk.size(), n);
    for (uint64_t k = 0; k < n; ++k) {
      uint64_t used = 0, run = 0, longest = 0;
      for (uint64_t p = 0; p < pages; ++p) {
        bool u = llvm::any_of(ref.lives[p], [&](const PageModel::Life &l) {
          return l.read && std::min(n - 1, l.start / bucket) <= k &&
                 k <= std::min(n - 1, l.lastRead / bucket);
        });
        used += u;
        run = u ? 0 : run + 1;
        longest = std::max(longest, run);
      }
      EXPECT_EQ(bk[k].usedPages, used) << "trial " << trial << " bucket " << k;
      EXPECT_EQ(bk[k].largestFreeRun, longest)
          << "trial " << trial << " bucket " << k;
    }
  }
}

// unused() with repeat hints (addRepeatHint) against the per-cycle
// reference: a random loop body (tiles written, read, partly overwritten,
// some accesses out of cycle order) repeated every D cycles, after a
// prologue that leaves tiles live across the loop (read in it, or not,
// and after it) and before an epilogue, half of the loops disturbed by a
// few other accesses among their periods; hints right (the loop's start and
// D), off by a few cycles, a multiple or a fraction of D, or past the
// end. Whatever the hint, every number is the reference's: a hint only
// says where unused() may try to skip periods.
TEST(VmemTrackerTest, UnusedWithRepeatHintsMatchesReference) {
  std::mt19937_64 rng(3434);
  int skipped = 0;
  for (int trial = 0; trial < 1000; ++trial) {
    const uint64_t pages = trial % 3 == 0 ? 150 : 12, pageBytes = 64;
    const uint64_t maxTile = pages == 12 ? 4 : 40;
    VmemTracker hinted(pages * pageBytes, pageBytes),
        plain(pages * pageBytes, pageBytes);
    PageModel ref(pages, pageBytes);
    struct Access {
      uint64_t b, e, at;
      bool write;
    };
    auto randomAccess = [&](uint64_t at) {
      uint64_t tile = 1 + rng() % maxTile;
      uint64_t first = rng() % (pages - tile + 1);
      uint64_t b = first * pageBytes, e = (first + tile) * pageBytes;
      if (tile > 1 && rng() % 4 == 0) {
        b += (rng() % 2) * pageBytes;
        e -= (rng() % 2) * 40;
      }
      return Access{b, e, at, rng() % 2 == 0};
    };
    auto apply = [&](const Access &a) {
      for (VmemTracker *v : {&hinted, &plain}) {
        if (a.write)
          v->write(a.b, a.e, a.at, 1, false);
        else
          v->read(a.b, a.e, a.at);
      }
      if (a.write)
        ref.write(a.b, a.e, a.at);
      else
        ref.read(a.b, a.e, a.at);
    };
    uint64_t cycle = 0;
    for (int k = 0, n = int(rng() % 6); k < n; ++k)
      apply(randomAccess(cycle += 1 + rng() % 3));
    // The body: offsets within a period of D cycles.
    const uint64_t period = 4 + rng() % 12;
    std::vector<Access> body;
    for (int k = 0, n = 1 + int(rng() % 6); k < n; ++k)
      body.push_back(randomAccess(rng() % period));
    llvm::sort(body,
               [](const Access &a, const Access &b) { return a.at < b.at; });
    if (rng() % 4 == 0 && body.size() > 1) // out of cycle order
      std::swap(body[0], body[1]);
    const uint64_t loopStart = cycle + 1 + rng() % 3;
    const uint64_t trips = 3 + rng() % 25;
    std::vector<Access> loop;
    for (uint64_t j = 0; j < trips; ++j)
      for (Access a : body) {
        a.at += loopStart + j * period;
        loop.push_back(a);
      }
    // Half the loops are disturbed: a few accesses of other tiles at
    // random cycles among the periods (a lifetime read once more, a tile
    // overwritten), so that the periods around them do not repeat.
    if (rng() % 2)
      for (int k = 0, n = 1 + int(rng() % 3); k < n; ++k) {
        // Mostly among the first periods, where the hints are tried.
        uint64_t span = rng() % 3 ? std::min<uint64_t>(trips, 4) : trips;
        Access a = randomAccess(loopStart + rng() % (span * period));
        if (rng() % 2) { // a body tile read once more
          const Access &t = body[rng() % body.size()];
          a.b = t.b;
          a.e = t.e;
          a.write = false;
        }
        auto at = llvm::upper_bound(
            loop, a.at, [](uint64_t c, const Access &b) { return c < b.at; });
        loop.insert(at, a);
      }
    for (const Access &a : loop)
      apply(a);
    cycle = loopStart + trips * period;
    for (int k = 0, n = int(rng() % 5); k < n; ++k)
      apply(randomAccess(cycle += 1 + rng() % 3));
    const uint64_t total = cycle + 1 + rng() % 10, bucket = 1 + rng() % 16;
    switch (rng() % 6) {
    case 0: // several hints, one of them right
      hinted.addRepeatHint(loopStart + rng() % 3, period);
      hinted.addRepeatHint(loopStart + period, period);
      break;
    case 1:
      hinted.addRepeatHint(loopStart + rng() % period, period + rng() % 2);
      break;
    case 2:
      hinted.addRepeatHint(loopStart, 2 * period);
      break;
    case 3:
      hinted.addRepeatHint(loopStart + period * (rng() % trips),
                           period / 2 + 1);
      break;
    case 4:
      hinted.addRepeatHint(total + rng() % 5, period);
      break;
    default:
      hinted.addRepeatHint(loopStart + rng() % (2 * period), period);
      break;
    }
    hinted.finish();
    plain.finish();
    if (expectUnusedMatches(hinted, ref, pages, total, bucket, trial))
      ++skipped;
    EXPECT_EQ(expectUnusedMatches(plain, ref, pages, total, bucket, trial), 0u);
  }
  // Most trials skip some periods (a body whose tiles stay live across
  // periods in ways that do not repeat skips none).
  EXPECT_GT(skipped, 300);
}

// A lifetime 2^33 cycles long (its end kept apart from the 24-byte entry)
// counts over all of it, beside a short one: per bucket of 2^32 cycles,
// the used page-cycles are worked out by hand.
// VmemTracker's repeat runs driven directly (as the Analyzer does): random
// loop bodies whose tiles live across periods (read before they are
// written again: a period's changes reach back), are partly overwritten
// and read in parts (unmerged lifetimes), or are never read (no lifetime);
// two periods logged, then some periods not fed but made by applyRepeats
// (most of them kept as a segment), then the rest of the loop and an
// epilogue fed. Every lifetime, the unused series and the buckets are
// those of a tracker fed every access.
TEST(VmemTrackerTest, RepeatRunsKeepEveryLifetime) {
  std::mt19937_64 rng(3535);
  unsigned withSegments = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const uint64_t pages = 16, pageBytes = 64;
    VmemTracker plain(pages * pageBytes, pageBytes),
        runs(pages * pageBytes, pageBytes);
    struct Access {
      uint64_t b, e, at;
      bool write;
    };
    std::vector<Access> body;
    const uint64_t period = 8 + rng() % 8;
    for (int k = 0, n = 2 + int(rng() % 6); k < n; ++k) {
      uint64_t tile = 1 + rng() % 3, first = rng() % (pages - tile + 1);
      uint64_t b = first * pageBytes, e = (first + tile) * pageBytes;
      if (tile > 1 && rng() % 3 == 0) { // a page of it
        uint64_t p = first + rng() % tile;
        b = p * pageBytes;
        e = b + pageBytes;
      }
      body.push_back({b, e, rng() % period, rng() % 2 == 0});
    }
    llvm::sort(body,
               [](const Access &a, const Access &b) { return a.at < b.at; });
    auto feed = [&](VmemTracker &v, const Access &a, uint64_t base) {
      if (a.write)
        v.write(a.b, a.e, base + a.at, 1, false);
      else
        v.read(a.b, a.e, base + a.at);
    };
    // A prologue that fills every page, read or not in the loop.
    bool byDma = rng() % 2;
    for (VmemTracker *v : {&plain, &runs})
      v->write(0, pages * pageBytes, 0, 1, byDma);
    const uint64_t loopAt = 5, trips = 12 + rng() % 40;
    std::optional<VmemTracker::PeriodRecord> prev, tmpl;
    for (uint64_t t = 0; t < trips; ++t) {
      uint64_t base = loopAt + t * period;
      for (const Access &a : body)
        feed(plain, a, base);
      if (t == 0)
        runs.startLog();
      for (const Access &a : body)
        feed(runs, a, base);
      if (tmpl || t > 3)
        continue;
      VmemTracker::PeriodRecord cur = runs.closePeriod();
      cur.minAt = base + body.front().at;
      if (prev && runs.repeats(*prev, cur, period)) {
        runs.stopLog();
        tmpl = std::move(cur);
        // The next `skip` periods: made, not fed (the plain tracker is).
        uint64_t skip = std::min<uint64_t>(trips - t - 1, 3 + rng() % trips);
        runs.applyRepeats(*tmpl, period, skip);
        for (uint64_t q = 1; q <= skip; ++q)
          for (const Access &a : body)
            feed(plain, a, loopAt + (t + q) * period);
        t += skip;
        continue;
      }
      prev = std::move(cur);
    }
    if (!tmpl)
      runs.stopLog();
    uint64_t end = loopAt + trips * period;
    for (int k = 0, n = int(rng() % 4); k < n; ++k) {
      uint64_t p = rng() % pages;
      for (VmemTracker *v : {&plain, &runs})
        v->read(p * pageBytes, (p + 1) * pageBytes, end + uint64_t(k));
    }
    plain.finish();
    runs.finish();
    using L =
        std::tuple<uint64_t, uint64_t, uint64_t, uint32_t, uint32_t, bool>;
    auto lifetimes = [](const VmemTracker &v) {
      std::vector<L> out;
      v.forEachLifetime(
          [&](uint64_t s, uint64_t e, uint64_t u, uint32_t p, uint32_t n,
              bool used) { out.emplace_back(s, e, u, p, n, used); });
      llvm::sort(out);
      return out;
    };
    ASSERT_EQ(lifetimes(runs), lifetimes(plain)) << "trial " << trial;
    uint64_t total = end + 10, bucket = 1 + rng() % 20;
    VmemTracker::UnusedSeries a = runs.unused(bucket, total),
                              b = plain.unused(bucket, total);
    EXPECT_EQ(a.unusedFraction, b.unusedFraction) << "trial " << trial;
    EXPECT_EQ(a.largestRunFraction, b.largestRunFraction) << trial;
    EXPECT_EQ(a.medianUnusedFraction, b.medianUnusedFraction) << trial;
    std::vector<VmemTracker::Bucket> x = runs.buckets(bucket, total, 4),
                                     y = plain.buckets(bucket, total, 4);
    ASSERT_EQ(x.size(), y.size());
    for (size_t k = 0; k < x.size(); ++k) {
      EXPECT_EQ(x[k].usedPages, y[k].usedPages) << trial << " " << k;
      EXPECT_EQ(x[k].largestFreeRun, y[k].largestFreeRun) << trial;
      EXPECT_EQ(x[k].blockUsed, y[k].blockUsed) << trial;
    }
    EXPECT_EQ(runs.wastedBytes(), plain.wastedBytes()) << trial;
    withSegments += runs.getUnstored() != 0;
  }
  // Many bodies repeat and leave segments (else this tests little).
  EXPECT_GE(withSegments, 60u);
}

TEST(VmemTrackerTest, LifetimesLongerThan2To32Cycles) {
  const uint64_t k32 = uint64_t(1) << 32;
  VmemTracker v(4 * 64, 64);
  v.write(0, 128, 10, 1, false); // pages 0 and 1, read at 2^33 + 10
  v.write(128, 192, 100, 2, false);
  v.read(128, 192, 200); // page 2, used over [100, 200]
  v.read(0, 128, 2 * k32 + 10);
  v.finish();
  VmemTracker::UnusedSeries u = v.unused(k32, 4 * k32);
  ASSERT_EQ(u.unusedFraction.size(), 4u);
  double width = 4.0 * double(k32);
  double used[4] = {2.0 * double(k32 - 10) + 101, 2.0 * double(k32), 2.0 * 11,
                    0};
  for (int k = 0; k < 4; ++k)
    EXPECT_DOUBLE_EQ(u.unusedFraction[k], 1.0 - used[k] / width) << k;
}

//===----------------------------------------------------------------------===//
// DependencyTracker
//===----------------------------------------------------------------------===//

TEST(DependencyTrackerTest, DirectCalls) {
  DependencyTracker t;
  // 0: vfill writes VMEM [0,64) (reads register 2).
  t.instruction(0, vfill(2, 1, 16, 16, 1.0f), {2}, {}, {}, {vmemRange(0, 64)});
  // 1, 2: li r1, kOut; li r2, 0.
  t.instruction(1, li(1, kOut), {}, {1}, {}, {});
  t.instruction(2, li(2, 0), {}, {2}, {}, {});
  // 3: DMA 0, VMEM [0,64) -> HBM [kOut, kOut+64).
  //    conservative: max(writer r2 = 2, writer r1 = 1, source writer 0) = 2;
  //    relaxed: the li chains do not bind; source writer 0 -> 0.
  t.instruction(3,
                dmaIssue(5, 2, 1, MemSpace::VMEM, MemSpace::HBM, 1, 16, 16, 16),
                {2, 1}, {5}, {vmemRange(0, 64)}, {hbmRange(kOut, kOut + 64)},
                /*dmaId=*/0, /*onlyAtWait=*/true);
  // 4: WAIT on DMA 0: HBM [kOut, kOut+64) now counts as produced by 4.
  t.dmaWait(4, 0);
  t.instruction(4, dmaWait(5), {5}, {}, {}, {});
  // 5: li r6, kB; 6: addi r7, r1, 32 (a lightweight chain from li r1).
  t.instruction(5, li(6, kB), {}, {6}, {}, {});
  t.instruction(6, addi(7, 1, 32), {1}, {7}, {}, {});
  // 7: DMA 1, HBM [kOut+32, kOut+96) -> VMEM [kB, kB+64): its source
  //    overlaps DMA 0's destination (produced by WAIT 4).
  //    conservative: max(r7 = 6, r6 = 5, 4) = 6; relaxed: max(none, 4) = 4.
  t.instruction(
      7, dmaIssue(8, 7, 6, MemSpace::HBM, MemSpace::VMEM, 1, 16, 16, 16),
      {7, 6}, {8}, {hbmRange(kOut + 32, kOut + 96)}, {vmemRange(kB, kB + 64)});
  // 8: a second WAIT on DMA 0, and a WAIT on an unknown id: no effect
  //    (the destination stays produced by the first WAIT, 4).
  t.dmaWait(8, 0);
  t.dmaWait(8, 99);
  t.instruction(8, dmaWait(5), {5}, {}, {}, {});
  // 9: DMA, HBM [kOut, kOut+64) -> VMEM [0,64), addresses r1 and r0 (r0
  //    never binds). Source writer 4; destination writer 0, reader 3.
  //    conservative: max(r1 = 1, 4, 0, 3) = 4; relaxed: max(none, 4) = 4.
  t.instruction(9,
                dmaIssue(9, 1, 0, MemSpace::HBM, MemSpace::VMEM, 1, 16, 16, 16),
                {1, 0}, {9}, {hbmRange(kOut, kOut + 64)}, {vmemRange(0, 64)});

  const std::vector<DmaDependence> &d = t.dmas();
  ASSERT_EQ(d.size(), 3u);
  EXPECT_EQ(d[0].index, 3u);
  EXPECT_EQ(d[0].conservative, std::optional<uint64_t>(2));
  EXPECT_EQ(d[0].relaxed, std::optional<uint64_t>(0));
  EXPECT_EQ(d[1].index, 7u);
  EXPECT_EQ(d[1].conservative, std::optional<uint64_t>(6));
  EXPECT_EQ(d[1].relaxed, std::optional<uint64_t>(4));
  EXPECT_EQ(d[2].index, 9u);
  EXPECT_EQ(d[2].conservative, std::optional<uint64_t>(4));
  EXPECT_EQ(d[2].relaxed, std::optional<uint64_t>(4));
  // Which input binds: the li of r2 (address); the vfill's bytes (source);
  // r7's addi (address), WAIT 4's bytes (source); source both times.
  using Via = DmaDependence::Via;
  EXPECT_EQ(d[0].conservativeVia, Via::Address);
  EXPECT_EQ(d[0].relaxedVia, Via::Source);
  EXPECT_EQ(d[1].conservativeVia, Via::Address);
  EXPECT_EQ(d[1].relaxedVia, Via::Source);
  EXPECT_EQ(d[2].conservativeVia, Via::Source);
  EXPECT_EQ(d[2].relaxedVia, Via::Source);
  // Only the first WAIT on DMA 0 completes it.
  EXPECT_EQ(t.dmaWaitedAt(4), std::optional<uint32_t>(0));
  EXPECT_EQ(t.dmaWaitedAt(8), std::nullopt);
  EXPECT_EQ(t.dmaWaitedAt(0), std::nullopt);
}

/// The same address on two chips is two memories: a remote DMA writing
/// chip 1's VMEM [0,64) does not depend on chip 0's readers of its own
/// VMEM [0,64). Its chip register comes from an sld of bytes DMA 0 brought,
/// so the relaxed model binds it at DMA 0's WAIT through the address (the
/// setup-group dependence of SnR §5.2.1, Fig. 5).
TEST(DependencyTrackerTest, ChipsDoNotAliasAndLoadedAddressesBind) {
  DependencyTracker t;
  sim::AddrRange chip0{MemSpace::VMEM, 0, 64, 0};
  sim::AddrRange chip1{MemSpace::VMEM, 0, 64, 1};
  sim::AddrRange table{MemSpace::HBM, kA, kA + 64, 0};
  sim::AddrRange shard{MemSpace::VMEM, 64, 128, 0};
  // 0: DMA 0, HBM table -> chip 0 VMEM [0,64); 1: its WAIT.
  t.instruction(0,
                dmaIssue(5, 1, 0, MemSpace::HBM, MemSpace::VMEM, 1, 16, 16, 16),
                {1}, {5}, {table}, {chip0}, /*dmaId=*/0, /*onlyAtWait=*/true);
  t.dmaWait(1, 0);
  t.instruction(1, dmaWait(5), {5}, {}, {}, {});
  // 2: sld r3 <- chip 0 VMEM [0,4): a peer's chip id from the table.
  t.instruction(2, sld(3, 0, 0), {0}, {3}, {{MemSpace::VMEM, 0, 4, 0}}, {});
  // 3: DMA 1, chip 0 VMEM [64,128) -> chip 1 VMEM [0,64), chip from r3.
  t.instruction(
      3, dmaIssue(6, 4, 0, MemSpace::VMEM, MemSpace::VMEM, 1, 16, 16, 16),
      {4, 0, 3}, {6}, {shard}, {chip1}, /*dmaId=*/1);
  // 4: DMA 2 overwrites chip 0 VMEM [0,64), which the sld (2) read last.
  t.instruction(4,
                dmaIssue(7, 0, 0, MemSpace::HBM, MemSpace::VMEM, 1, 16, 16, 16),
                {0}, {7}, {table}, {chip0});

  using Via = DmaDependence::Via;
  const std::vector<DmaDependence> &d = t.dmas();
  ASSERT_EQ(d.size(), 3u);
  EXPECT_EQ(d[0].conservative, std::nullopt);
  EXPECT_EQ(d[0].relaxed, std::nullopt);
  // DMA 1: conservative at the sld (writer of r3); relaxed at the WAIT the
  // sld's bytes came from, which completed DMA 0. Had chips aliased, the
  // sld's read of chip 0's [0,4) would bind both at 2 via the destination.
  EXPECT_EQ(d[1].conservative, std::optional<uint64_t>(2));
  EXPECT_EQ(d[1].conservativeVia, Via::Address);
  EXPECT_EQ(d[1].relaxed, std::optional<uint64_t>(1));
  EXPECT_EQ(d[1].relaxedVia, Via::Address);
  EXPECT_EQ(t.dmaWaitedAt(*d[1].relaxed), std::optional<uint32_t>(0));
  // DMA 2: its destination's last reader, the sld, in both models.
  EXPECT_EQ(d[2].conservative, std::optional<uint64_t>(2));
  EXPECT_EQ(d[2].conservativeVia, Via::Destination);
  EXPECT_EQ(d[2].relaxed, std::optional<uint64_t>(2));
  EXPECT_EQ(d[2].relaxedVia, Via::Destination);
}

/// A DMA whose destination is the source of an earlier DMA: the earlier DMA
/// reads its source until it completes (the simulator faults an access to
/// it before its WAIT as a data race), so both models must bind the second
/// ISSUE at the first DMA's WAIT, and the two DMAs are not independent (no
/// "parallelize", no hoist across the WAIT).
TEST(DependencyTrackerTest, DmaOverwritingAnotherDmasSourceBindsAtItsWait) {
  sim::MachineConfig config = configFrom(kConfig, kConfigName);
  isa::Program p = makeProgram({
      {li(1, kX), 1},                  // 0  c0
      {li(2, kA), 1},                  // 1  c1
      {li(3, kOut), 1},                // 2  c2
      {vfill(2, 1, 16, 16, 1.0f), 40}, // 3  c3, VPU [3, 12): a[0,64) = 1
      // 4  DMA 0 a -> out: reads a, which the vfill writes: issues at 12;
      //    complete 12 + 100 + 1 = 113.
      {dmaIssue(5, 2, 3, MemSpace::VMEM, MemSpace::HBM, 1, 16, 16, 16), 41},
      {dmaWait(5), 42}, // 5  ready 13: stall base 99 + transfer 1; at 113
      // 6  DMA 1 x -> a at 114: overwrites DMA 0's source.
      {dmaIssue(6, 1, 2, MemSpace::HBM, MemSpace::VMEM, 1, 16, 16, 16), 43},
      {dmaWait(6), 44}, // 7  ready 115: stall base 99 + transfer 1; at 215
      {halt(), 45},     // 8  c216
  });
  auto a = analyze(p, config);
  ASSERT_TRUE(a->ok);
  EXPECT_EQ(u64(a->m["total_cycles"]), 217u);
  // Evidence that DMA 1 depends on DMA 0's completion: issued before the
  // WAIT at pc 5, the program faults with a data race.
  isa::Program early = p;
  std::swap(early.code[5], early.code[6]);
  std::swap(early.origins[5], early.origins[6]);
  sim::Simulator sim(config, early);
  auto r = sim.run();
  ASSERT_FALSE(bool(r));
  EXPECT_NE(llvm::toString(r.takeError()).find("data race"), std::string::npos);

  const std::vector<DmaDependence> &d = a->analyzer->getDependencies().dmas();
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[1].index, 6u);
  EXPECT_TRUE(suggestionsFor(a->m, "parallelize", 43).empty());
  // Destination a: last writer the vfill (3), last reader DMA 0, whose read
  // lasts until its WAIT (5): both models bind at 5.
  EXPECT_EQ(d[1].conservative, std::optional<uint64_t>(5));
  EXPECT_EQ(d[1].relaxed, std::optional<uint64_t>(5));
  EXPECT_TRUE(suggestionsFor(a->m, "parallelize", 43).empty());
  // The WAIT issues at 113 (done 114), DMA 1 at 114: push limit 0 < stall
  // 100: no hoist either.
  EXPECT_EQ(u64(a->m["dmas"][1]["push_limit"]), 0u);
  EXPECT_TRUE(suggestionsFor(a->m, "hoist", 43).empty());
}

/// A DMA that signals a semaphore completes by the sem.wait that consumes
/// its signal, with no WAIT: a later DMA reading its destination binds at
/// its ISSUE (through the source), not at nothing.
TEST(DependencyTrackerTest, SignalledDmaBindsAtItsIssue) {
  sim::MachineConfig config = configFrom(kConfig, kConfigName);
  isa::Inst signalled =
      dmaIssue(5, 1, 2, MemSpace::HBM, MemSpace::VMEM, 1, 16, 16, 16);
  signalled.flags |= isa::kFlagSignal; // semaphore 0 of this chip
  isa::Program p = makeProgram({
      {li(1, kX), 1},     // 0
      {li(2, kA), 1},     // 1
      {li(3, kOut), 1},   // 2
      {li(4, 1), 1},      // 3  one signal
      {signalled, 2},     // 4  DMA 0: x -> a, signals semaphore 0
      {semWait(0, 4), 3}, // 5  until it completes
      // 6  DMA 1: a -> out, reading what DMA 0 wrote.
      {dmaIssue(6, 2, 3, MemSpace::VMEM, MemSpace::HBM, 1, 16, 16, 16), 4},
      {dmaWait(6), 5}, // 7
      {halt(), 6},     // 8
  });
  auto a = analyze(p, config);
  ASSERT_TRUE(a->ok);
  const std::vector<DmaDependence> &d = a->analyzer->getDependencies().dmas();
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[1].index, 6u);
  // Conservative: the latest of r2 (li, 1), r3 (li, 2) and the source's
  // writer, DMA 0's ISSUE (4); relaxed: the li chains do not bind.
  EXPECT_EQ(d[1].conservative, std::optional<uint64_t>(4));
  EXPECT_EQ(d[1].conservativeVia, DmaDependence::Via::Source);
  EXPECT_EQ(d[1].relaxed, std::optional<uint64_t>(4));
  EXPECT_EQ(d[1].relaxedVia, DmaDependence::Via::Source);
}

//===----------------------------------------------------------------------===//

} // namespace

//===----------------------------------------------------------------------===//
// InstCycles
//===----------------------------------------------------------------------===//

/// Issue and result cycles come back exactly: across 2^32 (the high bits
/// change at one index, and again), out of order (a replayed window may
/// hand over any cycles), with a result 2^32 or more cycles after its issue
/// and one before it.
TEST(InstCyclesTest, RoundTripsEveryCycle) {
  std::vector<std::pair<uint64_t, uint64_t>> in = {
      {0, 1},
      {5, 9},
      {0xFFFFFFFEull, 0xFFFFFFFFull},
      {0xFFFFFFFFull, 0x100000003ull}, // the result past 2^32
      {0x100000000ull, 0x100000001ull},
      {0x100000002ull, 0x100000002ull + (uint64_t(1) << 32)}, // wide
      {0x100000005ull, 0x100000004ull}, // before its issue
      {7, 8},                           // out of order
      {uint64_t(3) << 40, (uint64_t(3) << 40) + 12},
      {(uint64_t(3) << 40) + 1, UINT64_MAX}};
  InstCycles c;
  for (auto [issue, done] : in)
    c.push(issue, done);
  ASSERT_EQ(c.size(), in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    EXPECT_EQ(c.issue(i), in[i].first) << i;
    EXPECT_EQ(c.done(i), in[i].second) << i;
  }
}

/// Busy intervals read back as written (as LEB128 numbers, the last one
/// unencoded): gaps from 0 to past 2^32, an interval starting before the
/// previous one ends (kept apart), lengths and op ids up to 2^32 - 1 (5
/// bytes), merges of contiguous work of one op, before and after the grown
/// interval is encoded, and startOf.
TEST(BusyTrackTest, RoundTripsIntervals) {
  const uint64_t k32 = uint64_t(1) << 32;
  std::vector<Analyzer::Busy> in = {{5, 10, 1},
                                    {15, 3, 2},           // gap 0
                                    {15 + 3 + k32, 7, 2}, // gap 2^32
                                    {100 + 2 * k32, 1, 3},
                                    {90 + 2 * k32, 4, 3}, // before the end
                                    {1000 + 2 * k32, UINT32_MAX, 4}};
  Analyzer::BusyTrack t;
  for (const Analyzer::Busy &b : in)
    t.add(b.start, b.length, b.opId);
  // Contiguous work of the last op grows its interval.
  uint64_t lastEnd = in.back().end();
  EXPECT_FALSE(t.extends(lastEnd, 4)); // at 2^32 - 1 cycles: full
  t.add(lastEnd, 6, 4);
  EXPECT_TRUE(t.extends(lastEnd + 6, 4));
  EXPECT_FALSE(t.extends(lastEnd + 6, 5));
  EXPECT_FALSE(t.extends(lastEnd + 7, 4));
  t.grow(2);
  in.push_back({lastEnd, 8, 4});
  // The grown interval is encoded when the next one comes.
  t.add(lastEnd + 8 + 200, 129, UINT32_MAX - 1);
  in.push_back({lastEnd + 8 + 200, 129, UINT32_MAX - 1});
  t.add(lastEnd + 8 + 200 + 129 + 16384, 1, 0);
  in.push_back({lastEnd + 8 + 200 + 129 + 16384, 1, 0});
  ASSERT_EQ(t.size(), in.size());
  size_t k = 0;
  for (const Analyzer::Busy b : t) {
    EXPECT_EQ(b.start, in[k].start) << k;
    EXPECT_EQ(b.length, in[k].length) << k;
    EXPECT_EQ(b.opId, in[k].opId) << k;
    EXPECT_EQ(t.startOf(k), in[k].start) << k;
    ++k;
  }
  EXPECT_EQ(k, in.size());
}

//===----------------------------------------------------------------------===//
// Per-PC byte ranges (Analyzer::PcRanges)
//===----------------------------------------------------------------------===//

namespace {
/// Forwards every event to `to`, with RetireEvent::fixedShapes cleared: the
/// analyzer then computes every instruction's ranges afresh.
struct WithoutFixedShapes : sim::Observer {
  explicit WithoutFixedShapes(sim::Observer &to) : to(to) {}
  void onRetire(const sim::RetireEvent &e) override {
    sim::RetireEvent copy = e;
    copy.fixedShapes = false;
    to.onRetire(copy);
  }
  void onDmaIssue(uint32_t pc, const sim::DmaTiming &d) override {
    to.onDmaIssue(pc, d);
  }
  void onDmaWait(const sim::WaitEvent &e) override { to.onDmaWait(e); }
  void onHalt(uint64_t cycles) override { to.onHalt(cycles); }
  sim::Observer &to;
};
} // namespace

TEST(AnalyzerTest, PerPcRangesFollowTheBases) {
  // A vpu.fill and a vpu.copy reading its tile walk a..c in 256-byte
  // tiles, 1 KiB apart (a page each), the copy's output at a fixed
  // address. The ranges an analyzer keeps per PC must follow the walking
  // bases: with and without them, the same metrics (each page written and
  // read is live for a while; with stale ranges only the first would be).
  isa::Program p = makeProgram({{li(1, kA), 1},
                                {li(2, kC + 3072), 2},
                                {li(3, kC + 3072), 3},
                                {vfill(1, 8, 8, 8, 1.0f), 4},
                                {vcopy(3, 1, 8, 8, 8, 8), 5},
                                {addi(1, 1, 1024), 6},
                                {blt(1, 2, 3), 7},
                                {halt(), 8}});
  sim::MachineConfig config = configFrom(kSixteenPageConfig, kConfigName);
  Analyzer fixed(p, config), plain(p, config);
  WithoutFixedShapes forward(plain);
  sim::Simulator sim(config, p);
  sim.addObserver(&fixed);
  sim.addObserver(&forward);
  auto r = sim.run();
  ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
  json a, b;
  AnalyzerOptions options;
  options.bucketCycles = 4;
  fixed.addToMetrics(a, nullptr, options);
  plain.addToMetrics(b, nullptr, options);
  ASSERT_TRUE(a.contains("vmem"));
  EXPECT_EQ(a.dump(), b.dump());
}

namespace {
/// Passes a run's events on to `targets`, each retire (and the end) from
/// instruction `from` on `delay` cycles later, and those before `until`
/// `early` cycles later: a stall in the middle of a loop, and accesses
/// before a loop that lie after its first ones (out of cycle order, as a
/// hand-built or replayed stream may have them).
struct Perturb : sim::Observer {
  std::vector<sim::Observer *> targets;
  uint64_t from = UINT64_MAX, delay = 0, until = 0, early = 0;
  void onRetire(const sim::RetireEvent &e) override {
    sim::RetireEvent x = e;
    uint64_t by = (x.index >= from ? delay : 0) + (x.index < until ? early : 0);
    x.issueCycle += by;
    x.unitStart += by;
    x.unitEnd += by;
    for (sim::Observer *t : targets)
      t->onRetire(x);
  }
  void onDmaIssue(uint32_t pc, const sim::DmaTiming &d) override {
    for (sim::Observer *t : targets)
      t->onDmaIssue(pc, d);
  }
  void onDmaInFlight(uint32_t pc, const sim::DmaTiming &d) override {
    for (sim::Observer *t : targets)
      t->onDmaInFlight(pc, d);
  }
  void onDmaWait(const sim::WaitEvent &e) override {
    for (sim::Observer *t : targets)
      t->onDmaWait(e);
  }
  void onHalt(uint64_t total) override {
    for (sim::Observer *t : targets)
      t->onHalt(total + delay + early);
  }
};

/// Every lifetime `a` kept, in order.
std::vector<std::tuple<uint64_t, uint64_t, uint64_t, uint32_t, uint32_t, bool>>
lifetimes(const Analyzer &a) {
  std::vector<
      std::tuple<uint64_t, uint64_t, uint64_t, uint32_t, uint32_t, bool>>
      out;
  a.getVmem().forEachLifetime(
      [&](uint64_t s, uint64_t e, uint64_t u, uint32_t p, uint32_t n,
          bool used) { out.emplace_back(s, e, u, p, n, used); });
  return out;
}
} // namespace

TEST(AnalyzerTest, RepeatRunsChangeNoMetric) {
  // Random loops over three 4 KiB VMEM tiles (whole-tile ops, half tiles,
  // columns: whole and partial page writes), some nested in an outer loop
  // that first DMAs a row from a moving HBM address, run once with two
  // analyzers attached: one taking repeat runs (the dataflow bound's and
  // VMEM's: Analyzer::setRepeatRuns), one not. Every metric the same.
  std::mt19937_64 rng(20261203);
  uint64_t total = 0, dataflowRepeated = 0, vmemRepeated = 0;
  unsigned seedsWithVmemRuns = 0, seedsUnstored = 0;
  for (int seed = 0; seed < 40; ++seed) {
    bool nested = rng() % 2;
    std::vector<Line> lines = {{li(1, kA), 1},
                               {li(2, kB), 2},
                               {li(3, kC), 3},
                               {li(4, 0), 4},
                               {li(5, 2 + rng() % 10), 5},
                               {li(7, 3 + rng() % 40), 6},
                               {li(8, kX), 7},
                               {vfill(1, 8, 128, 128, 1.0f), 8},
                               {vfill(2, 8, 128, 128, 0.5f), 9}};
    int64_t outer = int64_t(lines.size());
    if (nested) {
      lines.push_back(
          {dmaIssue(11, 8, 3, MemSpace::HBM, MemSpace::VMEM, 1, 64, 64, 64),
           10});
      lines.push_back({dmaWait(11), 11});
      lines.push_back({addi(8, 8, 256), 12});
    }
    lines.push_back({li(6, 0), 13});
    int64_t inner = int64_t(lines.size());
    unsigned ops = 2 + unsigned(rng() % 6);
    for (unsigned k = 0; k < ops; ++k) {
      uint8_t out = uint8_t(1 + rng() % 3), x = uint8_t(1 + rng() % 3),
              y = uint8_t(1 + rng() % 3);
      uint32_t op = 20 + k;
      switch (rng() % 5) {
      case 0:
        lines.push_back({vadd(out, x, y, 8, 128, 128, 128, 128), op});
        break;
      case 4: // two rows: one page of each tile, so its pages part ways
        lines.push_back({vcopy(out, x, 2, 128, 128, 128), op});
        break;
      case 1: // a column: partial writes to the tile's pages
        lines.push_back({vfill(out, 8, 1, 128, 2.0f), op});
        break;
      case 2: // half of each row
        lines.push_back({vcopy(out, x, 8, 64, 128, 128), op});
        break;
      default:
        lines.push_back(
            {vunary(isa::Opcode::VExp, out, x, 8, 128, 128, 128), op});
        break;
      }
    }
    if (rng() % 3 == 0) {
      // The loop's exit in the middle of its body: its runs end there,
      // part of a period in.
      lines.push_back({addi(6, 6, 1), 14});
      lines.insert(lines.begin() + inner + 1 + long(rng() % ops),
                   {bge(6, 7, int64_t(lines.size()) + 2), 19});
      lines.push_back({jmp(inner), 15});
    } else {
      lines.push_back({addi(6, 6, 1), 14});
      lines.push_back({blt(6, 7, inner), 15});
    }
    if (nested) {
      lines.push_back({addi(4, 4, 1), 16});
      lines.push_back({blt(4, 5, outer), 17});
    }
    lines.push_back({halt(), 18});
    isa::Program p = makeProgram(lines);
    sim::MachineConfig config = configFrom(kSixteenPageConfig, kConfigName);
    Analyzer runs(p, config), plain(p, config);
    plain.setRepeatRuns(false);
    Perturb perturb;
    perturb.targets = {&runs, &plain};
    if (rng() % 3 == 0) { // a stall in the middle of a run
      perturb.from = 60 + rng() % 300;
      perturb.delay = 1 + rng() % 40;
    }
    if (rng() % 3 == 0) { // the tiles' first fills after the loop's start
      perturb.until = 9;
      perturb.early = 20 + rng() % 400;
    }
    sim::Simulator sim(config, p);
    sim.addObserver(&perturb);
    auto r = sim.run();
    ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
    json a, b;
    AnalyzerOptions options;
    options.bucketCycles = 1 + rng() % 50;
    runs.addToMetrics(a, nullptr, options);
    plain.addToMetrics(b, nullptr, options);
    ASSERT_TRUE(a.contains("vmem"));
    EXPECT_EQ(a.dump(), b.dump()) << "seed " << seed;
    EXPECT_EQ(lifetimes(runs), lifetimes(plain)) << "seed " << seed;
    EXPECT_EQ(plain.getRepeatCounts().dataflow, 0u);
    EXPECT_EQ(plain.getRepeatCounts().vmem, 0u);
    total += r->instructions;
    dataflowRepeated += runs.getRepeatCounts().dataflow;
    vmemRepeated += runs.getRepeatCounts().vmem;
    seedsWithVmemRuns += runs.getRepeatCounts().vmem != 0;
    seedsUnstored += runs.getRepeatCounts().vmemUnstored != 0;
    EXPECT_EQ(plain.getRepeatCounts().vmemUnstored, 0u);
  }
  // Most instructions ran in repeat runs (else this tests little), and
  // many of those runs' lifetimes were not stored (segments; 21 seeds of
  // the 40 when written).
  EXPECT_GE(seedsWithVmemRuns, 30u);
  EXPECT_GE(seedsUnstored, 15u);
  EXPECT_GE(vmemRepeated * 2, total);
  EXPECT_GE(dataflowRepeated * 2, total);
}
