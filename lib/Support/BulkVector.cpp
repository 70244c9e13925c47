//===- BulkVector.cpp - A growable array that grows without copying -------===//

#include "accel/Support/BulkVector.h"

#include "llvm/Support/ErrorHandling.h"

#include <cstdlib>
#include <sys/mman.h>
#include <unistd.h>

using namespace accel;

/// `bytes` rounded up to whole pages of the system.
static size_t roundToPages(size_t bytes) {
  static const size_t page = size_t(sysconf(_SC_PAGESIZE));
  return (bytes + page - 1) / page * page;
}

void *detail::growBulk(void *data, size_t &capacityBytes, size_t usedBytes,
                       size_t newBytes, bool &mapped) {
  if (newBytes < BulkVector<char>::kMapBytes) {
    // Small: the heap (realloc copies at most kMapBytes).
    void *p = std::realloc(data, newBytes);
    if (!p)
      llvm::report_bad_alloc_error("BulkVector: out of memory");
    capacityBytes = newBytes;
    return p;
  }
  newBytes = roundToPages(newBytes);
  void *p;
  if (mapped) {
    // The kernel moves the page tables; no byte is copied or faulted again.
    p = mremap(data, capacityBytes, newBytes, MREMAP_MAYMOVE);
  } else {
    p = mmap(nullptr, newBytes, PROT_READ | PROT_WRITE,
             MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p != MAP_FAILED) {
      if (usedBytes)
        std::memcpy(p, data, usedBytes);
      std::free(data);
      mapped = true;
    }
  }
  if (p == MAP_FAILED)
    llvm::report_bad_alloc_error("BulkVector: out of memory");
  capacityBytes = newBytes;
  return p;
}

void detail::freeBulk(void *data, size_t capacityBytes, bool mapped) {
  if (mapped)
    munmap(data, capacityBytes);
  else
    std::free(data);
}
