//===- InitialHbm.h - The initial contents of HBM ---------------*- C++ -*-===//
//
// Private to lib/Sim: the initial bytes of a buffer table's HBM, made for
// any range when it is read (initBytes), and the hashes of unwritten ranges
// that the Memory objects of equal tables share (InitialHashes). Memory.cpp
// reads initial bytes through them; compareHbm compares results against
// them.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_LIB_SIM_INITIALHBM_H
#define ACCEL_LIB_SIM_INITIALHBM_H

#include "accel/Sim/Memory.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <map>
#include <memory>
#include <mutex>
#include <vector>

namespace accel {
namespace sim {

/// Writes the `n` initial bytes of HBM at [addr, addr + n) for the buffer
/// table `bufs` to `out`: each HBM buffer's initValue, iota or data image
/// (a later buffer's over an earlier one's where they overlap), zeros
/// elsewhere. An element that crosses a kHbmPageBytes page boundary or its
/// buffer's end is zero. The bytes of any range are the same slice of
/// those of the pages around it, so a DMA reads exactly the bytes it needs
/// (a row of a weight tile), made in place: no image of the weights is
/// kept (issue 34: one was 516 MiB of the Llama MLP's fdo peak, and
/// copying a row out of it cost more than making it again).
void initBytes(uint64_t addr, uint64_t n, llvm::ArrayRef<isa::Buffer> bufs,
               uint8_t *out);
/// initBytes of the page at `pageAddr` into `bytes` (resized to
/// kHbmPageBytes).
void initPage(uint64_t pageAddr, const std::vector<isa::Buffer> &bufs,
              std::vector<uint8_t> &bytes);

/// xxh3_64bits of `n` bytes that `fill(offset, length, out)` writes to
/// `out` a piece at a time (bytes [offset, offset + length) of the n, at
/// most 64 KiB per call, in order): the same value as llvm::xxh3_64bits of
/// all n at once (XXH3-64, seed 0, fed incrementally by xxHash itself), in
/// 64 KiB of memory however large n is.
uint64_t
hashPieces(uint64_t n,
           llvm::function_ref<void(uint64_t, uint64_t, uint8_t *)> fill);

/// What every Memory made for an equal buffer table shares: the hashes of
/// initial bytes. A run's result hash reads each unwritten buffer (the
/// weights of a model), which is the same in every run of an fdo loop or a
/// sweep. Thread-safe (a sweep's runs share it).
class InitialHashes {
public:
  /// The hashes of `buffers` (a Memory's: sorted, the chip's seeds): one of
  /// the last kKept made for an equal table, else a new one (which then
  /// replaces the least recently used).
  static std::shared_ptr<InitialHashes>
  get(const std::vector<isa::Buffer> &buffers);

  /// xxh3_64bits of the initial bytes [addr, addr + n), computed once per
  /// range and kept (the bytes made and hashed a piece at a time): a
  /// run's result hash reads an unwritten buffer (the weights of a model)
  /// from here instead of making and hashing it again.
  uint64_t initialHash(uint64_t addr, uint64_t n);

private:
  /// Tables kept for reuse after their memories are gone: an fdo loop's
  /// runs come one after the other (and its baseline beside them).
  static constexpr size_t kKept = 2;

  explicit InitialHashes(std::vector<isa::Buffer> buffers, uint64_t key)
      : buffers(std::move(buffers)), key(key) {}

  /// What initPage reads of `buffers`, hashed: the HBM buffers that do not
  /// start as zeros (extent, element type, init, seed, data image).
  static uint64_t keyOf(const std::vector<isa::Buffer> &buffers);

  /// Whether these hashes are for a table equal to `other` in what
  /// initPage reads (the key is a hash: equal keys are checked).
  bool holds(const std::vector<isa::Buffer> &other) const;

  std::vector<isa::Buffer> buffers;
  uint64_t key;
  std::mutex mutex;
  /// initialHash's results by (address, bytes).
  std::map<std::pair<uint64_t, uint64_t>, uint64_t> hashes;
};

} // namespace sim
} // namespace accel

#endif // ACCEL_LIB_SIM_INITIALHBM_H
