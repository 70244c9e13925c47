//===- RangeMap.h - Byte ranges mapped to the latest value ------*- C++ -*-===//
//
// Disjoint half-open ranges [begin, end) each holding a value, where an
// assignment overwrites whatever it covers (splitting neighbours). Used for
// "which instruction last wrote / read these bytes" in the dependency
// analysis and the latency-aware bound.
//
// The address space is cut into chunks of kChunkBytes; each chunk touched
// keeps its own short sorted list of pieces, found through a directory
// indexed by chunk number (the first kDirectChunks chunks: 8 GiB of
// addresses, where a program's buffers are laid out from 0) or, above it,
// a hash table. A strided tile (one range per row) thus costs one
// directory lookup and a scan of a few entries per row, with no node per
// row in a balanced tree, and a chunk overwritten whole shrinks back to a
// single piece. (A hash table for every chunk was a cache miss per row:
// three quarters of the DMA WAITs' bookkeeping on the Llama MLP, issue 34.)
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_PROFILE_RANGEMAP_H
#define ACCEL_PROFILE_RANGEMAP_H

#include "accel/Sim/Memory.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <algorithm>
#include <cstdint>
#include <deque>
#include <vector>

namespace accel {
namespace profile {

template <typename T> class RangeMap {
public:
  /// Chunk size in bytes (a power of two); a range crossing chunk
  /// boundaries is stored as one piece per chunk.
  static constexpr uint64_t kChunkBytes = 4096;

  /// Sets the bytes [b, e) to `value` (nothing when b >= e). Time: one
  /// hash lookup per chunk touched plus the pieces of those chunks.
  void assign(uint64_t b, uint64_t e, T value) {
    for (uint64_t c = b / kChunkBytes; b < e; ++c) {
      uint64_t cEnd = (c + 1) * kChunkBytes;
      uint64_t pe = std::min(e, cEnd);
      Pieces &ps = chunkFor(c);
      assignIn(ps, uint32_t(b - c * kChunkBytes),
               uint32_t(pe - c * kChunkBytes), value);
      b = pe;
    }
  }
  /// Calls fn(value) for every stored piece overlapping [b, e), in address
  /// order. A value assigned to a range that crosses a chunk boundary is
  /// reported once per chunk, so callers must treat repeats as one (every
  /// caller takes a maximum or collects a set).
  template <typename Fn>
  void forEachOverlap(uint64_t b, uint64_t e, Fn fn) const {
    for (uint64_t c = b / kChunkBytes; b < e; ++c) {
      uint64_t cEnd = (c + 1) * kChunkBytes;
      uint64_t pe = std::min(e, cEnd);
      if (const Pieces *ps = findChunk(c)) {
        uint32_t lo = uint32_t(b - c * kChunkBytes);
        uint32_t hi = uint32_t(pe - c * kChunkBytes);
        for (const Piece &p : *ps) {
          if (p.begin >= hi)
            break;
          if (p.end > lo)
            fn(p.value);
        }
      }
      b = pe;
    }
  }
  bool empty() const { return chunks.empty(); }

private:
  /// Offsets within the chunk, [begin, end) with end <= kChunkBytes.
  struct Piece {
    uint32_t begin, end;
    T value;
  };
  using Pieces = llvm::SmallVector<Piece, 1>;

  /// Chunks numbered below this are found through `direct`.
  static constexpr uint64_t kDirectChunks = uint64_t(1) << 21;

  Pieces &chunkFor(uint64_t c) {
    if (c < kDirectChunks) {
      if (c >= direct.size()) // doubling: amortized O(1) per chunk touched
        direct.resize(std::min<size_t>(
            kDirectChunks, std::max<size_t>(c + 1, 2 * direct.size())));
      uint32_t &slot = direct[c];
      if (!slot) {
        chunks.emplace_back();
        slot = uint32_t(chunks.size());
      }
      return chunks[slot - 1];
    }
    auto [it, inserted] = index.try_emplace(c, uint32_t(chunks.size()));
    if (inserted)
      chunks.emplace_back();
    return chunks[it->second];
  }
  /// The pieces of chunk `c`, or null when it was never assigned.
  const Pieces *findChunk(uint64_t c) const {
    if (c < kDirectChunks)
      return c < direct.size() && direct[c] ? &chunks[direct[c] - 1] : nullptr;
    auto it = index.find(c);
    return it == index.end() ? nullptr : &chunks[it->second];
  }
  /// Makes room for `extra` more pieces: a chunk that outgrows its one
  /// inline piece gets kFirstPieces at once, then twice as many each time.
  /// (Rows of tiles cut a chunk into several pieces: a 512-byte row of each
  /// of eight weight tiles made the Llama MLP's chunks grow 1, 2, 4, 8, 16,
  /// an allocation and a copy each time, 3% of its fdo; issue 34.)
  static void reserveFor(Pieces &ps, size_t extra) {
    if (ps.size() + extra > ps.capacity())
      ps.reserve(std::max<size_t>(
          {ps.size() + extra, kFirstPieces, 2 * ps.capacity()}));
  }
  static constexpr size_t kFirstPieces = 8;
  /// Sets [b, e) (offsets, b < e) of one chunk's sorted pieces to `value`.
  static void assignIn(Pieces &ps, uint32_t b, uint32_t e, const T &value) {
    if (b == 0 && e == kChunkBytes) {
      ps.clear();
      ps.push_back(Piece{b, e, value});
      return;
    }
    Piece mid{b, e, value};
    size_t n = ps.size();
    if (n == 0 || ps[n - 1].end <= b) { // after every piece (rows in order)
      reserveFor(ps, 1);
      ps.push_back(mid);
      return;
    }
    // Pieces [i, j) overlap [b, e).
    size_t i = 0;
    while (i < n && ps[i].end <= b)
      ++i;
    size_t j = i;
    while (j < n && ps[j].begin < e)
      ++j;
    if (j == i + 1 && ps[i].begin == b && ps[i].end == e) {
      ps[i].value = value; // the same range again (a tile in a loop)
      return;
    }
    if (i == j) { // nothing overlaps: insert
      reserveFor(ps, 1);
      ps.insert(ps.begin() + i, mid);
      return;
    }
    bool keepLeft = ps[i].begin<b, keepRight = ps[j - 1].end> e;
    Piece left{ps[i].begin, b, ps[i].value};
    Piece right{e, ps[j - 1].end, ps[j - 1].value};
    // Replace pieces [i, j) with [left] mid [right].
    size_t need = size_t(keepLeft) + 1 + size_t(keepRight);
    size_t have = j - i;
    if (have < need) {
      reserveFor(ps, need - have);
      ps.insert(ps.begin() + j, need - have, mid);
    } else if (have > need)
      ps.erase(ps.begin() + i + need, ps.begin() + j);
    size_t k = i;
    if (keepLeft)
      ps[k++] = left;
    ps[k++] = mid;
    if (keepRight)
      ps[k] = right;
  }

  /// Chunk number -> 1 + its slot in `chunks` (0: none), below
  /// kDirectChunks; grown to the highest chunk touched.
  std::vector<uint32_t> direct;
  /// Chunk number -> slot in `chunks`, at or above kDirectChunks.
  llvm::DenseMap<uint64_t, uint32_t> index;
  /// The pieces of each chunk touched, in order of first touch. A deque:
  /// it grows without moving its elements, which a vector would copy
  /// (SmallVector's move is not noexcept), every heap list reallocated
  /// each time the vector doubled (1% of the Llama MLP's fdo; issue 34).
  std::deque<Pieces> chunks;
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
  /// Calls fn(value) for every recorded piece overlapping `r` (possibly
  /// more than once per value: see RangeMap::forEachOverlap).
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

} // namespace profile
} // namespace accel

#endif // ACCEL_PROFILE_RANGEMAP_H
