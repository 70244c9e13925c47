//===- MemoryFootprint.cpp - The memory a simulation needs ----------------===//
//
// What the simulated memories of a run take from the host (VMEM's span and
// the HBM pages its buffers touch, per chip) and the check against the
// memory available to the process (docs/config.md).
//
//===----------------------------------------------------------------------===//

#include "accel/Sim/Memory.h"
#include "accel/Support/SystemMemory.h"

#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace accel;
using namespace accel::sim;

uint64_t MemoryFootprint::total() const {
  uint64_t perChip = llvm::SaturatingAdd(
      llvm::SaturatingAdd(vmemPerChip, hbmPerChip), extras.perChip);
  return llvm::SaturatingAdd(llvm::SaturatingMultiply(chips, perChip),
                             extras.once);
}

uint64_t sim::getHbmPageBytes(const std::vector<isa::Buffer> &buffers) {
  // The buffers' page ranges [first, last] (page numbers), merged.
  std::vector<std::pair<uint64_t, uint64_t>> pages;
  for (const isa::Buffer &b : buffers)
    if (b.space == isa::MemSpace::HBM && b.bytes != 0)
      pages.push_back(
          {b.base / Memory::kHbmPageBytes,
           (llvm::SaturatingAdd(b.base, b.bytes) - 1) / Memory::kHbmPageBytes});
  std::sort(pages.begin(), pages.end());
  uint64_t count = 0, next = 0; // pages before `next` are counted
  for (auto [first, last] : pages) {
    first = std::max(first, next);
    if (first > last)
      continue;
    count = llvm::SaturatingAdd(count, last - first + 1);
    next = last + 1; // last < 2^64 / kHbmPageBytes: no wrap
  }
  return llvm::SaturatingMultiply(count, Memory::kHbmPageBytes);
}

MemoryFootprint sim::getMemoryFootprint(uint64_t chips, uint64_t vmemBytes,
                                        const std::vector<isa::Buffer> &bufs) {
  MemoryFootprint f;
  f.chips = chips;
  f.vmemBytes = vmemBytes;
  f.vmemPerChip = Memory::getVmemExtent(vmemBytes, bufs);
  uint64_t hbm = getHbmPageBytes(bufs);
  uint64_t pages = hbm / Memory::kHbmPageBytes;
  f.hbmPerChip = llvm::SaturatingAdd(
      hbm, llvm::SaturatingMultiply(pages, Memory::kHbmPageOverheadBytes));
  return f;
}

/// `bytes` in whole MiB (rounded down), for the available memory.
static std::string formatMiB(uint64_t bytes) {
  return std::to_string(bytes >> 20) + " MiB";
}

llvm::Error sim::checkMemoryFootprint(const MemoryFootprint &f,
                                      uint64_t availableBytes,
                                      llvm::StringRef availableSource) {
  uint64_t total = f.total();
  if (total <= availableBytes)
    return llvm::Error::success();
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "machine config: chips \u00d7 vmem.bytes = " << f.chips << " \u00d7 "
     << formatBytes(f.vmemBytes) << " needs up to " << formatBytes(total)
     << ", more than the memory available to this process ("
     << formatMiB(availableBytes) << ": " << availableSource
     << "); per chip: " << formatBytes(f.vmemPerChip) << " of VMEM ("
     << (f.vmemPerChip == f.vmemBytes
             ? "all of vmem.bytes"
             : "the span of the program's VMEM buffers")
     << "), " << formatBytes(f.hbmPerChip) << " of HBM pages";
  const FootprintExtras &x = f.extras;
  if (x.perChip)
    os << ", " << formatBytes(x.perChip) << " for "
       << (x.perChipWhat.empty() ? "the analyses" : x.perChipWhat);
  if (x.once)
    os << "; once: " << formatBytes(x.once) << " for "
       << (x.onceWhat.empty() ? "the results" : x.onceWhat);
  os << "; use fewer chips, a smaller vmem.bytes or smaller buffers, or "
        "raise the limit";
  return llvm::createStringError(text);
}

llvm::Error sim::checkMemoryFootprint(const MemoryFootprint &footprint) {
  AvailableMemory available = getAvailableMemory();
  return checkMemoryFootprint(footprint, available.bytes, available.source);
}
