//===- VmemTracker.cpp - VMEM page liveness and fragmentation -------------===//
//
// Seed 000 §5.3.2, Fig. 8: free and contiguous-free VMEM over time, and the
// block heatmap (blocks of pages, each a row of the heatmap).
//
//===----------------------------------------------------------------------===//

#include "accel/Analysis/Analyzer.h"

#include "llvm/Support/MathExtras.h"

#include <algorithm>

using namespace accel;
using namespace accel::analysis;

VmemTracker::VmemTracker(uint64_t vmemBytes, uint64_t pageBytes)
    : pageBytes(pageBytes), pages(vmemBytes / pageBytes), state(pages) {}

void VmemTracker::close(uint32_t page, PageState &s) {
  if (!s.live)
    return;
  if (s.read)
    intervals.push_back({page, s.writeCycle, s.lastRead});
  else if (s.byDma)
    wasted[s.writerOp] += pageBytes;
  s.live = false;
}

void VmemTracker::write(uint64_t begin, uint64_t end, uint64_t cycle,
                        uint32_t opId, bool byDma) {
  if (begin >= end)
    return;
  uint64_t first = begin / pageBytes, last = (end - 1) / pageBytes;
  for (uint64_t p = first; p <= last && p < pages; ++p) {
    PageState &s = state[p];
    // A partial write to a live page keeps it live (the rest of the page
    // still holds data); a write covering the page starts a new lifetime.
    bool covers = begin <= p * pageBytes && end >= (p + 1) * pageBytes;
    if (s.live && !covers) {
      s.lastRead = std::max(s.lastRead, cycle);
      s.read = true;
      continue;
    }
    close(uint32_t(p), s);
    s = PageState{cycle, cycle, opId, true, false, byDma};
  }
}

void VmemTracker::read(uint64_t begin, uint64_t end, uint64_t cycle) {
  if (begin >= end)
    return;
  uint64_t first = begin / pageBytes, last = (end - 1) / pageBytes;
  for (uint64_t p = first; p <= last && p < pages; ++p) {
    PageState &s = state[p];
    if (!s.live)
      continue; // reading a page nobody wrote (zeros): not live data
    s.lastRead = std::max(s.lastRead, cycle);
    s.read = true;
  }
}

void VmemTracker::finish() {
  for (uint64_t p = 0; p < pages; ++p)
    close(uint32_t(p), state[p]);
}

std::vector<VmemTracker::Bucket>
VmemTracker::buckets(uint64_t bucketCycles, uint64_t totalCycles,
                     unsigned blocks) const {
  uint64_t n = std::max<uint64_t>(1, llvm::divideCeil(totalCycles, bucketCycles));
  // used[b] is a bitmap of the pages live at some cycle of bucket b.
  std::vector<std::vector<bool>> used(n, std::vector<bool>(pages, false));
  for (const Interval &iv : intervals) {
    uint64_t b0 = std::min(n - 1, iv.start / bucketCycles);
    uint64_t b1 = std::min(n - 1, iv.end / bucketCycles);
    for (uint64_t b = b0; b <= b1; ++b)
      used[b][iv.page] = true;
  }
  uint64_t pagesPerBlock = blocks ? std::max<uint64_t>(1, pages / blocks) : pages;
  std::vector<Bucket> out(n);
  for (uint64_t b = 0; b < n; ++b) {
    Bucket &bk = out[b];
    bk.start = b * bucketCycles;
    bk.blockUsed.assign(blocks, 0);
    uint64_t run = 0;
    for (uint64_t p = 0; p < pages; ++p) {
      if (used[b][p]) {
        ++bk.usedPages;
        run = 0;
        if (blocks)
          ++bk.blockUsed[std::min<uint64_t>(blocks - 1, p / pagesPerBlock)];
      } else {
        bk.largestFreeRun = std::max(bk.largestFreeRun, ++run);
      }
    }
    bk.freeFraction = pages ? 1.0 - double(bk.usedPages) / double(pages) : 0;
  }
  return out;
}

uint64_t VmemTracker::minFreeRun(const std::vector<Bucket> &buckets,
                                 uint64_t bucketCycles, uint64_t from,
                                 uint64_t to) {
  if (buckets.empty())
    return 0;
  uint64_t b0 = std::min<uint64_t>(buckets.size() - 1, from / bucketCycles);
  uint64_t b1 = std::min<uint64_t>(buckets.size() - 1,
                                   (to ? to - 1 : 0) / bucketCycles);
  uint64_t best = UINT64_MAX;
  for (uint64_t b = b0; b <= b1; ++b)
    best = std::min(best, buckets[b].largestFreeRun);
  return best;
}
