//===- BulkVector.h - An array that grows without copying -------*- C++ -*-===//
//
// The analyzer appends a few records per retired instruction to arrays that
// reach hundreds of megabytes (issue 34: about 50 bytes per instruction at
// 16 M instructions). A std::vector grows them by allocating twice the
// size, copying and freeing: every byte is copied about once more, and the
// new pages fault in while the old ones are still resident.
//
// BulkVector keeps small arrays on the heap and moves an array past
// kMapBytes into its own anonymous mapping, which then grows with
// mremap(MREMAP_MAYMOVE) (Linux; elsewhere realloc): the kernel moves the
// page tables, not the bytes, and no page is faulted in twice. On `run`
// layernorm_loop that took a quarter of the page faults and 8% of the CPU
// time away (farm-bench). Elements must be trivially copyable.
//
// Transparent huge pages (madvise MADV_HUGEPAGE on 2 MiB-aligned mappings)
// were measured too: 8% less CPU for `run` layernorm_loop at the median,
// but up to 0.2 s of system time in a run where the kernel compacted memory
// for them, and 5 MB more peak memory. They are not asked for. (PageArena,
// below, asks for them: its blocks are written whole when made.)
//
// A mapping's pages are faulted in ahead of the appends, kPopulateBytes at a
// time (madvise MADV_POPULATE_WRITE, Linux 5.14; elsewhere, or where the
// kernel refuses, the pages fault in one by one as before): one system
// call for 64 pages costs less than 64 page faults. On a 2-vCPU AMD EPYC
// under Firecracker (2026-12-01), whose page faults cost about 12 us each,
// pages populated 256 KiB at a time cost 5.3 us each (a microbenchmark);
// on the host of sessions 39-41, 1.7 against 2.2 us. At most kPopulateBytes
// per array are populated ahead of its last element.
//
// glibc's realloc would do the mremap itself for a chunk it had mmap'ed,
// but its mmap threshold rises with every large free (to 32 MiB), so the
// arrays that matter end up in the heap, where realloc copies.
//
// ZeroedArray is the fixed-size counterpart for tables indexed by page or
// by value, of which a run touches a few entries: its memory comes from
// the kernel as zero pages that are never written until used (for the same
// reason calloc is not enough: past a large free, glibc serves it from the
// heap with a memset of the whole block).
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_SUPPORT_BULKVECTOR_H
#define ACCEL_SUPPORT_BULKVECTOR_H

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>
#include <vector>

