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

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/xxhash.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <algorithm>
#include <array>
#include <cstring>

#if defined(__x86_64__) && defined(__GNUC__)
#define ACCEL_INITIAL_HBM_AVX2 1
#include <immintrin.h>
#else
#define ACCEL_INITIAL_HBM_AVX2 0
#endif

using namespace accel;
using namespace accel::sim;

/// Writes initValue(seed, first + i) as f32 to out[4 i .. 4 i + 4), for
/// i < count: the weights of a random-initialized buffer, most of the
/// bytes of a model's HBM. Vectorized per CPU (VectorClones.h); on a CPU
/// with AVX2 and without AVX-512, fillRandomF32Avx2 does the same.
ACCEL_VECTOR_CLONES
static void fillRandomF32Generic(uint8_t *out, uint32_t seed, uint64_t first,
                                 size_t count) {
  for (size_t i = 0; i < count; ++i) {
    float v = isa::initValue(seed, first + i);
    std::memcpy(out + 4 * i, &v, 4);
  }
}

#if ACCEL_INITIAL_HBM_AVX2
/// Per 64-bit lane of `z` (splitmix64's state, initValue's z), the high 32
/// bits of its last product y = b * kInitMix2 (mod 2^64), in the high half
/// of the lane; the low halves hold nothing of use. 64-bit products from
/// AVX2's 32-bit multiplies: lo*lo by vpmuludq, and the two cross terms
/// (which reach only the high half) in one vpmulld against the
/// multiplier's halves swapped (`mix1Swapped`, `mix2Swapped`).
__attribute__((target("avx2"), always_inline)) static inline __m256i
splitmixHighOfY(__m256i z, __m256i mix1, __m256i mix1Swapped, __m256i mix2,
                __m256i mix2Swapped) {
  const __m256i highHalves = _mm256_set1_epi64x(int64_t(0xffffffff00000000ULL));
  __m256i a = _mm256_xor_si256(z, _mm256_srli_epi64(z, 30));
  // t = a * kInitMix1 (mod 2^64): lo*lo plus (the cross terms' sum) << 32.
  __m256i cross = _mm256_mullo_epi32(a, mix1Swapped);
  cross = _mm256_add_epi32(cross, _mm256_slli_epi64(cross, 32));
  __m256i t = _mm256_add_epi64(_mm256_mul_epu32(a, mix1),
                               _mm256_and_si256(cross, highHalves));
  __m256i b = _mm256_xor_si256(t, _mm256_srli_epi64(t, 27));
  // hi32(y) = hi32(lo*lo) + both cross terms.
  __m256i q = _mm256_mullo_epi32(b, mix2Swapped);
  __m256i y = _mm256_add_epi32(_mm256_mul_epu32(b, mix2), q);
  return _mm256_add_epi32(y, _mm256_slli_epi64(q, 32));
}

/// fillRandomF32Generic with AVX2's 32-bit multiplies, bit for bit: of
/// splitmix64's last product y, initValue keeps only bits 40..63 (its final
/// `z ^ (z >> 31)` leaves bits 33 and up alone), which hi32(y) holds
/// (splitmixHighOfY), so the low 32 bits of y are never made. Two vectors
/// hold the even and the odd elements of 8, so their results interleave
/// into the order of memory with one blend. The loop is about 40 vector
/// instructions per 8 elements against the compiler's 70 (three vpmuludq
/// and shifts per 64-bit product, then a four-instruction pack).
__attribute__((target("avx2"))) static void
fillRandomF32Avx2(uint8_t *out, uint32_t seed, uint64_t first, size_t count) {
  // The multipliers, and their 32-bit halves swapped in each lane.
  auto swapped = [](uint64_t m) { return int64_t((m << 32) | (m >> 32)); };
  const __m256i mix1 = _mm256_set1_epi64x(int64_t(isa::kInitMix1)),
                mix1Swapped = _mm256_set1_epi64x(swapped(isa::kInitMix1)),
                mix2 = _mm256_set1_epi64x(int64_t(isa::kInitMix2)),
                mix2Swapped = _mm256_set1_epi64x(swapped(isa::kInitMix2));
  const __m256 scale = _mm256_set1_ps(1.0f / float(1u << 24)),
               half = _mm256_set1_ps(0.5f), quarter = _mm256_set1_ps(0.25f);
  uint64_t z0 = first + isa::kInitGamma * (uint64_t(seed) + 1);
  __m256i even = _mm256_add_epi64(_mm256_set1_epi64x(int64_t(z0)),
                                  _mm256_set_epi64x(6, 4, 2, 0));
  __m256i odd = _mm256_add_epi64(even, _mm256_set1_epi64x(1));
  const __m256i step = _mm256_set1_epi64x(8);
  size_t i = 0;
  for (; i + 8 <= count; i += 8) {
    __m256i e = splitmixHighOfY(even, mix1, mix1Swapped, mix2, mix2Swapped);
    __m256i o = splitmixHighOfY(odd, mix1, mix1Swapped, mix2, mix2Swapped);
    // Element 2k's bits to lane 2k, element 2k+1's stay in lane 2k+1.
    __m256i top = _mm256_blend_epi32(_mm256_srli_epi64(e, 32), o, 0xaa);
    // initValue's arithmetic: (bits / 2^24 - 0.5) * 0.25, exact to the
    // division (by a power of two: a multiplication).
    __m256 u =
        _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_srli_epi32(top, 8)), scale);
    __m256 v = _mm256_mul_ps(_mm256_sub_ps(u, half), quarter);
    _mm256_storeu_ps(reinterpret_cast<float *>(out + 4 * i), v);
    even = _mm256_add_epi64(even, step);
    odd = _mm256_add_epi64(odd, step);
  }
  fillRandomF32Generic(out + 4 * i, seed, first + i, count - i);
}
#endif

