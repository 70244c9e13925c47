//===- BulkVector.cpp - An array that grows without copying ---------------===//

#include "accel/Support/BulkVector.h"

#include "llvm/Support/ErrorHandling.h"

#include <algorithm>
#include <cstdlib>
#ifdef __linux__
#include <sys/mman.h>
#include <unistd.h>
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 // Linux 5.14
#endif
#endif

using namespace accel;

#ifdef __linux__
/// Grows the block `data` (a mapping when `mapped`, else a heap block whose
/// first `usedBytes` are copied into a new mapping) to `newBytes`, a whole
/// number of pages. Returns it, or MAP_FAILED.
static void *growMapping(void *data, size_t capacityBytes, size_t usedBytes,
                         size_t newBytes, bool &mapped) {
  if (mapped) // the kernel moves the page tables; no byte is copied
    return mremap(data, capacityBytes, newBytes, MREMAP_MAYMOVE);
  void *p = mmap(nullptr, newBytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p != MAP_FAILED) {
    if (usedBytes) {
      // The copy's pages populated in one call first: written one by one
      // they were a page fault each (256 for a 1 MiB array, most of a
      // run's faults).
      (void)madvise(p, usedBytes, MADV_POPULATE_WRITE);
      std::memcpy(p, data, usedBytes);
    }
    std::free(data);
    mapped = true;
  }
  return p;
}
#endif

void *detail::growBulk(void *data, size_t &capacityBytes, size_t usedBytes,
                       size_t newBytes, bool &mapped) {
#ifdef __linux__
  if (newBytes >= BulkVector<char>::kMapBytes) {
    static const size_t page = size_t(sysconf(_SC_PAGESIZE));
    newBytes = (newBytes + page - 1) / page * page;
    void *p = growMapping(data, capacityBytes, usedBytes, newBytes, mapped);
    if (p == MAP_FAILED)
      llvm::report_bad_alloc_error("BulkVector: out of memory");
    capacityBytes = newBytes;
    return p;
  }
#endif
  // Small (or no mremap): the heap, where realloc may copy.
  void *p = std::realloc(data, newBytes);
  if (!p)
    llvm::report_bad_alloc_error("BulkVector: out of memory");
  capacityBytes = newBytes;
  return p;
}

size_t detail::populateBulk(void *data, size_t capacityBytes, size_t readyBytes,
                            size_t neededBytes) {
  size_t to =
      std::max(neededBytes, readyBytes + BulkVector<char>::kPopulateBytes);
#ifdef __linux__
  static const size_t page = size_t(sysconf(_SC_PAGESIZE));
  to = std::min(capacityBytes, (to + page - 1) / page * page);
  if (to > readyBytes)
    (void)madvise(static_cast<char *>(data) + readyBytes, to - readyBytes,
                  MADV_POPULATE_WRITE);
#endif
  return std::min(capacityBytes, to);
}

void *detail::allocZeroed(size_t bytes, bool &mapped) {
  mapped = false;
#ifdef __linux__
  if (bytes >= kZeroMapBytes) {
    // No MAP_POPULATE: untouched pages are never faulted in. (calloc would
    // do the same for a block above glibc's mmap threshold, but that rises
    // with every large free, up to 32 MiB, and below it calloc clears the
    // block.)
    void *p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
      return nullptr;
    mapped = true;
    return p;
  }
#endif
  return std::calloc(1, bytes ? bytes : 1);
}

void detail::reportBadAlloc(const char *what) {
  llvm::report_bad_alloc_error(what);
}

void detail::freeBulk(void *data, size_t capacityBytes, bool mapped) {
#ifdef __linux__
  if (mapped) {
    munmap(data, capacityBytes);
    return;
  }
#endif
  std::free(data);
}

// Under AddressSanitizer every block is a heap block of its own, so that an
// access past a page's end is reported, not made to the next page.
#if defined(__SANITIZE_ADDRESS__)
#define ACCEL_PAGE_ARENA_HEAP 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ACCEL_PAGE_ARENA_HEAP 1
#endif
#endif

/// A transparent huge page: allocHuge's alignment and granule.
static constexpr size_t kHuge = size_t(2) << 20;