namespace accel {

namespace detail {
/// ZeroedArray blocks of at least this many bytes are mappings.
constexpr size_t kZeroMapBytes = size_t(64) << 10;
/// Resizes the block `data` of `capacityBytes` (null and 0 for none), of
/// which the first `usedBytes` are kept, to at least `newBytes` (above
/// `capacityBytes`); `mapped` says whether the block is a mapping and is
/// updated. Returns the new block and sets `capacityBytes` to its size.
/// Out of memory: llvm::report_bad_alloc_error (as SmallVector does).
void *growBulk(void *data, size_t &capacityBytes, size_t usedBytes,
               size_t newBytes, bool &mapped);
/// Frees a block growBulk or allocZeroed returned.
void freeBulk(void *data, size_t capacityBytes, bool mapped);
/// A block of `bytes` zero bytes (a 1-byte block for 0) whose pages are
/// not written: a fresh anonymous mapping from kZeroMapBytes up (its pages
/// fault in on first use, as the kernel's zero pages), else calloc. Sets
/// `mapped`. Null when the memory cannot be had.
void *allocZeroed(size_t bytes, bool &mapped);
/// `bytes` (a multiple of 2 MiB) of memory aligned to 2 MiB with
/// transparent huge pages asked for (madvise MADV_HUGEPAGE; a hint): a
/// block written whole then takes a page fault per 2 MiB, not per 4 KiB.
/// Under AddressSanitizer a heap block (so that overruns are reported).
/// Out of memory: llvm::report_bad_alloc_error naming `what`. Free it with
/// freeHuge(base, bytes).
void *allocHuge(size_t bytes, const char *what);
void freeHuge(void *base, size_t bytes);
/// `bytes` of zero bytes, or null when the memory cannot be had: from
/// 64 KiB up a mapping of allocHuge's kind, rounded up to 2 MiB, whose
/// length goes to `hugeBytes` (free it with freeHuge); smaller, or under
/// AddressSanitizer, allocZeroed's block (hugeBytes 0, `mapped` as there).
void *allocZeroedHuge(size_t bytes, size_t &hugeBytes, bool &mapped);
/// llvm::report_bad_alloc_error with `what` (out of line: the header stays
/// free of LLVM's).
[[noreturn]] void reportBadAlloc(const char *what);
/// Populates the pages of the mapping `data` (of `capacityBytes`) from
/// `readyBytes` (a page boundary; bytes below it are populated) to cover at
/// least `neededBytes` and kPopulateBytes more where the mapping has them.
/// Returns the new ready size: a page multiple, at most `capacityBytes`.
/// A refusal by the kernel is not an error (the pages fault in on use).
size_t populateBulk(void *data, size_t capacityBytes, size_t readyBytes,
                    size_t neededBytes);
} // namespace detail

/// A std::vector-like array of trivially copyable `T` (the subset the
/// analyzer uses) that grows without copying once past kMapBytes.
template <typename T> class BulkVector {
  static_assert(std::is_trivially_copyable_v<T>,
                "BulkVector moves its elements as bytes");

public:
  using value_type = T;
  using iterator = T *;
  using const_iterator = const T *;
  /// Arrays of at least this many bytes live in their own mapping, whose
  /// pages are populated in batches (a heap array's fault in one by one,
  /// and its copies on growth touch fresh pages again: with 1 MiB here,
  /// `run` layernorm_loop took 3,630 page faults, with 64 KiB 1,044, at
  /// about 12 us each on a 2-vCPU Firecracker host).
  static constexpr size_t kMapBytes = size_t(64) << 10;
  /// A mapping's pages are populated this many bytes ahead at a time.
  static constexpr size_t kPopulateBytes = size_t(256) << 10;

  BulkVector() = default;
  BulkVector(const BulkVector &o) { *this = o; }
  BulkVector(BulkVector &&o) noexcept { swap(o); }
  BulkVector &operator=(const BulkVector &o) {
    if (this != &o) {
      clear();
      reserve(o.count);
      if (o.count)
        std::memcpy(ptr, o.ptr, o.count * sizeof(T));
      count = o.count;
    }
    return *this;
  }
  BulkVector &operator=(BulkVector &&o) noexcept {
    swap(o);
    return *this;
  }
  ~BulkVector() { detail::freeBulk(ptr, capBytes, mapped); }

  void swap(BulkVector &o) noexcept {
    std::swap(ptr, o.ptr);
    std::swap(count, o.count);
    std::swap(capBytes, o.capBytes);
    std::swap(capElems, o.capElems);
    std::swap(readyBytes, o.readyBytes);
    std::swap(mapped, o.mapped);
  }

  size_t size() const { return count; }
  bool empty() const { return count == 0; }
  /// Elements that fit without a call out of line: in the heap block, or
  /// in the populated part of the mapping.
  size_t capacity() const { return capElems; }
  T *data() { return ptr; }
  const T *data() const { return ptr; }
  T *begin() { return ptr; }
  T *end() { return ptr + count; }
  const T *begin() const { return ptr; }
  const T *end() const { return ptr + count; }
  T &operator[](size_t i) { return ptr[i]; }
  const T &operator[](size_t i) const { return ptr[i]; }
  T &back() { return ptr[count - 1]; }
  const T &back() const { return ptr[count - 1]; }

  void push_back(const T &v) {
    if (count == capacity())
      grow(count + 1);
    ptr[count++] = v;
  }
  /// Appends a value-initialized element and returns it.
  T &emplace_back() {
    if (count == capacity())
      grow(count + 1);
    T *slot = ptr + count++;
    *slot = T();
    return *slot;
  }
  void pop_back() { --count; }
  /// Removes [first, last), moving the elements after it down.
  T *erase(T *first, T *last) {
    if (first == last) // also an empty array's null range: no memmove
      return first;
    std::memmove(static_cast<void *>(first), last,
                 size_t(end() - last) * sizeof(T));
    count -= size_t(last - first);
    return first;
  }
  /// Keeps the first `n` elements (n <= size()).
  void truncate(size_t n) { count = n; }
  void clear() { count = 0; }
  /// n elements; new ones value-initialized.
  void resize(size_t n) {
    size_t old = count;
    resize_for_overwrite(n);
    for (size_t i = old; i < n; ++i)
      ptr[i] = T();
  }
  /// n elements; new ones left uninitialized, for the caller to write.
  void resize_for_overwrite(size_t n) {
    if (n > capacity())
      grow(n);
    count = n;
  }
  void reserve(size_t n) {
    if (n > capacity())
      grow(n);
  }

private:
  /// Room for at least `n` elements: the next populated pages of the
  /// mapping, or a block of twice the size, as std::vector grows.
  void grow(size_t n) {
    size_t need = n * sizeof(T);
    if (!mapped || need > capBytes) {
      size_t want = 2 * (capBytes / sizeof(T));
      if (want < n)
        want = n;
      if (want < 16)
        want = 16;
      bool wasMapped = mapped;
      ptr = static_cast<T *>(detail::growBulk(ptr, capBytes, count * sizeof(T),
                                              want * sizeof(T), mapped));
      if (mapped && !wasMapped) // the copy touched the pages of its bytes
        readyBytes = 0;
    }
    if (mapped)
      readyBytes = detail::populateBulk(ptr, capBytes, readyBytes, need);
    capElems = (mapped ? readyBytes : capBytes) / sizeof(T);
  }

  T *ptr = nullptr;
  size_t count = 0;
  size_t capBytes = 0;
  /// capBytes / sizeof(T), kept: push_back compares with it, and a division
  /// by a size that is not a power of two is several instructions.
  size_t capElems = 0;
  /// The populated bytes of a mapping, from its start (a page multiple).
  size_t readyBytes = 0;
  bool mapped = false;
};

/// A fixed-size array of `n` trivially copyable `T`, all zero bytes, whose
/// memory is not written when it is made: a per-page table (one entry per
/// VMEM page, say) of which a run touches a few entries costs the pages it
/// touches, not a fault and a memset for every page of the table (on a
/// host where a page fault costs about 10 us, a 1.3 MB table is 3 ms of a
/// 25 ms run). T's value-initialized state must be all zero bytes: the
/// array holds that state, not T().
template <typename T> class ZeroedArray {
  static_assert(std::is_trivially_copyable_v<T>,
                "ZeroedArray's elements start as zero bytes");

public:
  /// No array: data() is null.
  ZeroedArray() = default;
  /// `n` elements. Out of memory: llvm::report_bad_alloc_error.
  explicit ZeroedArray(size_t n) {
    if (!allocate(n))
      detail::reportBadAlloc("ZeroedArray: out of memory");
  }
  ZeroedArray(const ZeroedArray &) = delete;
  ZeroedArray &operator=(const ZeroedArray &) = delete;
  ZeroedArray(ZeroedArray &&o) noexcept { swap(o); }
  ZeroedArray &operator=(ZeroedArray &&o) noexcept {
    swap(o);
    return *this;
  }
  ~ZeroedArray() {
    if (hugeBytes)
      detail::freeHuge(ptr, hugeBytes);
    else
      detail::freeBulk(ptr, count * sizeof(T), mapped);
  }

  void swap(ZeroedArray &o) noexcept {
    std::swap(ptr, o.ptr);
    std::swap(count, o.count);
    std::swap(mapped, o.mapped);
    std::swap(hugeBytes, o.hugeBytes);
  }
  /// Replaces the array with `n` zeroed elements (data() is not null, even
  /// for 0). False, and no array, when the memory cannot be had (n *
  /// sizeof(T) overflowing included): for a caller that reports its own
  /// error.
  /// `huge`: for an array the run touches densely (VMEM's bytes), in
  /// transparent huge pages (detail::allocZeroedHuge): a page fault per
  /// touched 2 MiB instead of per 4 KiB, and up to 2 MiB more resident.
  bool allocate(size_t n, bool huge = false) {
    ZeroedArray().swap(*this);
    if (n > SIZE_MAX / sizeof(T))
      return false;
    ptr = static_cast<T *>(
        huge ? detail::allocZeroedHuge(n * sizeof(T), hugeBytes, mapped)
             : detail::allocZeroed(n * sizeof(T), mapped));
    count = ptr ? n : 0;
    return ptr != nullptr;
  }
  size_t size() const { return count; }
  T *data() const { return ptr; }
  T &operator[](size_t i) { return ptr[i]; }
  const T &operator[](size_t i) const { return ptr[i]; }

private:
  T *ptr = nullptr;
  size_t count = 0;
  /// The length of an allocZeroedHuge mapping (0: none).
  size_t hugeBytes = 0;
  bool mapped = false;
};

/// A byte block of a size fixed when made, for a large block written whole
/// right after (a compressed trace's payload, which zstd regenerates into
/// it): from 2 MiB on it comes from detail::allocHuge, rounded up to 2 MiB
/// (the rest is never touched); smaller, from the heap. On a host where a
/// page fault costs about 12 us (a 2-vCPU AMD EPYC under Firecracker,
/// 2026-12-02), the 15.6 MB payload of a 3.9 M-instruction trace took
/// 3,800 page faults in a SmallVector, which also zero-filled it first.
/// Its bytes are unspecified.
class HugeBlock {
public:
  HugeBlock() = default;
  explicit HugeBlock(size_t bytes);
  HugeBlock(const HugeBlock &) = delete;
  HugeBlock &operator=(const HugeBlock &) = delete;
  HugeBlock(HugeBlock &&o) noexcept { swap(o); }
  HugeBlock &operator=(HugeBlock &&o) noexcept {
    swap(o);
    return *this;
  }
  ~HugeBlock();

