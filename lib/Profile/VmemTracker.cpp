//===- VmemTracker.cpp - VMEM page liveness and fragmentation -------------===//
//
// SnR (Zarkadas et al., SoCC '25) §5.3.2, Fig. 8: free and contiguous-free
// VMEM per time bucket, the block heatmap (blocks of pages, each a row of
// the heatmap), and the paper's unused and largest contiguous unused VMEM
// at cycle resolution.
//
//===----------------------------------------------------------------------===//

#include "accel/Profile/Analyzer.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <functional>
#include <tuple>

using namespace accel;
using namespace accel::profile;

VmemTracker::VmemTracker(uint64_t vmemBytes, uint64_t pageBytes)
    : pageBytes(pageBytes), pages(vmemBytes / pageBytes), state(pages),
      pageShift(llvm::isPowerOf2_64(pageBytes) ? llvm::Log2_64(pageBytes)
                                               : -1) {}

VmemTracker::Interval VmemTracker::makeInterval(uint64_t start, uint64_t end,
                                                uint64_t useEnd, uint32_t page,
                                                uint32_t pages, bool used) {
  Interval iv{
      start, uint32_t(end - start), uint32_t(useEnd - start), page, pages, used,
      0};
  if (end - start > UINT32_MAX || useEnd - start > UINT32_MAX) {
    iv.wide = 1;
    iv.endDelta = uint32_t(wideEnds.size());
    iv.useEndDelta = 0;
    wideEnds.push_back({end, useEnd});
  }
  return iv;
}

void VmemTracker::close(uint32_t page, PageState &s) {
  if (!s.live)
    return;
  s.live = false;
  if (!s.read) {
    if (s.byDma) {
      wasted[s.writerOp] += pageBytes;
      if (LLVM_UNLIKELY(logging))
        logMutation(Mutation::Other, 0, Interval{});
    }
    return;
  }
  // Whether this lifetime continues `iv`: the next page, with the same
  // cycles.
  auto extend = [&](Interval &iv) {
    if (iv.page + uint64_t(iv.pages) != page || iv.start != s.writeCycle ||
        endOf(iv) != s.lastRead || useEndOf(iv) != s.lastUse ||
        bool(iv.used) != s.used || iv.pages == kMaxPagesPerInterval)
      return false;
    ++iv.pages;
    return true;
  };
  Interval &entry = intervals[s.entry];
  if (entry.page == kNoPage) {
    entry = makeInterval(s.writeCycle, s.lastRead, s.lastUse, page, 1, s.used);
    if (LLVM_UNLIKELY(logging))
      logMutation(Mutation::FillEntry, s.entry, entry);
    return;
  }
  if (extend(entry)) {
    if (LLVM_UNLIKELY(logging))
      logMutation(Mutation::ExtendEntry, s.entry, entry);
    return;
  }
  if (!unmerged.empty() && extend(unmerged.back())) {
    if (LLVM_UNLIKELY(logging))
      logMutation(Mutation::ExtendUnmerged, unmerged.size() - 1,
                  unmerged.back());
    return;
  }
  unmerged.push_back(
      makeInterval(s.writeCycle, s.lastRead, s.lastUse, page, 1, s.used));
  if (LLVM_UNLIKELY(logging))
    logMutation(Mutation::PushUnmerged, unmerged.size() - 1, unmerged.back());
}

void VmemTracker::logMutation(uint8_t kind, uint64_t index,
                              const Interval &iv) {
  // A wide lifetime keeps its ends on the side: not repeated.
  log.push_back({iv.wide ? uint8_t(Mutation::Other) : kind, index, iv});
}

void VmemTracker::startLog() {
  logging = true;
  log.clear();
  loggedSpans.clear();
  logIntervalsBegin = intervals.size();
  logUnmergedBegin = unmerged.size();
}

void VmemTracker::stopLog() {
  logging = false;
  log.clear();
  loggedSpans.clear();
}

VmemTracker::PeriodRecord VmemTracker::closePeriod() {
  PeriodRecord r;
  r.log = std::move(log);
  log.clear();
  // The pages touched, each once, in order, and their states now.
  llvm::sort(loggedSpans);
  for (auto [first, last] : loggedSpans)
    for (uint64_t p = std::max<uint64_t>(
             first, r.pages.empty() ? 0 : uint64_t(r.pages.back()) + 1);
         p <= last; ++p)
      r.pages.push_back(uint32_t(p));
  loggedSpans.clear();
  r.states.reserve(r.pages.size());
  for (uint32_t p : r.pages)
    r.states.push_back(state[p]);
  r.intervalsBegin = logIntervalsBegin;
  r.unmergedBegin = logUnmergedBegin;
  r.intervalsEnd = logIntervalsBegin = intervals.size();
  r.unmergedEnd = logUnmergedBegin = unmerged.size();
  return r;
}