#if defined(__linux__) && !defined(ACCEL_PAGE_ARENA_HEAP)
/// `bytes` (a multiple of kHuge) of zero pages aligned to kHuge, with
/// transparent huge pages asked for, or null.
static void *mapHuge(size_t bytes) {
  // 2 MiB-aligned (a huge page needs an aligned 2 MiB of the mapping): map
  // 2 MiB more and unmap the unaligned head and tail.
  void *raw = mmap(nullptr, bytes + kHuge, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED)
    return nullptr;
  uintptr_t at = reinterpret_cast<uintptr_t>(raw);
  uintptr_t aligned = (at + kHuge - 1) & ~uintptr_t(kHuge - 1);
  if (aligned > at)
    munmap(raw, aligned - at);
  if (size_t tail = kHuge - (aligned - at))
    munmap(reinterpret_cast<void *>(aligned + bytes), tail);
  void *base = reinterpret_cast<void *>(aligned);
#ifdef MADV_HUGEPAGE
  (void)madvise(base, bytes, MADV_HUGEPAGE); // a hint; refusal is fine
#endif
  return base;
}
#endif

void *detail::allocHuge(size_t bytes, const char *what) {
#if defined(__linux__) && !defined(ACCEL_PAGE_ARENA_HEAP)
  void *base = mapHuge(bytes);
#else
  void *base = std::aligned_alloc(kHuge, bytes);
#endif
  if (!base)
    llvm::report_bad_alloc_error(what);
  return base;
}

void *detail::allocZeroedHuge(size_t bytes, size_t &hugeBytes, bool &mapped) {
  hugeBytes = 0;
#if defined(__linux__) && !defined(ACCEL_PAGE_ARENA_HEAP)
  // From 64 KiB (16 small pages, whose faults cost more than clearing a
  // huge page) up.
  if (bytes >= (size_t(64) << 10) && bytes <= SIZE_MAX - kHuge) {
    size_t reserved = (bytes + kHuge - 1) & ~(kHuge - 1);
    void *p = mapHuge(reserved);
    if (p)
      hugeBytes = reserved;
    mapped = false;
    return p;
  }
#endif
  return allocZeroed(bytes, mapped);
}

void detail::freeHuge(void *base, size_t bytes) {
#if defined(__linux__) && !defined(ACCEL_PAGE_ARENA_HEAP)
  munmap(base, bytes);
#else
  (void)bytes;
  std::free(base);
#endif
}

void PageArena::grow() {
#ifdef ACCEL_PAGE_ARENA_HEAP
  void *heap = std::aligned_alloc(block, block);
  if (!heap)
    llvm::report_bad_alloc_error("PageArena: out of memory");
  mappings.push_back({heap, 0}); // size 0: a heap block
  next = static_cast<uint8_t *>(heap);
  end = next + block;
#else
  static constexpr size_t kMaxMapping = size_t(64) << 20;
  size_t bytes = mappings.empty()
                     ? kHuge
                     : std::min(kMaxMapping, 2 * mappings.back().second);
  void *base = detail::allocHuge(bytes, "PageArena: out of memory");
  mappings.push_back({base, bytes});
  next = static_cast<uint8_t *>(base);
  end = next + bytes;
#endif
}

HugeBlock::HugeBlock(size_t bytes) : count(bytes) {
  if (bytes >= kHuge) {
    reserved = (bytes + kHuge - 1) & ~(kHuge - 1);
    ptr = static_cast<uint8_t *>(
        detail::allocHuge(reserved, "HugeBlock: out of memory"));
    return;
  }
  ptr = static_cast<uint8_t *>(std::malloc(bytes ? bytes : 1));
  if (!ptr)
    llvm::report_bad_alloc_error("HugeBlock: out of memory");
}

HugeBlock::~HugeBlock() {
  if (reserved)
    detail::freeHuge(ptr, reserved);
  else
    std::free(ptr);
}

PageArena::~PageArena() {
  // A mapping records its length; a heap block (ASan) records 0.
  for (auto [base, bytes] : mappings) {
    if (bytes)
      detail::freeHuge(base, bytes);
    else
      std::free(base);
  }
}
