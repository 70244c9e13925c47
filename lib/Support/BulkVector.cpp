//===- BulkVector.cpp - An array that grows without copying ---------------===//

#include "accel/Support/BulkVector.h"

#include "llvm/Support/ErrorHandling.h"

#include <algorithm>
#include <cstdlib>
#ifdef __linux__
#include <sys/mman.h>
#include <unistd.h>
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
    if (usedBytes)
      std::memcpy(p, data, usedBytes);
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
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 // Linux 5.14
#endif
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