bool VmemTracker::repeats(const PeriodRecord &prev, PeriodRecord &cur,
                          uint64_t shift) const {
  // Entries and unmerged lifetimes: as many, each `per` later.
  uint64_t m = cur.intervalsEnd - cur.intervalsBegin;
  uint64_t u = cur.unmergedEnd - cur.unmergedBegin;
  if (!shift || prev.intervalsEnd - prev.intervalsBegin != m ||
      prev.unmergedEnd - prev.unmergedBegin != u ||
      prev.log.size() != cur.log.size() || prev.pages != cur.pages)
    return false;
  auto sameShifted = [&](const Interval &a, const Interval &b) {
    return b.start == a.start + shift && b.endDelta == a.endDelta &&
           b.useEndDelta == a.useEndDelta && b.page == a.page &&
           b.pages == a.pages && b.used == a.used && !a.wide && !b.wide;
  };
  for (size_t q = 0; q < cur.log.size(); ++q) {
    const Mutation &a = prev.log[q], &b = cur.log[q];
    // The same kind on the lifetime `per` later (an extension: of this
    // period's, not of one extended every period), pushed or filled with
    // the same lifetime `shift` later.
    bool toEntries = b.kind <= Mutation::ExtendEntry;
    bool extends =
        b.kind == Mutation::ExtendEntry || b.kind == Mutation::ExtendUnmerged;
    uint64_t per = toEntries ? m : u;
    if (a.kind != b.kind || b.kind == Mutation::Other ||
        b.index != a.index + per || (extends ? !per : !sameShifted(a.iv, b.iv)))
      return false;
  }
  // Page states: each cycle moved by the shift, or stayed from before the
  // loop's accesses (so no access of a later period compares otherwise
  // with it); the entry moved with the lifetimes, or stayed.
  cur.moved.assign(cur.pages.size(), 0);
  for (size_t k = 0; k < cur.pages.size(); ++k) {
    const PageState &a = prev.states[k], &b = cur.states[k];
    if (a.writerOp != b.writerOp || a.live != b.live || a.read != b.read ||
        a.byDma != b.byDma || a.used != b.used)
      return false;
    uint8_t moved = 0;
    unsigned bit = 0;
    for (auto f :
         {&PageState::writeCycle, &PageState::lastRead, &PageState::lastUse}) {
      if (b.*f == a.*f + shift)
        moved |= uint8_t(1u << bit);
      else if (b.*f != a.*f || b.*f >= prev.minAt)
        return false;
      ++bit;
    }
    if (b.entry == a.entry + m && m)
      moved |= 8;
    else if (b.entry != a.entry)
      return false;
    cur.moved[k] = moved;
  }
  return true;
}

/// How many periods back from its own a period's entry changes reach in
/// `tmpl`'s repeat run, or a moved page state's entry (entry changes move
/// with the period: repeats()).
static uint64_t getReach(const VmemTracker::PeriodRecord &tmpl) {
  using Mutation = VmemTracker::Mutation;
  uint64_t m = tmpl.intervalsEnd - tmpl.intervalsBegin, reach = 0;
  auto back = [&](uint64_t index) -> uint64_t {
    return index >= tmpl.intervalsBegin || !m
               ? 0
               : llvm::divideCeil(tmpl.intervalsBegin - index, m);
  };
  for (const Mutation &mu : tmpl.log)
    if (mu.kind == Mutation::FillEntry || mu.kind == Mutation::ExtendEntry)
      reach = std::max(reach, back(mu.index));
  for (size_t q = 0; q < tmpl.pages.size(); ++q)
    if (tmpl.moved[q] & 8)
      reach = std::max(reach, back(tmpl.states[q].entry));
  return reach;
}

void VmemTracker::applyRepeats(const PeriodRecord &tmpl, uint64_t shift,
                               uint64_t k) {
  uint64_t m = tmpl.intervalsEnd - tmpl.intervalsBegin;
  uint64_t u = tmpl.unmergedEnd - tmpl.unmergedBegin;
  uint64_t reach = getReach(tmpl);
  // The template's entries are final once periods 1..reach made their
  // changes, and so is every period's `reach` periods on, with the
  // template's values `shift` later per period. Periods reach + 1 to
  // k - reach - 1 are then a segment, not stored: no later change reaches
  // them (the last periods' entries, which the pages' states name, are
  // stored). Entry index v (as if every period were stored) is stored at
  // stored(v), or is in the segment.
  uint64_t first = reach + 1, skipped = 0;
  if (m && k >= 2 * reach + 3)
    skipped = k - 2 * reach - 1;
  uint64_t segAt = tmpl.intervalsEnd + reach * m;
  auto stored = [&](uint64_t v, bool &inSegment) {
    inSegment = v >= segAt && v < segAt + skipped * m;
    return v >= segAt + skipped * m ? v - skipped * m : v;
  };
  for (uint64_t j = 1; j <= k; ++j) {
    bool segmentPeriod = j >= first && j < first + skipped;
    // A segment's period past its first `reach` changes only the segment
    // (and the unmerged lifetimes, which are stored).
    if (segmentPeriod && j >= first + reach && !u) {
      j = first + skipped - 1;
      continue;
    }
    for (const Mutation &mu : tmpl.log) {
      Interval iv = mu.iv;
      iv.start += j * shift;
      bool inSegment = false;
      switch (mu.kind) {
      case Mutation::PushEntry:
        if (!segmentPeriod)
          intervals.push_back(iv);
        break;
      case Mutation::FillEntry:
        if (uint64_t i = stored(mu.index + j * m, inSegment); !inSegment)
          intervals[i] = iv;
        break;
      case Mutation::ExtendEntry:
        if (uint64_t i = stored(mu.index + j * m, inSegment); !inSegment)
          ++intervals[i].pages;
        break;
      case Mutation::PushUnmerged:
        unmerged.push_back(iv);
        break;
      case Mutation::ExtendUnmerged:
        ++unmerged[mu.index + j * u].pages;
        break;
      default:
        break; // repeats() accepted none
      }
    }
  }
  if (skipped)
    segments.push_back(
        {segAt, tmpl.intervalsBegin, m, skipped, first * shift, shift});
  // unused() may sweep these periods' steady state once and add the rest
  // shifted (a few periods are swept before it can tell: too short a run
  // is not worth the snapshots).
  if (k >= 4 && tmpl.minAt <= UINT64_MAX - shift)
    addRepeatHint(tmpl.minAt + shift, shift);
  for (size_t q = 0; q < tmpl.pages.size(); ++q) {
    PageState s = tmpl.states[q];
    uint8_t moved = tmpl.moved[q];
    if (moved & 1)
      s.writeCycle += k * shift;
    if (moved & 2)
      s.lastRead += k * shift;
    if (moved & 4)
      s.lastUse += k * shift;
    bool inSegment = false;
    if (moved & 8)
      s.entry = stored(s.entry + k * m, inSegment);
    assert(!inSegment && "a page's entry is stored (reach)");
    state[tmpl.pages[q]] = s;
  }
}

