//===- HbmImage.h - The initial contents of HBM -----------------*- C++ -*-===//
//
// Private to lib/Sim: the initial bytes of a buffer table's HBM pages
// (initPage) and the cache of them that the Memory objects of equal tables
// share (HbmImage). Memory.cpp reads pages from it; compareHbm compares
// results against it.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_LIB_SIM_HBMIMAGE_H
#define ACCEL_LIB_SIM_HBMIMAGE_H

#include "accel/Sim/Memory.h"

#include "llvm/ADT/DenseMap.h"

#include <map>
#include <memory>
#include <mutex>
#include <vector>

namespace accel {
namespace sim {

/// Fills `bytes` with the kHbmPageBytes initial bytes of the HBM page at
/// `pageAddr` for the buffer table `bufs`: each buffer's initValue, iota
/// or data image, zeros elsewhere.
void initPage(uint64_t pageAddr, const std::vector<isa::Buffer> &bufs,
              std::vector<uint8_t> &bytes);
/// The same into `bytes[0, kHbmPageBytes)`.
void initPage(uint64_t pageAddr, const std::vector<isa::Buffer> &bufs,
              uint8_t *bytes);

/// The initial contents of HBM for one buffer table (initPage: the buffers'
/// initValue, iota or data images, zeros elsewhere), computed page by page
/// on first use and shared, read-only, by every Memory made for an equal
/// table: the runs of an fdo loop or of a sweep compute a page's initial
/// values once (issue 34: 17% of `fdo` on the Llama MLP went to
/// regenerating 516 MiB of weights in every run). Thread-safe (a sweep's
/// runs share it).
class HbmImage {
public:
  /// The image of `buffers` (a Memory's: sorted, the chip's seeds): one of
  /// the last kKept made for an equal table, else a new one (which then
  /// replaces the least recently used).
  static std::shared_ptr<HbmImage> get(const std::vector<isa::Buffer> &buffers);

  /// The kHbmPageBytes initial bytes of the page at `pageAddr`.
  const uint8_t *page(uint64_t pageAddr);

  /// xxh3_64bits of the initial bytes [addr, addr + n), computed once per
  /// range and kept: a run's result hash reads an unwritten buffer (the
  /// weights of a model) from here instead of hashing it again.
  uint64_t initialHash(uint64_t addr, uint64_t n);

private:
  /// Images kept for reuse after their memories are gone: an fdo loop's
  /// runs come one after the other (and its baseline beside them).
  static constexpr size_t kKept = 2;

  explicit HbmImage(std::vector<isa::Buffer> buffers, uint64_t key)
      : buffers(std::move(buffers)), key(key) {}

  /// What initPage reads of `buffers`, hashed: the HBM buffers that do not
  /// start as zeros (extent, element type, init, seed, data image).
  static uint64_t keyOf(const std::vector<isa::Buffer> &buffers);

  /// Whether this image was made for a table equal to `other` in what
  /// initPage reads (the key is a hash: equal keys are checked).
  bool holds(const std::vector<isa::Buffer> &other) const;

  /// page() with `mutex` held: the page, computed on first use (with
  /// every page of its buffer: blockLocked).
  const uint8_t *pageLocked(uint64_t pageAddr);

  /// The initial bytes of the pages [base, base + bytes), contiguous.
  struct Block {
    uint64_t base, bytes;
    std::unique_ptr<uint8_t[]> data;
  };
  /// Whether `b` is an HBM buffer whose initial bytes are not all zeros.
  static bool isInitialized(const isa::Buffer &b);
  /// With `mutex` held: the block of the pages buffer `buffers[buffer]`
  /// touches, computed (and its pages entered in `pages`) on first use. A
  /// buffer's pages are computed together so that its initial bytes are
  /// contiguous: initialHash hashes them in place, and a run, whose result
  /// hash reads every unwritten buffer, computes them all anyway.
  const Block &blockLocked(size_t buffer);

  std::vector<isa::Buffer> buffers;
  uint64_t key;
  std::mutex mutex;
  /// Every page computed so far, in its block.
  llvm::DenseMap<uint64_t, const uint8_t *> pages;
  std::vector<Block> blocks;
  /// The block of each initialized buffer computed so far (an index into
  /// `blocks`), by the buffer's index in `buffers`.
  llvm::DenseMap<size_t, size_t> blockOf;
  /// initialHash's results by (address, bytes).
  std::map<std::pair<uint64_t, uint64_t>, uint64_t> hashes;
};

} // namespace sim
} // namespace accel

#endif // ACCEL_LIB_SIM_HBMIMAGE_H
