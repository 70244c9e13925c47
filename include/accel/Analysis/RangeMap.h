//===- RangeMap.h - Byte ranges mapped to the latest value ------*- C++ -*-===//
//
// Disjoint half-open ranges [begin, end) each holding a value, where an
// assignment overwrites whatever it covers (splitting neighbours). Used for
// "which instruction last wrote / read these bytes" in the dependency
// analysis. Operations are O(log n + k) for k ranges touched.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_ANALYSIS_RANGEMAP_H
#define ACCEL_ANALYSIS_RANGEMAP_H

#include "accel/Sim/Memory.h"

#include <cstdint>
#include <iterator>
#include <map>
#include <vector>

namespace accel {
namespace analysis {

template <typename T> class RangeMap {
public:
  /// Sets [b, e) to `value`.
  void assign(uint64_t b, uint64_t e, T value) {
    if (b >= e)
      return;
    // Fast path: the same range again (a tile rewritten in a loop).
    if (auto it = ranges.find(b); it != ranges.end() && it->second.end == e) {
      it->second.value = value;
      return;
    }
    split(b);
    split(e);
    auto it = ranges.lower_bound(b);
    while (it != ranges.end() && it->first < e)
      it = ranges.erase(it);
    ranges.emplace(b, Entry{e, value});
  }
  /// Calls fn(value) for every range overlapping [b, e).
  template <typename Fn> void forEachOverlap(uint64_t b, uint64_t e, Fn fn) const {
    auto it = ranges.upper_bound(b);
    if (it != ranges.begin())
      --it;
    for (; it != ranges.end() && it->first < e; ++it)
      if (it->second.end > b)
        fn(it->second.value);
  }
  bool empty() const { return ranges.empty(); }

private:
  struct Entry {
    uint64_t end;
    T value;
  };
  /// Makes `at` a range boundary.
  void split(uint64_t at) {
    auto it = ranges.upper_bound(at);
    if (it == ranges.begin())
      return;
    --it;
    if (it->first < at && it->second.end > at) {
      Entry right{it->second.end, it->second.value};
      it->second.end = at;
      ranges.emplace_hint(std::next(it), at, right);
    }
  }
  std::map<uint64_t, Entry> ranges;
};

/// A RangeMap per memory of a system: one for each (chip, space) pair, so
/// the same address on two chips (or in HBM and VMEM) never aliases. Maps
/// are created on the first assignment; chip ids are those the simulator
/// accepted, so the table stays as small as the system.
template <typename T> class MemoryRangeMap {
public:
  /// Sets the bytes of `r` to `value`.
  void assign(const sim::AddrRange &r, T value) {
    size_t i = indexOf(r);
    if (i >= maps.size())
      maps.resize(i + 1);
    maps[i].assign(r.begin, r.end, value);
  }
  /// Calls fn(value) for every recorded range overlapping `r`.
  template <typename Fn>
  void forEachOverlap(const sim::AddrRange &r, Fn fn) const {
    size_t i = indexOf(r);
    if (i < maps.size())
      maps[i].forEachOverlap(r.begin, r.end, fn);
  }

private:
  static size_t indexOf(const sim::AddrRange &r) {
    return size_t(r.chip) * 2 + size_t(r.space);
  }
  std::vector<RangeMap<T>> maps;
};

} // namespace analysis
} // namespace accel

#endif // ACCEL_ANALYSIS_RANGEMAP_H