/// Writes initValue(seed, first + i) as f32 to out[4 i .. 4 i + 4), for
/// i < count, by the fastest of the two above for this CPU.
static void fillRandomF32(uint8_t *out, uint32_t seed, uint64_t first,
                          size_t count) {
#if ACCEL_INITIAL_HBM_AVX2
  static const bool useAvx2 =
      __builtin_cpu_supports("avx2") && !__builtin_cpu_supports("avx512dq");
  if (useAvx2)
    return fillRandomF32Avx2(out, seed, first, count);
#endif
  fillRandomF32Generic(out, seed, first, count);
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

/// The elements [first, last) of buffer `b` that fillRandomF32 writes for
/// its bytes [lo, hi) (inside it): those wholly inside the range when `b`
/// holds random 4-byte elements at an aligned base, else none (first == last).
static std::pair<uint64_t, uint64_t> getVectorFilled(const isa::Buffer &b,
                                                     uint64_t lo, uint64_t hi) {
  if (b.init != isa::BufferInit::Random || isa::getElemBytes(b.elemType) != 4 ||
      b.base % 4 != 0)
    return {0, 0};
  uint64_t first = llvm::divideCeil(lo - b.base, 4);
  uint64_t last = std::max(first, std::min(b.bytes / 4, (hi - b.base) / 4));
  return {first, last};
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
  auto [first, last] = getVectorFilled(b, lo, hi);
  if (first == last) {
    for (; e < eEnd; ++e)
      one(e);
    return;
  }
  // Aligned f32 (a model's weights; no element crosses a page): the
  // elements wholly inside [lo, hi) in one vector loop, then the at most
  // two cut by its ends.
  fillRandomF32(out + (b.base + 4 * first - addr), b.seed, first, last - first);
  if (e < first && e < eEnd)
    one(e);
  if (last < eEnd)
    one(last);
}

void sim::initBytes(uint64_t addr, uint64_t n, llvm::ArrayRef<isa::Buffer> bufs,
                    uint8_t *out) {
  uint64_t end = addr + n;
  // The buffers that hold bytes of [addr, end), with the part of it each
  // holds and the bytes of it fillRandomF32 writes.
  struct Part {
    const isa::Buffer *buffer;
    uint64_t lo, hi, filledLo, filledHi;
  };
  llvm::SmallVector<Part, 2> parts;
  for (const isa::Buffer &b : bufs) {
    // (An iota buffer has 4-byte elements: the image reader refuses bf16.)
    if (b.space != isa::MemSpace::HBM || b.init == isa::BufferInit::Zero ||
        (b.init == isa::BufferInit::Iota && b.elemType == isa::ElemType::BF16))
      continue;
    uint64_t lo = std::max(addr, b.base);
    uint64_t hi = std::min(end, llvm::SaturatingAdd(b.base, b.bytes));
    if (lo >= hi)
      continue;
    auto [first, last] = getVectorFilled(b, lo, hi);
    parts.push_back({&b, lo, hi, b.base + 4 * first, b.base + 4 * last});
  }
  // Zeros first, but not where fillRandomF32 writes every byte anyway (a
  // model's weights, where a read is mostly inside one buffer: zeroing
  // them was a tenth of making them, issue 34). Every other byte ends as
  // its last writer's or zero, as before.
  auto zeroOutside = [&](auto filledRanges) {
    uint64_t zeroFrom = addr;
    for (auto [from, to] : filledRanges) {
      if (from > zeroFrom)
        std::memset(out + (zeroFrom - addr), 0, from - zeroFrom);
      zeroFrom = std::max(zeroFrom, to);
    }
    if (zeroFrom < end)
      std::memset(out + (zeroFrom - addr), 0, end - zeroFrom);
  };
  if (parts.size() == 1) {
    zeroOutside(std::array<std::pair<uint64_t, uint64_t>, 1>{
        {{parts[0].filledLo, parts[0].filledHi}}});
  } else {
    llvm::SmallVector<std::pair<uint64_t, uint64_t>, 4> filled;
    for (const Part &p : parts)
      filled.push_back({p.filledLo, p.filledHi});
    llvm::sort(filled);
    zeroOutside(filled);
  }
  for (const Part &p : parts)
    initBuffer(*p.buffer, p.lo, p.hi, addr, out);
}

void sim::initPage(uint64_t pageAddr, const std::vector<isa::Buffer> &bufs,
                   std::vector<uint8_t> &bytes) {
  bytes.resize(Memory::kHbmPageBytes);
  initBytes(pageAddr, Memory::kHbmPageBytes, bufs, bytes.data());
}

uint64_t
sim::hashPieces(uint64_t n,
                llvm::function_ref<void(uint64_t, uint64_t, uint8_t *)> fill) {
  // 64 KiB: a heap block malloc hands back to the next call (a 1 MiB piece
  // was a fresh mapping each call, 256 page faults: a quarter of a small
  // run's), and in L2 between the fill and the hash.
  constexpr uint64_t kPiece = 64 << 10;
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
