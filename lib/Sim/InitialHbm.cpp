//===- InitialHbm.cpp - The initial contents of HBM -----------------------===//
//
// A buffer table's initial HBM bytes, generated for any range on demand
// (initBytes), the hashes of unwritten ranges shared by the memories of
// equal tables (InitialHashes), and compareHbm, which compares two runs' HBM
// against the initial bytes.
//
//===----------------------------------------------------------------------===//

#include "InitialHbm.h"
#include "accel/Support/BFloat16.h"
#include "accel/Support/VectorClones.h"

#include "llvm/Support/MathExtras.h"
#include "llvm/Support/xxhash.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <algorithm>
#include <cstring>

using namespace accel;
using namespace accel::sim;

/// Writes initValue(seed, first + i) as f32 to out[4 i .. 4 i + 4), for
/// i < count: the weights of a random-initialized buffer, most of the
/// bytes of a model's HBM (vectorized per CPU: VectorClones.h).
ACCEL_VECTOR_CLONES
static void fillRandomF32(uint8_t *out, uint32_t seed, uint64_t first,
                          size_t count) {
  for (size_t i = 0; i < count; ++i) {
    float v = isa::initValue(seed, first + i);
    std::memcpy(out + 4 * i, &v, 4);
  }
}

/// The `size` bytes of element `index` of buffer `b` (not Data, not Zero).
static void elementBytes(const isa::Buffer &b, uint64_t index, unsigned size,
                         uint8_t *at) {
  if (b.init == isa::BufferInit::Iota) {
    int32_t v = int32_t(index);
    std::memcpy(at, &v, 4);
  } else if (size == 2) {
    uint16_t v = f32ToBf16(isa::initValue(b.seed, index));
    std::memcpy(at, &v, 2);
  } else {
    float v = isa::initValue(b.seed, index);
    std::memcpy(at, &v, 4);
  }
}

/// Writes buffer `b`'s initial bytes of [lo, hi) (inside it) to
/// out[lo - addr ...]: its data image, or its elements. An element that
/// crosses a page boundary (a buffer not aligned to its element size) or
/// the buffer's end stays zero, as initPage has always left it.
static void initBuffer(const isa::Buffer &b, uint64_t lo, uint64_t hi,
                       uint64_t addr, uint8_t *out) {
  if (b.init == isa::BufferInit::Data) {
    // The image's bytes (as many as it carries: a hand-built program may
    // hold fewer, the rest stays 0).
    llvm::ArrayRef<uint8_t> data = b.getData();
    uint64_t have = std::min<uint64_t>(data.size(), hi - b.base);
    if (lo - b.base < have)
      std::memcpy(out + (lo - addr), data.data() + (lo - b.base),
                  have - (lo - b.base));
    return;
  }
  unsigned size = isa::getElemBytes(b.elemType);
  uint64_t whole = b.bytes / size; // elements wholly inside the buffer
  // The elements [e, eEnd) have bytes in [lo, hi).
  uint64_t e = (lo - b.base) / size;
  uint64_t eEnd = std::min(whole, llvm::divideCeil(hi - b.base, size));
  auto one = [&](uint64_t index) {
    uint64_t at = b.base + index * size;
    constexpr uint64_t kPage = Memory::kHbmPageBytes;
    if (at / kPage != (at + size - 1) / kPage)
      return; // crosses a page boundary: zero
    uint8_t bytes[4];
    elementBytes(b, index, size, bytes);
    uint64_t from = std::max(at, lo), to = std::min(at + size, hi);
    std::memcpy(out + (from - addr), bytes + (from - at), to - from);
  };
  if (b.init != isa::BufferInit::Random || size != 4 || b.base % 4 != 0) {
    for (; e < eEnd; ++e)
      one(e);
    return;
  }
  // Aligned f32 (a model's weights; no element crosses a page): the
  // elements wholly inside [lo, hi) in one vector loop, then the at most
  // two cut by its ends.
  uint64_t first = llvm::divideCeil(lo - b.base, 4);
  uint64_t last = std::max(first, std::min(whole, (hi - b.base) / 4));
  if (first < last)
    fillRandomF32(out + (b.base + 4 * first - addr), b.seed, first,
                  last - first);
  if (e < first && e < eEnd)
    one(e);
  if (last < eEnd)
    one(last);
}

void sim::initBytes(uint64_t addr, uint64_t n, llvm::ArrayRef<isa::Buffer> bufs,
                    uint8_t *out) {
  std::memset(out, 0, n);
  uint64_t end = addr + n;
  for (const isa::Buffer &b : bufs) {
    // (An iota buffer has 4-byte elements: the image reader refuses bf16.)
    if (b.space != isa::MemSpace::HBM || b.init == isa::BufferInit::Zero ||
        (b.init == isa::BufferInit::Iota && b.elemType == isa::ElemType::BF16))
      continue;
    uint64_t lo = std::max(addr, b.base);
    uint64_t hi = std::min(end, llvm::SaturatingAdd(b.base, b.bytes));
    if (lo < hi)
      initBuffer(b, lo, hi, addr, out);
  }
}