void VmemTracker::writeAny(uint64_t begin, uint64_t end, uint64_t cycle,
                           uint32_t opId, bool byDma) {
  if (begin >= end)
    return;
  uint64_t first = pageOf(begin), last = pageOf(end - 1);
  if (first < pages) {
    writtenBegin = std::min(writtenBegin, first);
    writtenEnd = std::max(writtenEnd, std::min(last + 1, pages));
  }
  if (LLVM_UNLIKELY(logging))
    notePages(first, last);
  std::optional<uint64_t> entry; // this write's entry, taken on first use
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
    if (!entry) {
      entry = intervals.size();
      intervals.push_back(Interval{cycle, 0, 0, kNoPage, 0, 0, 0});
      if (LLVM_UNLIKELY(logging))
        logMutation(Mutation::PushEntry, *entry, intervals.back());
    }
    s = PageState{cycle, cycle, cycle, *entry, opId, true, false, byDma, false};
  }
}

void VmemTracker::finish() {
  for (uint64_t p = writtenBegin; p < writtenEnd; ++p)
    close(uint32_t(p), state[p]);
  // unused() sweeps the lifetimes in order of their start: the entries
  // were taken in the order their writes began, unless accesses came out
  // of cycle order (DMA completions). Neither unused() nor buckets()
  // depends on the order of lifetimes that start at the same cycle, so an
  // in-place sort serves (a stable sort would allocate half the lifetimes
  // again, at the analyzer's peak).
  dropUnfilled();
  auto byStart = [](const Interval &a, const Interval &b) {
    return a.start < b.start;
  };
  bool sorted = true;
  if (segments.empty()) {
    sorted = std::is_sorted(intervals.begin(), intervals.end(), byStart);
  } else {
    uint64_t last = 0;
    for (EntryCursor c(*this); sorted && !c.atEnd(); c.advance()) {
      uint64_t start = c.value().start;
      sorted = start >= last;
      last = start;
    }
  }
  if (!sorted) {
    expandSegments();
    std::sort(intervals.begin(), intervals.end(), byStart);
  }
  std::sort(unmerged.begin(), unmerged.end(), byStart);
  // No shrink_to_fit: its copy would hold both arrays at once, at the
  // analyzer's peak.
}

void VmemTracker::dropUnfilled() {
  auto unfilled = [](const Interval &iv) { return iv.page == kNoPage; };
  if (segments.empty()) {
    llvm::erase_if(intervals, unfilled);
    return;
  }
  // The entries no page closed into go, and the segments' indices move
  // with the rest: a template's unfilled entry stands for its segment's
  // (the same periods' entries, which no page closed into either).
  std::vector<std::pair<uint64_t, uint64_t *>> marks;
  std::vector<uint64_t> tmplEnds(segments.size());
  for (size_t k = 0; k < segments.size(); ++k) {
    Segment &g = segments[k];
    tmplEnds[k] = g.tmpl + g.m;
    marks.push_back({g.at, &g.at});
    marks.push_back({g.tmpl, &g.tmpl});
    marks.push_back({tmplEnds[k], &tmplEnds[k]});
  }
  llvm::sort(marks,
             [](const auto &a, const auto &b) { return a.first < b.first; });
  size_t w = 0, next = 0;
  for (size_t i = 0; i < intervals.size(); ++i) {
    for (; next < marks.size() && marks[next].first == i; ++next)
      *marks[next].second = w;
    if (!unfilled(intervals[i]))
      intervals[w++] = intervals[i];
  }
  for (; next < marks.size(); ++next)
    *marks[next].second = w;
  intervals.truncate(w);
  for (size_t k = 0; k < segments.size(); ++k)
    segments[k].m = tmplEnds[k] - segments[k].tmpl;
  llvm::erase_if(segments, [](const Segment &g) { return g.m == 0; });
}

