//===- BulkVectorTest.cpp - BulkVector keeps its elements as it grows -----===//
//
// BulkVector moves an array past kMapBytes from the heap into a mapping and
// then grows the mapping by moving its pages (issue 34). Each test checks
// every element against a std::vector given the same operations, across
// both moves.
//
//===----------------------------------------------------------------------===//

#include "accel/Support/BulkVector.h"

#include "gtest/gtest.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>
#ifdef __linux__
#include <sys/mman.h>
#include <unistd.h>
#endif

using namespace accel;

// Under AddressSanitizer, huge-page blocks are heap blocks of their own.
#if defined(__SANITIZE_ADDRESS__)
#define ACCEL_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ACCEL_TEST_ASAN 1
#endif
#endif

namespace {

struct Record {
  uint32_t a;
  uint16_t b;
  uint8_t c;
  bool operator==(const Record &o) const {
    return a == o.a && b == o.b && c == o.c;
  }
};

template <typename T>
void expectSame(const BulkVector<T> &got, const std::vector<T> &want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i)
    ASSERT_EQ(got[i], want[i]) << "element " << i;
}

// 40 MiB of 4-byte elements: the heap, the move into a mapping at 1 MiB,
// and five growths of the mapping (2, 4, 8, 16, 32, 64 MiB).
TEST(BulkVectorTest, PushBackKeepsEveryElementThroughEachGrowth) {
  BulkVector<uint32_t> v;
  std::vector<uint32_t> ref;
  std::mt19937 rng(7);
  size_t n = (size_t(40) << 20) / sizeof(uint32_t);
  bool sawMapped = false;
  for (size_t i = 0; i < n; ++i) {
    uint32_t x = uint32_t(rng());
    v.push_back(x);
    ref.push_back(x);
    sawMapped |= v.capacity() * sizeof(uint32_t) >= BulkVector<char>::kMapBytes;
  }
  EXPECT_TRUE(sawMapped);
  EXPECT_GE(v.capacity(), v.size());
  expectSame(v, ref);
  // Iteration sees the same elements as indexing.
  uint64_t sum = 0, refSum = 0;
  for (uint32_t x : v)
    sum += x;
  for (uint32_t x : ref)
    refSum += x;
  EXPECT_EQ(sum, refSum);
}

TEST(BulkVectorTest, EmplaceBackValueInitializes) {
  BulkVector<Record> v;
  std::vector<Record> ref;
  // Dirty the storage first: a cleared vector's old bytes must not show.
  for (int i = 0; i < 1000; ++i)
    v.push_back(Record{0xffffffffu, 0xffff, 0xff});
  v.clear();
  for (size_t i = 0; i < (size_t(3) << 20) / sizeof(Record); ++i) {
    Record &r = v.emplace_back();
    EXPECT_EQ(r, (Record{0, 0, 0}));
    r.a = uint32_t(i);
    ref.push_back(Record{uint32_t(i), 0, 0});
  }
  expectSame(v, ref);
}

TEST(BulkVectorTest, ResizeZeroesTruncateAndEraseKeepTheRest) {
  BulkVector<uint64_t> v;
  std::vector<uint64_t> ref;
  // Erasing from an array that never held storage (a null range; UBSan
  // caught the memmove of a null pointer here).
  llvm::erase_if(v, [](uint64_t) { return true; });
  EXPECT_TRUE(v.empty());
  EXPECT_EQ(v.erase(v.begin(), v.end()), v.end());
  for (uint64_t i = 0; i < 100; ++i) {
    v.push_back(~i);
    ref.push_back(~i);
  }
  v.truncate(50);
  ref.resize(50);
  // Growing past the mapping threshold: the new elements are zero even
  // where the heap block had held values.
  v.resize(300000);
  ref.resize(300000);
  expectSame(v, ref);
  v.resize_for_overwrite(300010);
  for (uint64_t i = 300000; i < 300010; ++i)
    v[i] = i * 3;
  for (uint64_t i = 300000; i < 300010; ++i)
    ref.push_back(i * 3);
  expectSame(v, ref);
  llvm::erase_if(v, [](uint64_t x) { return x % 2 == 1; });
  llvm::erase_if(ref, [](uint64_t x) { return x % 2 == 1; });
  expectSame(v, ref);
  v.pop_back();
  ref.pop_back();
  EXPECT_EQ(v.back(), ref.back());
  expectSame(v, ref);
}

TEST(BulkVectorTest, CopiesAreDeepAndMovesTransferTheMapping) {
  BulkVector<uint32_t> v;
  for (uint32_t i = 0; i < (3u << 20); ++i)
    v.push_back(i);
  BulkVector<uint32_t> copy = v;
  copy[5] = 99;
  EXPECT_EQ(v[5], 5u);
  EXPECT_EQ(copy.size(), v.size());
  EXPECT_EQ(copy[v.size() - 1], v.size() - 1);
  const uint32_t *data = v.data();
  BulkVector<uint32_t> moved = std::move(v);
  EXPECT_EQ(moved.data(), data);
  EXPECT_EQ(moved.size(), size_t(3u << 20));
  BulkVector<uint32_t> small;
  small.push_back(1);
  small = copy; // copy-assign over a heap block
  EXPECT_EQ(small.size(), copy.size());
  EXPECT_EQ(small[5], 99u);
  small = BulkVector<uint32_t>(); // move-assign an empty one
  EXPECT_TRUE(small.empty());
}