void sim::initPage(uint64_t pageAddr, const std::vector<isa::Buffer> &bufs,
                   std::vector<uint8_t> &bytes) {
  bytes.resize(Memory::kHbmPageBytes);
  initBytes(pageAddr, Memory::kHbmPageBytes, bufs, bytes.data());
}

uint64_t
sim::hashPieces(uint64_t n,
                llvm::function_ref<void(uint64_t, uint64_t, uint8_t *)> fill) {
  constexpr uint64_t kPiece = 1 << 20;
  std::unique_ptr<uint8_t[]> piece(new uint8_t[std::min(n, kPiece) + 1]);
  XXH3_state_t state;
  XXH3_INITSTATE(&state);
  XXH3_64bits_reset(&state);
  for (uint64_t at = 0; at < n; at += kPiece) {
    uint64_t len = std::min(kPiece, n - at);
    fill(at, len, piece.get());
    XXH3_64bits_update(&state, piece.get(), len);
  }
  return XXH3_64bits_digest(&state);
}

uint64_t InitialHashes::initialHash(uint64_t addr, uint64_t n) {
  std::lock_guard<std::mutex> lock(mutex);
  auto [it, inserted] = hashes.try_emplace({addr, n}, 0);
  if (!inserted)
    return it->second;
  // Made a piece at a time: a model's weights are hundreds of MiB.
  return it->second =
             hashPieces(n, [&](uint64_t at, uint64_t len, uint8_t *out) {
               initBytes(addr + at, len, buffers, out);
             });
}

uint64_t InitialHashes::keyOf(const std::vector<isa::Buffer> &buffers) {
  std::vector<uint64_t> fields;
  for (const isa::Buffer &b : buffers) {
    if (b.space != isa::MemSpace::HBM || b.init == isa::BufferInit::Zero)
      continue;
    fields.insert(fields.end(),
                  {b.base, b.bytes, uint64_t(b.elemType), uint64_t(b.init),
                   uint64_t(b.seed), llvm::xxh3_64bits(b.getData())});
  }
  return llvm::xxh3_64bits(llvm::ArrayRef<uint8_t>(
      reinterpret_cast<const uint8_t *>(fields.data()), fields.size() * 8));
}

bool InitialHashes::holds(const std::vector<isa::Buffer> &other) const {
  auto initialized = [](const std::vector<isa::Buffer> &bufs) {
    std::vector<const isa::Buffer *> out;
    for (const isa::Buffer &b : bufs)
      if (b.space == isa::MemSpace::HBM && b.init != isa::BufferInit::Zero)
        out.push_back(&b);
    return out;
  };
  std::vector<const isa::Buffer *> a = initialized(buffers),
                                   b = initialized(other);
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(),
                    [](const isa::Buffer *x, const isa::Buffer *y) {
                      return x->base == y->base && x->bytes == y->bytes &&
                             x->elemType == y->elemType && x->init == y->init &&
                             x->seed == y->seed && x->getData() == y->getData();
                    });
}

std::shared_ptr<InitialHashes>
InitialHashes::get(const std::vector<isa::Buffer> &buffers) {
  static std::mutex cacheMutex;
  static std::vector<std::shared_ptr<InitialHashes>> kept; // most recent last
  uint64_t key = keyOf(buffers);
  std::lock_guard<std::mutex> lock(cacheMutex);
  for (auto it = kept.begin(); it != kept.end(); ++it)
    if ((*it)->key == key && (*it)->holds(buffers)) {
      std::shared_ptr<InitialHashes> hashes = *it;
      kept.erase(it);
      kept.push_back(hashes);
      return hashes;
    }
  std::shared_ptr<InitialHashes> made(new InitialHashes(buffers, key));
  if (kept.size() == kKept)
    kept.erase(kept.begin());
  kept.push_back(made);
  return made;
}

std::optional<uint64_t>
sim::compareHbm(const std::map<uint64_t, std::vector<uint8_t>> &a,
                const std::map<uint64_t, std::vector<uint8_t>> &b,
                const std::vector<isa::Buffer> &buffers) {
  std::vector<uint64_t> pages;
  for (const auto &e : a)
    pages.push_back(e.first);
  for (const auto &e : b)
    pages.push_back(e.first);
  std::sort(pages.begin(), pages.end());
  pages.erase(std::unique(pages.begin(), pages.end()), pages.end());
  std::vector<uint8_t> initial;
  for (uint64_t page : pages) {
    auto ia = a.find(page), ib = b.find(page);
    const std::vector<uint8_t> *pa = ia != a.end() ? &ia->second : nullptr;
    const std::vector<uint8_t> *pb = ib != b.end() ? &ib->second : nullptr;
    if (!pa || !pb) {
      initPage(page, buffers, initial);
      if (!pa)
        pa = &initial;
      else
        pb = &initial;
    }
    for (uint64_t i = 0; i < Memory::kHbmPageBytes; ++i)
      if ((*pa)[i] != (*pb)[i])
        return page + i;
  }
  return std::nullopt;
}