void VmemTracker::expandSegments() {
  if (segments.empty())
    return;
  BulkVector<Interval> all;
  for (EntryCursor c(*this); !c.atEnd(); c.advance())
    all.push_back(c.value());
  intervals.swap(all);
  segments.clear();
}

std::vector<VmemTracker::Bucket> VmemTracker::buckets(uint64_t bucketCycles,
                                                      uint64_t totalCycles,
                                                      unsigned blocks) const {
  uint64_t n =
      std::max<uint64_t>(1, llvm::divideCeil(totalCycles, bucketCycles));
  // One bucket at a time: `used` is the bitmap of the pages live at some
  // cycle of bucket b, word by word (a bit set: used; the bits past the
  // last page are set, as they end a free run, and not counted), made from
  // the lifetimes that overlap the bucket. Both arrays of lifetimes are in
  // order of start (finish()), so a lifetime joins `active` at its first
  // bucket and leaves after its last. Whole words at a time: a VMEM of
  // 32768 pages over 200 buckets is 6.5 M pages to visit one by one, and a
  // bitmap of every bucket at once was 800 KB, mostly zeros, faulted in
  // for every run (issue 34).
  uint64_t words = llvm::divideCeil(pages, 64);
  std::vector<uint64_t> used(words, 0);
  auto firstBucket = [&](const Interval &iv) {
    return std::min(n - 1, iv.start / bucketCycles);
  };
  auto lastBucket = [&](const Interval &iv) {
    return std::min(n - 1, endOf(iv) / bucketCycles);
  };
  std::vector<Interval> active;
  EntryCursor nextMain(*this);
  size_t nextRest = 0;
  auto mark = [&](uint64_t b) {
    for (; !nextMain.atEnd() && firstBucket(nextMain.value()) <= b;
         nextMain.advance())
      active.push_back(nextMain.value());
    while (nextRest < unmerged.size() && firstBucket(unmerged[nextRest]) <= b)
      active.push_back(unmerged[nextRest++]);
    llvm::erase_if(active,
                   [&](const Interval &iv) { return lastBucket(iv) < b; });
    std::fill(used.begin(), used.end(), 0);
    for (const Interval &iv : active)
      for (uint64_t p = iv.page; p < uint64_t(iv.page) + iv.pages; ++p)
        used[p / 64] |= uint64_t(1) << (p % 64);
  };
  uint64_t padding = pages % 64 ? ~uint64_t(0) << (pages % 64) : 0;
  uint64_t pagesPerBlock =
      blocks ? std::max<uint64_t>(1, pages / blocks) : pages;
  std::vector<Bucket> out(n);
  for (uint64_t b = 0; b < n; ++b) {
    Bucket &bk = out[b];
    bk.start = b * bucketCycles;
    bk.blockUsed.assign(blocks, 0);
    mark(b);
    uint64_t *bits = used.data();
    if (padding)
      bits[words - 1] |= padding;
    uint64_t run = 0; // free pages since the last used one
    for (uint64_t w = 0; w < words; ++w) {
      uint64_t x = bits[w];
      if (!x) {
        run += 64;
        continue;
      }
      int prev = -1; // the previous set bit of this word
      for (; x; x &= x - 1) {
        int bit = llvm::countr_zero(x);
        run += uint64_t(bit - prev - 1);
        bk.largestFreeRun = std::max(bk.largestFreeRun, run);
        run = 0;
        prev = bit;
        uint64_t p = w * 64 + uint64_t(bit);
        if (p >= pages)
          continue; // padding
        ++bk.usedPages;
        if (blocks)
          ++bk.blockUsed[std::min<uint64_t>(blocks - 1, p / pagesPerBlock)];
      }
      run += uint64_t(63 - prev);
    }
    bk.largestFreeRun = std::max(bk.largestFreeRun, run);
    bk.freeFraction = pages ? 1.0 - double(bk.usedPages) / double(pages) : 0;
  }
  return out;
}