  void swap(HugeBlock &o) noexcept {
    std::swap(ptr, o.ptr);
    std::swap(count, o.count);
    std::swap(reserved, o.reserved);
  }
  uint8_t *data() const { return ptr; }
  size_t size() const { return count; }

private:
  uint8_t *ptr = nullptr;
  size_t count = 0;
  /// What allocHuge reserved (0: a heap block).
  size_t reserved = 0;
};

/// Blocks of one size (the simulator's 64 KiB HBM pages), carved in order
/// from mappings that ask for transparent huge pages (madvise
/// MADV_HUGEPAGE) and freed together when the arena is destroyed. Every
/// block is written whole when it is made (a page's initial bytes), so a
/// huge page holds 32 of them with nothing wasted: on a host where a page
/// fault costs about 12 us (a 2-vCPU AMD EPYC under Firecracker,
/// 2026-12-02), a replay that materializes 3,300 HBM pages took 53.6 K
/// page faults and 0.79 s of CPU in 64 KiB heap blocks, 9.6 K faults (the
/// rest of the run's) and 0.47 s from huge pages. Unlike BulkVector's arrays, whose
/// tails are often left unused, nothing here is larger than it is used
/// for, except the last mapping's unused blocks, which are never touched.
/// Where the kernel has no huge page to give, the blocks fault in 4 KiB at
/// a time as before. Under AddressSanitizer each block is a heap block of
/// its own, so that an access past its end is reported.
class PageArena {
public:
  /// Blocks of `blockBytes` (a power of two, at most 2 MiB).
  explicit PageArena(size_t blockBytes) : block(blockBytes) {}
  PageArena(const PageArena &) = delete;
  PageArena &operator=(const PageArena &) = delete;
  PageArena(PageArena &&o) noexcept { swap(o); }
  PageArena &operator=(PageArena &&o) noexcept {
    swap(o);
    return *this;
  }
  ~PageArena();

  void swap(PageArena &o) noexcept {
    std::swap(block, o.block);
    std::swap(mappings, o.mappings);
    std::swap(next, o.next);
    std::swap(end, o.end);
  }
  /// A block of blockBytes(), aligned to its size, its bytes unspecified.
  /// Out of memory: llvm::report_bad_alloc_error.
  uint8_t *allocate() {
    if (__builtin_expect(next == end, 0))
      grow();
    uint8_t *p = next;
    next += block;
    return p;
  }
  size_t blockBytes() const { return block; }

private:
  /// Maps the next mapping: 2 MiB for the first, twice the last one's size
  /// after that, up to 64 MiB.
  void grow();

  size_t block = 0;
  /// The mappings made so far: base and size of each.
  std::vector<std::pair<void *, size_t>> mappings;
  uint8_t *next = nullptr, *end = nullptr;
};

} // namespace accel

#endif // ACCEL_SUPPORT_BULKVECTOR_H