// A mapping's pages are populated ahead of the appends, kPopulateBytes at
// a time: the array's capacity (what push_back fills without a call out of
// line) stays within that much of its size, and the pages up to it are
// resident before they are written.
TEST(BulkVectorTest, MappingPagesArePopulatedAheadABoundedAmount) {
  using V = BulkVector<uint64_t>;
  V v;
  size_t ahead = V::kPopulateBytes / sizeof(uint64_t);
  size_t maxAhead = 0;
  // 24 MiB and a bit: the last element lands inside a populated chunk.
  for (uint64_t i = 0; i < (uint64_t(24) << 20) / sizeof(uint64_t) + 1000;
       ++i) {
    v.push_back(i * 7);
    if (v.size() * sizeof(uint64_t) > 2 * V::kMapBytes)
      maxAhead = std::max(maxAhead, v.capacity() - v.size());
  }
  for (uint64_t i = 0; i < v.size(); ++i)
    ASSERT_EQ(v[i], i * 7) << "element " << i;
  // At most one populated chunk ahead (and a page of rounding).
  EXPECT_LE(maxAhead, ahead + 4096 / sizeof(uint64_t));
  EXPECT_GE(maxAhead, ahead / 2);
#ifdef __linux__
  // The populated pages past the last element are resident already, where
  // the kernel has MADV_POPULATE_WRITE (Linux 5.14).
  size_t page = size_t(sysconf(_SC_PAGESIZE));
  uintptr_t first = (uintptr_t(v.data() + v.size()) + page - 1) / page * page;
  uintptr_t last = uintptr_t(v.data() + v.capacity()) / page * page;
  if (last <= first)
    GTEST_SKIP() << "no whole page populated past the last element";
  void *probe = mmap(nullptr, page, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(probe, MAP_FAILED);
  bool supported = madvise(probe, page, 23 /*MADV_POPULATE_WRITE*/) == 0;
  munmap(probe, page);
  if (!supported)
    GTEST_SKIP() << "the kernel has no MADV_POPULATE_WRITE";
  std::vector<unsigned char> resident((last - first) / page);
  ASSERT_EQ(
      mincore(reinterpret_cast<void *>(first), last - first, resident.data()),
      0);
  for (size_t k = 0; k < resident.size(); ++k)
    EXPECT_TRUE(resident[k] & 1) << "page " << k << " past the last element";
#endif
}

// A ZeroedArray holds zero bytes and, past kZeroMapBytes, touches none of
// its pages until they are used: a page-indexed table costs the pages a
// run writes (issue 34).
TEST(ZeroedArrayTest, StartsZeroAndUntouched) {
  struct Entry {
    uint64_t a;
    uint32_t b;
    bool c;
  };
  ZeroedArray<Entry> small(100); // calloc
  for (size_t i = 0; i < small.size(); ++i)
    ASSERT_TRUE(small[i].a == 0 && small[i].b == 0 && !small[i].c) << i;
  size_t n = (size_t(8) << 20) / sizeof(uint64_t); // 8 MiB: a mapping
  ZeroedArray<uint64_t> big(n);
  ASSERT_EQ(big.size(), n);
#ifdef __linux__
  size_t page = size_t(sysconf(_SC_PAGESIZE));
  auto resident = [&] {
    uintptr_t first = uintptr_t(&big[0]) / page * page;
    size_t pages = (uintptr_t(&big[0] + n) - first + page - 1) / page;
    std::vector<unsigned char> v(pages);
    EXPECT_EQ(mincore(reinterpret_cast<void *>(first), pages * page, v.data()),
              0);
    return size_t(llvm::count_if(v, [](unsigned char r) { return r & 1; }));
  };
  EXPECT_EQ(resident(), 0u) << "a new ZeroedArray's pages were touched";
  big[n / 2] = 42;
  EXPECT_EQ(resident(), 1u);
#endif
  for (size_t i = 0; i < n; i += 4099)
    ASSERT_EQ(big[i], i == n / 2 ? 42u : 0u) << i;
  ZeroedArray<uint64_t> moved = std::move(big);
  EXPECT_EQ(moved.size(), n);
  EXPECT_EQ(moved[n / 2], 42u);
}

// allocate() is Memory's way to report "cannot allocate VMEM" itself: a
// size whose bytes overflow size_t, or that no mapping can hold, is false
// and leaves no array; 0 elements is an array (data() not null); a later
// allocate() replaces the array with zeroes.
TEST(ZeroedArrayTest, AllocateReportsFailure) {
  ZeroedArray<uint64_t> a(16);
  a[3] = 7;
  EXPECT_FALSE(a.allocate(SIZE_MAX / sizeof(uint64_t) + 1)); // bytes overflow
  EXPECT_EQ(a.size(), 0u);
  EXPECT_EQ(a.data(), nullptr);
  EXPECT_FALSE(a.allocate(SIZE_MAX / sizeof(uint64_t))); // no mapping holds it
  EXPECT_EQ(a.size(), 0u);
  EXPECT_EQ(a.data(), nullptr);
  ASSERT_TRUE(a.allocate(0));
  EXPECT_NE(a.data(), nullptr);
  EXPECT_EQ(a.size(), 0u);
  ASSERT_TRUE(a.allocate(16));
  EXPECT_EQ(a.size(), 16u);
  EXPECT_EQ(a[3], 0u);
}

// allocate(n, /*huge=*/true) (VMEM's bytes): zero bytes, every one
// writable, on either side of the 64 KiB from which it is a huge-page
// mapping (2 MiB-aligned there, but under AddressSanitizer); a size no
// mapping holds is false and no array, as without `huge`.
TEST(ZeroedArrayTest, HugeIsZeroWritableAndReportsFailure) {
  constexpr size_t kHuge = size_t(2) << 20;
  for (size_t n : {size_t(0), size_t(1), (size_t(64) << 10) - 1,
                   size_t(64) << 10, kHuge, kHuge + 5, 5 * kHuge / 2}) {
    ZeroedArray<uint8_t> a;
    ASSERT_TRUE(a.allocate(n, /*huge=*/true)) << n;
    ASSERT_NE(a.data(), nullptr) << n;
    ASSERT_EQ(a.size(), n);
    for (size_t i = 0; i < n; i += 4093)
      ASSERT_EQ(a[i], 0u) << n << " " << i;
#if defined(__linux__) && !defined(ACCEL_TEST_ASAN)
    if (n >= (size_t(64) << 10)) {
      EXPECT_EQ(reinterpret_cast<uintptr_t>(a.data()) % kHuge, 0u) << n;
    }
#endif
    if (n) {
      std::memset(a.data(), 0x5a, n);
      EXPECT_EQ(a[n - 1], 0x5a);
    }
    ZeroedArray<uint8_t> moved = std::move(a);
    EXPECT_EQ(moved.size(), n);
    EXPECT_EQ(a.data(), nullptr);
  }
  ZeroedArray<uint64_t> b;
  EXPECT_FALSE(b.allocate(SIZE_MAX / sizeof(uint64_t), /*huge=*/true));
  EXPECT_EQ(b.data(), nullptr);
  EXPECT_EQ(b.size(), 0u);
  ASSERT_TRUE(b.allocate(16, /*huge=*/true));
  EXPECT_EQ(b[15], 0u);
}

// PageArena: 200 blocks of 64 KiB span four mappings (2, 4, 8 MiB and part
// of 16): each block is aligned to its size, distinct from every other and
// keeps its bytes while later blocks are made and after the arena moves.
TEST(PageArenaTest, BlocksAreDistinctAlignedAndKept) {
  constexpr size_t kBlock = size_t(64) << 10;
  PageArena arena(kBlock);
  EXPECT_EQ(arena.blockBytes(), kBlock);
  std::vector<uint8_t *> blocks;
  for (size_t i = 0; i < 200; ++i) {
    uint8_t *b = arena.allocate();
    ASSERT_EQ(reinterpret_cast<uintptr_t>(b) % kBlock, 0u) << i;
    std::memset(b, int(i), kBlock);
    blocks.push_back(b);
  }
  std::vector<uint8_t *> sorted = blocks;
  llvm::sort(sorted);
  for (size_t i = 1; i < sorted.size(); ++i)
    ASSERT_GE(sorted[i] - sorted[i - 1], ptrdiff_t(kBlock)) << i;
  PageArena moved = std::move(arena);
  uint8_t *more = moved.allocate();
  std::memset(more, 0xee, kBlock);
  for (size_t i = 0; i < blocks.size(); ++i)
    ASSERT_TRUE(blocks[i][0] == uint8_t(i) &&
                blocks[i][kBlock - 1] == uint8_t(i))
        << i;
}

TEST(HugeBlockTest, HoldsItsSizeWholeOnEitherSideOf2MiB) {
  constexpr size_t kHuge = size_t(2) << 20;
  for (size_t bytes : {size_t(0), size_t(1), kHuge - 1, kHuge, 5 * kHuge + 3}) {
    HugeBlock block(bytes);
    ASSERT_NE(block.data(), nullptr) << bytes;
    ASSERT_EQ(block.size(), bytes);
    if (bytes >= kHuge) { // a mapping of its own, 2 MiB-aligned
      EXPECT_EQ(reinterpret_cast<uintptr_t>(block.data()) % kHuge, 0u);
    }
    std::memset(block.data(), 0x5a, bytes); // every byte is writable
    if (bytes) {
      EXPECT_EQ(block.data()[bytes - 1], 0x5a);
    }
    HugeBlock moved = std::move(block);
    EXPECT_EQ(block.size(), 0u);
    EXPECT_EQ(moved.size(), bytes);
    if (bytes) {
      EXPECT_EQ(moved.data()[0], 0x5a);
    }
  }
}

} // namespace