namespace {
/// Longest runs of free pages, updated a page at a time: the pages are a
/// bitmap of 64-page words (a bit set: free), and a tree over the words,
/// its leaves padded to a power of two, keeps per node its free prefix,
/// free suffix and longest free run. A change costs one word's summary (a
/// few bit operations) and log2(words) nodes: a tile's pages, which change
/// together, mostly share a word (a tree over single pages took 15 levels
/// for the default VMEM; issue 34).
class FreeRunTree {
public:
  /// `pages` pages, all free; the padding up to a power of two is used.
  explicit FreeRunTree(uint64_t pages) : pages(pages) {
    uint64_t numWords = llvm::divideCeil(pages, 64);
    words.assign(numWords, ~uint64_t(0));
    if (pages % 64)
      words.back() = (uint64_t(1) << (pages % 64)) - 1;
    while (size < numWords)
      size <<= 1;
    nodes.assign(2 * size, Node{0, 0, 0});
    for (uint64_t w = 0; w < numWords; ++w)
      nodes[size + w] = summary(words[w]);
    for (uint64_t half = 64, lo = size / 2; lo >= 1; half <<= 1, lo /= 2)
      for (uint64_t i = lo; i < 2 * lo; ++i)
        pull(i, half);
  }
  /// Marks `page` free or used; longest() is current again after update().
  void set(uint64_t page, bool free) {
    uint64_t &w = words[page / 64], bit = uint64_t(1) << (page % 64);
    w = free ? w | bit : w & ~bit;
    dirty.push_back(size + page / 64);
  }
  /// Recomputes the words changed since the last update and their
  /// ancestors, one level at a time, each node once; a node whose value
  /// did not change stops there (its ancestors' values do not change
  /// through it), so a page that is used again one span after it was
  /// freed, or a change under a longer free run, costs a level or two.
  void update() {
    if (dirty.empty())
      return;
    std::sort(dirty.begin(), dirty.end());
    dirty.erase(std::unique(dirty.begin(), dirty.end()), dirty.end());
    size_t n = 0;
    for (uint64_t i : dirty)
      if (assignNode(i, summary(words[i - size])))
        dirty[n++] = i;
    dirty.resize(n);
    for (uint64_t half = 64; !dirty.empty() && dirty.front() > 1; half <<= 1) {
      n = 0;
      for (uint64_t i : dirty) {
        uint64_t parent = i >> 1;
        if (n == 0 || dirty[n - 1] != parent)
          dirty[n++] = parent;
      }
      dirty.resize(n);
      n = 0;
      for (uint64_t i : dirty)
        if (assignNode(i, pulled(i, half)))
          dirty[n++] = i;
      dirty.resize(n);
    }
    dirty.clear();
  }
  /// The longest run of consecutive free pages (after update()).
  uint64_t longest() const {
    assert(dirty.empty() && "FreeRunTree::longest before update");
    return pages ? nodes[1].best : 0;
  }

private:
  /// A node's free prefix, free suffix and longest free run, in pages
  /// (below 2^31: VMEM holds at most 2^30 pages), side by side: the three
  /// of a node share a cache line.
  struct Node {
    uint32_t pre, suf, best;
  };
  /// The node of one word (bit i: page i of the word, set when free).
  static Node summary(uint64_t x) {
    if (x == ~uint64_t(0))
      return {64, 64, 64};
    uint32_t best = 0;
    // Each step drops the zeros below the lowest run of ones, then the run
    // (shorter than 64: x has a zero).
    for (uint64_t y = x; y;) {
      y >>= llvm::countr_zero(y);
      unsigned run = llvm::countr_one(y);
      best = std::max(best, uint32_t(run));
      y >>= run;
    }
    return {uint32_t(llvm::countr_one(x)), uint32_t(llvm::countl_one(x)), best};
  }
  /// Node `i` from its children, each of `half` pages.
  Node pulled(uint64_t i, uint64_t half) const {
    const Node &a = nodes[2 * i], &b = nodes[2 * i + 1];
    return {a.pre == half ? uint32_t(half) + b.pre : a.pre,
            b.suf == half ? uint32_t(half) + a.suf : b.suf,
            std::max({a.best, b.best, a.suf + b.pre})};
  }
  void pull(uint64_t i, uint64_t half) { nodes[i] = pulled(i, half); }
  /// Sets node `i` to `v`; returns whether it changed.
  bool assignNode(uint64_t i, Node v) {
    Node &n = nodes[i];
    if (n.pre == v.pre && n.suf == v.suf && n.best == v.best)
      return false;
    n = v;
    return true;
  }
  uint64_t pages, size = 1;
  std::vector<uint64_t> words; ///< bit set: the page is free
  std::vector<Node> nodes;     ///< the tree over the words, leaves at size
  std::vector<uint64_t> dirty; ///< leaves of words set since the update
};

/// The lower median of the values pages - u, weighted by hist[u] (cycles;
/// u past the end: none), over `total` cycles: the values are counted from
/// the top, so a run that uses a few pages keeps a histogram of a few
/// entries. With no weight at all, `pages`.
uint64_t weightedMedian(const std::vector<uint64_t> &hist, uint64_t total,
                        uint64_t pages) {
  uint64_t seen = 0;
  for (size_t u = hist.size(); u-- > 0;) {
    seen += hist[u];
    if (2 * seen >= total)
      return pages - u;
  }
  return pages;
}

/// What VmemTracker::unused adds up over its spans of constant state: page-
/// cycles unused and longest-run page-cycles per bucket, and cycles per
/// value, for the medians. The sums are integers, exact at any size (a sum
/// of doubles was exact only below 2^53 page-cycles a bucket, and equals
/// these there), so spans may be added whole or in pieces alike.
struct UnusedAccumulator {
  UnusedAccumulator(uint64_t buckets, uint64_t bucketCycles, uint64_t pages)
      : bucketCycles(bucketCycles), pages(pages), unusedSum(buckets, 0),
        runSum(buckets, 0) {}

  /// Cycles [t, next) with `free` unused pages, the longest run of them
  /// `run` pages; t at the previous call's next. A span with the previous
  /// one's values joins it: a page written again in the cycle its lifetime
  /// ends changes neither value, three spans in four of a loop's (issue 34).
  void add(uint64_t t, uint64_t next, uint64_t free, uint64_t run) {
    if (t == spanEnd && free == spanFree && run == spanRun) {
      spanEnd = next;
      return;
    }
    flush();
    spanStart = t;
    spanEnd = next;
    spanFree = free;
    spanRun = run;
  }

  /// The series of a run of `total` cycles over `pages` pages, into `out`.
  void finish(VmemTracker::UnusedSeries &out, uint64_t total, uint64_t pages) {
    flush();
    for (uint64_t k = 0; k < unusedSum.size(); ++k) {
      uint64_t width = std::min(bucketCycles, total - k * bucketCycles);
      double pageCycles = double(pages) * double(width);
      out.unusedFraction[k] = double(unusedSum[k]) / pageCycles;
      out.largestRunFraction[k] = double(runSum[k]) / pageCycles;
    }
    out.medianUnusedFraction =
        double(weightedMedian(unusedHist, total, pages)) / double(pages);
    out.medianLargestRunFraction =
        double(weightedMedian(runHist, total, pages)) / double(pages);
  }

private:
  /// Adds the pending span to the sums; the spans come in order, so its
  /// bucket is found by stepping, not by a 64-bit division per span.
  void flush() {
    uint64_t t = spanStart, next = spanEnd;
    if (t == next)
      return;
    count(unusedHist, pages - spanFree, next - t);
    count(runHist, pages - spanRun, next - t);
    for (uint64_t c = t; c < next;) {
      while (c >= bucketEnd) {
        ++bucket;
        bucketEnd += bucketCycles;
      }
      uint64_t upto = std::min(next, bucketEnd);
      unusedSum[bucket] += Wide(spanFree) * (upto - c);
      runSum[bucket] += Wide(spanRun) * (upto - c);
      c = upto;
    }
  }

  /// Adds `cycles` to hist[u], growing it to hold u.
  static void count(std::vector<uint64_t> &hist, uint64_t u, uint64_t cycles) {
    if (u >= hist.size())
      hist.resize(u + 1, 0);
    hist[u] += cycles;
  }

  /// Page-cycles: below pages * cycles < 2^31 * 2^64.
  using Wide = unsigned __int128;
  uint64_t bucketCycles, pages;
  /// The bucket of the last span flushed, and where it ends.
  uint64_t bucket = 0, bucketEnd = bucketCycles;
  std::vector<Wide> unusedSum, runSum;
  /// The span not yet added: [spanStart, spanEnd), its values.
  uint64_t spanStart = 0, spanEnd = 0, spanFree = 0, spanRun = 0;
  /// Cycles per number of pages not unused (pages - free) and per pages
  /// outside the longest unused run (pages - run): the few first entries
  /// for a program that uses little of VMEM.
  std::vector<uint64_t> unusedHist, runHist;
};
} // namespace

namespace {
/// A used lifetime as unused() sweeps it: its pages are used over
/// [start, useEnd].
struct Life {
  uint64_t start, useEnd;
  uint32_t page, pages;
};

/// The used lifetimes that start before `total`, in order of start: a
/// merge of two lists sorted by start (VmemTracker's `intervals` and
/// `unmerged`), each read as a Life by `toLife`. Copyable: unused() probes
/// ahead with a copy.
template <typename Main, typename Rest> class UsedByStart {
public:
  using Interval = typename Rest::value_type;
  using ToLife = llvm::function_ref<Life(const Interval &)>;
  UsedByStart(Main main, const Rest &rest, uint64_t total, ToLife toLife)
      : m(main), r(rest.begin()), rEnd(rest.end()), total(total),
        toLife(toLife) {
    skip();
  }
  /// The next lifetime, or null.
  const Life *peekLife() const { return have ? &cur : nullptr; }
  /// Moves past peekLife().
  void pop() {
    if (fromMain())
      m.advance();
    else
      ++r;
    skip();
  }

private:
  bool fromMain() const {
    return !m.atEnd() && (r == rEnd || mv.start <= r->start);
  }
  void skip() {
    for (; !m.atEnd(); m.advance()) {
      mv = m.value();
      if (mv.used && mv.start < total)
        break;
    }
    while (r != rEnd && (!r->used || r->start >= total))
      ++r;
    have = !m.atEnd() || r != rEnd;
    if (have)
      cur = toLife(fromMain() ? mv : *r);
  }
  Main m;
  /// m's entry, when not at its end.
  Interval mv{};
  typename Rest::const_iterator r, rEnd;
  uint64_t total;
  ToLife toLife;
  /// peekLife's lifetime, when `have`.
  Life cur{};
  bool have = false;
};
} // namespace

namespace {
/// A pending end of unused()'s sweep: `pages` pages from `page` stop being
/// used by one lifetime at `at` (its useEnd + 1).
struct End {
  uint64_t at;
  uint32_t page, pages;
  bool operator>(const End &o) const { return at > o.at; }
};

/// unused()'s skip over a loop's steady state (issue 34). The sweep's
/// state at a cycle t, before its events at t, is the multiset of pending
/// ends (and the lifetimes live to the end, which no skipped period adds),
/// and what it does from t on depends on that state and the lifetimes that
/// start from t on. If at t0 and t1 = t0 + D the pending ends pair up, each
/// end at t1 either D after its partner (moving) or at the same cycle
/// (fixed: the end of a lifetime from before the loop), and the lifetimes
/// starting in each period [t1 + (q-1)D, t1 + qD) for q = 1..J are those of
/// [t0, t1), qD later, then by induction on q each period repeats the
/// sweep of [t0, t1) qD later: the same spans, qD later, as long as no
/// fixed end falls inside (each is at or after t1 + JD) and no lifetime
/// added lasts past the run (each ends before `total`). The sweep then
/// resumes at t1 + JD with the moving ends JD later. A hint (addRepeatHint)
/// only says where to try: every condition is checked here.
class SteadySkip {
public:
  using Hints = std::vector<std::pair<uint64_t, uint64_t>>;
  SteadySkip(const Hints &hints, uint64_t total) : total(total) {
    for (auto [from, shift] : hints)
      if (shift && from < total)
        this->hints.push_back({from, shift});
    llvm::sort(this->hints);
    nextHint(0);
  }

  /// The next cycle the sweep must stop at (a snapshot), or UINT64_MAX.
  uint64_t stopAt() const { return stop; }

  /// Called with t == stopAt() before the sweep's events at t: takes a
  /// snapshot, or skips periods. Returns the cycle the sweep resumes at
  /// (t when nothing was skipped); `ends`, `lives` and `acc` are moved past
  /// the periods skipped.
  template <typename Lives, typename Acc>
  uint64_t atStop(uint64_t t, std::vector<End> &ends, Lives &lives, Acc &acc) {
    if (haveSnap && t == snapAt + shift)
      if (uint64_t resume = trySkip(t, ends, lives, acc); resume != t) {
        nextHint(resume);
        return resume;
      }
    if (++tries > kMaxTries) {
      nextHint(t + 1);
      if (stop != t)
        return t;
    }
    haveSnap = true;
    snapAt = t;
    snapEnds = ends;
    arrivals.clear();
    spans.clear();
    lasting = false;
    stop = t + shift;
    return t;
  }

  /// The sweep took lifetime `l` (at a cycle in [snapAt, stopAt())).
  void arrived(const Life &l) {
    if (!haveSnap)
      return;
    arrivals.push_back(l);
    lasting |= l.useEnd + 1 >= total;
  }
  /// The sweep added the span [t, next) with these values.
  void added(uint64_t t, uint64_t next, uint64_t free, uint64_t run) {
    if (haveSnap)
      spans.push_back({t, next, free, run});
  }

private:
  /// Periods of a hint tried before it is dropped.
  static constexpr unsigned kMaxTries = 4;

  /// Moves to the first hint whose periods can still be tried at or after
  /// cycle `t`.
  void nextHint(uint64_t t) {
    haveSnap = false;
    tries = 0;
    stop = UINT64_MAX;
    for (; h < hints.size(); ++h) {
      auto [from, d] = hints[h];
      // The first of its period starts at or after t.
      uint64_t at = from >= t ? from : from + llvm::divideCeil(t - from, d) * d;
      if (at < total && at >= from) {
        shift = d;
        stop = at;
        ++h;
        return;
      }
    }
  }

  /// Pairs the pending ends `ends` at t with the snapshot's (see the
  /// class comment); returns false when they do not pair up. Sets
  /// `moving` per entry of `ends` and the earliest fixed end.
  bool pairEnds(const std::vector<End> &ends, std::vector<bool> &moving,
                uint64_t &firstFixed) const {
    if (ends.size() != snapEnds.size())
      return false;
    auto key = [](const End &e) {
      return std::make_tuple(e.page, e.pages, e.at);
    };
    std::vector<End> before = snapEnds;
    llvm::sort(before,
               [&](const End &a, const End &b) { return key(a) < key(b); });
    std::vector<bool> taken(before.size(), false);
    // An untaken snapshot end equal to `want`.
    auto take = [&](const End &want) {
      auto it = std::lower_bound(
          before.begin(), before.end(), want,
          [&](const End &a, const End &b) { return key(a) < key(b); });
      for (; it != before.end() && key(*it) == key(want); ++it)
        if (!taken[size_t(it - before.begin())]) {
          taken[size_t(it - before.begin())] = true;
          return true;
        }
      return false;
    };
    moving.assign(ends.size(), false);
    firstFixed = UINT64_MAX;
    for (size_t i = 0; i < ends.size(); ++i) {
      End e = ends[i];
      if (e.at >= shift && take(End{e.at - shift, e.page, e.pages})) {
        moving[i] = true;
      } else if (take(e)) {
        firstFixed = std::min(firstFixed, e.at);
      } else {
        return false;
      }
    }
    return true;
  }

  template <typename Lives, typename Acc>
  uint64_t trySkip(uint64_t t, std::vector<End> &ends, Lives &lives, Acc &acc) {
    std::vector<bool> moving;
    uint64_t firstFixed;
    if (lasting || !pairEnds(ends, moving, firstFixed))
      return t;
    // Whole periods from t that end by the first fixed end and by total.
    uint64_t maxPeriods = (std::min(firstFixed, total) - t) / shift;
    // The periods whose lifetimes are the snapshot period's, shifted.
    Lives next = lives;
    uint64_t periods = 0;
    for (; periods < maxPeriods; ++periods) {
      uint64_t by = (periods + 1) * shift;
      Lives probe = next;
      bool same = true;
      for (const Life &a : arrivals) {
        const Life *l = probe.peekLife();
        if (!l || l->start != a.start + by || l->useEnd != a.useEnd + by ||
            l->page != a.page || l->pages != a.pages ||
            a.useEnd + by + 1 >= total) {
          same = false;
          break;
        }
        probe.pop();
      }
      // No other lifetime starts in the period.
      if (const Life *l = probe.peekLife(); same && l && l->start < t + by)
        same = false;
      if (!same)
        break;
      next = probe;
    }
    if (!periods)
      return t;
    for (uint64_t q = 1; q <= periods; ++q)
      for (const auto &[s, e, free, run] : spans)
        acc.add(s + q * shift, e + q * shift, free, run);
    lives = next;
    for (size_t i = 0; i < ends.size(); ++i)
      if (moving[i])
        ends[i].at += periods * shift;
    std::make_heap(ends.begin(), ends.end(), std::greater<End>());
    return t + periods * shift;
  }

  uint64_t total;
  std::vector<std::pair<uint64_t, uint64_t>> hints;
  size_t h = 0;
  uint64_t shift = 0, stop = UINT64_MAX;
  unsigned tries = 0;
  /// The snapshot at snapAt: its pending ends, and since then the
  /// lifetimes taken and the spans added; `lasting` when one of those
  /// lifetimes lasts to the end.
  bool haveSnap = false, lasting = false;
  uint64_t snapAt = 0;
  std::vector<End> snapEnds;
  std::vector<Life> arrivals;
  std::vector<std::array<uint64_t, 4>> spans;
};
} // namespace

VmemTracker::UnusedSeries VmemTracker::unused(uint64_t bucketCycles,
                                              uint64_t totalCycles) const {
  uint64_t total = std::max<uint64_t>(1, totalCycles);
  bucketCycles = std::max<uint64_t>(1, bucketCycles);
  uint64_t n = llvm::divideCeil(total, bucketCycles);
  UnusedSeries out;
  out.unusedFraction.assign(n, 0);
  out.largestRunFraction.assign(n, 0);
  if (!pages)
    return out;
  // A used lifetime makes its page used over [start, useEnd]: +1 at start,
  // -1 at useEnd + 1 (a page can have overlapping lifetimes when accesses
  // are recorded out of cycle order, hence counts). The lifetimes come
  // sorted by start (finish()); the pending ends wait in a min-heap, which
  // holds at most one entry per lifetime live at a time. Events at the
  // same cycle are all applied before the cycle is counted, so their order
  // does not matter (an end comes after its own start).
  std::vector<End> ends; // a min-heap by `at`
  auto popEnd = [&] {
    std::pop_heap(ends.begin(), ends.end(), std::greater<End>());
    ends.pop_back();
  };
  FreeRunTree tree(pages);
  ZeroedArray<uint32_t> liveCount(pages); // touched where pages are used
  uint64_t usedPages = 0;
  UnusedAccumulator acc(n, bucketCycles, pages);
  auto toLife = [this](const Interval &iv) {
    return Life{iv.start, useEndOf(iv), iv.page, uint32_t(iv.pages)};
  };
  UsedByStart<EntryCursor, std::vector<Interval>> lives(
      EntryCursor(*this), unmerged, total, toLife);
  SteadySkip skip(repeatHints, total);
  for (uint64_t t = 0; t < total;) {
    if (t == skip.stopAt()) {
      uint64_t resume = skip.atStop(t, ends, lives, acc);
      out.skippedCycles += resume - t;
      if ((t = resume) >= total)
        break;
    }
    while (true) {
      if (const Life *next = lives.peekLife(); next && next->start <= t) {
        const Life &iv = *next;
        skip.arrived(iv);
        for (uint32_t p = iv.page; p < iv.page + iv.pages; ++p)
          if (liveCount[p]++ == 0) {
            ++usedPages;
            tree.set(p, false);
          }
        if (iv.useEnd + 1 < total) {
          ends.push_back({iv.useEnd + 1, iv.page, iv.pages});
          std::push_heap(ends.begin(), ends.end(), std::greater<End>());
        }
        lives.pop();
      } else if (!ends.empty() && ends.front().at <= t) {
        End end = ends.front();
        for (uint32_t p = end.page; p < end.page + end.pages; ++p) {
          uint32_t &c = liveCount[p];
          if (c && --c == 0) {
            --usedPages;
            tree.set(p, true);
          }
        }
        popEnd();
      } else {
        break;
      }
    }
    tree.update();
    uint64_t until = std::min(total, skip.stopAt());
    if (const Life *next = lives.peekLife())
      until = std::min(until, next->start);
    if (!ends.empty())
      until = std::min(until, ends.front().at);
    acc.add(t, until, pages - usedPages, tree.longest());
    skip.added(t, until, pages - usedPages, tree.longest());
    t = until;
  }
  acc.finish(out, total, pages);
  return out;
}

uint64_t VmemTracker::minFreeRun(const std::vector<Bucket> &buckets,
                                 uint64_t bucketCycles, uint64_t from,
                                 uint64_t to) {
  if (buckets.empty())
    return 0;
  uint64_t b0 = std::min<uint64_t>(buckets.size() - 1, from / bucketCycles);
  uint64_t b1 =
      std::min<uint64_t>(buckets.size() - 1, (to ? to - 1 : 0) / bucketCycles);
  uint64_t best = UINT64_MAX;
  for (uint64_t b = b0; b <= b1; ++b)
    best = std::min(best, buckets[b].largestFreeRun);
  return best;
}
