//===- HbmImage.cpp - The initial contents of HBM -------------------------===//
//
// A buffer table's initial HBM bytes, page by page (initPage), the cache of
// them shared by the memories of equal tables (HbmImage), and compareHbm,
// which compares two runs' HBM against them.
//
//===----------------------------------------------------------------------===//

#include "HbmImage.h"
#include "accel/Support/BFloat16.h"
#include "accel/Support/VectorClones.h"

#include "llvm/Support/MathExtras.h"
#include "llvm/Support/xxhash.h"

#include <algorithm>
#include <cstring>

using namespace accel;
using namespace accel::sim;

/// Writes initValue(seed, first + i) as f32 to out[4 i .. 4 i + 4), for
/// i < count: the weights of a random-initialized buffer, most of the
/// bytes an initial image holds (vectorized per CPU: VectorClones.h).
ACCEL_VECTOR_CLONES
static void fillRandomF32(uint8_t *out, uint32_t seed, uint64_t first,
                          size_t count) {
  for (size_t i = 0; i < count; ++i) {
    float v = isa::initValue(seed, first + i);
    std::memcpy(out + 4 * i, &v, 4);
  }
}

void sim::initPage(uint64_t pageAddr, const std::vector<isa::Buffer> &bufs,
                   std::vector<uint8_t> &bytes) {
  bytes.resize(Memory::kHbmPageBytes);
  initPage(pageAddr, bufs, bytes.data());
}

void sim::initPage(uint64_t pageAddr, const std::vector<isa::Buffer> &bufs,
                   uint8_t *bytes) {
  std::memset(bytes, 0, Memory::kHbmPageBytes);
  uint64_t pageEnd = pageAddr + Memory::kHbmPageBytes;
  for (const isa::Buffer &b : bufs) {
    // (An iota buffer has 4-byte elements: the image reader refuses bf16.)
    if (b.space != isa::MemSpace::HBM || b.init == isa::BufferInit::Zero ||
        (b.init == isa::BufferInit::Iota && b.elemType == isa::ElemType::BF16))
      continue;
    uint64_t lo = std::max(pageAddr, b.base);
    uint64_t hi = std::min(pageEnd, llvm::SaturatingAdd(b.base, b.bytes));
    if (lo >= hi)
      continue;
    if (b.init == isa::BufferInit::Data) {
      // The image's bytes (as many as it carries: a hand-built program may
      // hold fewer, the rest stays 0).
      llvm::ArrayRef<uint8_t> data = b.getData();
      uint64_t have = std::min<uint64_t>(data.size(), hi - b.base);
      if (lo - b.base < have)
        std::memcpy(&bytes[lo - pageAddr], data.data() + (lo - b.base),
                    have - (lo - b.base));
      continue;
    }
    unsigned size = isa::getElemBytes(b.elemType);
    // The first whole element at or after lo (buffers are 4-byte aligned;
    // a page boundary falls between elements).
    uint64_t first = b.base + llvm::alignTo(lo - b.base, size);
    if (b.init == isa::BufferInit::Random && size == 4) {
      // The common case (f32 weights), in one tight loop.
      if (first < hi)
        fillRandomF32(&bytes[first - pageAddr], b.seed, (first - b.base) / 4,
                      (hi - first) / 4);
      continue;
    }
    for (uint64_t a = first; a + size <= hi; a += size) {
      uint64_t index = (a - b.base) / size;
      uint8_t *at = &bytes[a - pageAddr];
      if (b.init == isa::BufferInit::Iota) {
        int32_t v = int32_t(index);
        std::memcpy(at, &v, 4);
      } else if (b.elemType == isa::ElemType::BF16) {
        uint16_t v = f32ToBf16(isa::initValue(b.seed, index));
        std::memcpy(at, &v, 2);
      } else {
        float v = isa::initValue(b.seed, index);
        std::memcpy(at, &v, 4);
      }
    }
  }
}

const uint8_t *HbmImage::page(uint64_t pageAddr) {
  std::lock_guard<std::mutex> lock(mutex);
  return pageLocked(pageAddr);
}

uint64_t HbmImage::initialHash(uint64_t addr, uint64_t n) {
  std::lock_guard<std::mutex> lock(mutex);
  auto [it, inserted] = hashes.try_emplace({addr, n}, 0);
  if (!inserted)
    return it->second;
  // A range inside one initialized buffer (a result hash's usual case):
  // hashed in place in the buffer's block, without a copy of it.
  for (size_t i = 0; i < buffers.size(); ++i) {
    const isa::Buffer &b = buffers[i];
    if (!isInitialized(b) || addr < b.base ||
        addr + n > llvm::SaturatingAdd(b.base, b.bytes) || addr + n < addr)
      continue;
    const Block &block = blockLocked(i);
    return it->second = llvm::xxh3_64bits(llvm::ArrayRef<uint8_t>(
               block.data.get() + (addr - block.base), n));
  }
  std::vector<uint8_t> bytes(n);
  for (uint64_t done = 0; done < n;) {
    uint64_t a = addr + done;
    uint64_t pageAddr = a & ~(Memory::kHbmPageBytes - 1);
    uint64_t len = std::min(n - done, Memory::kHbmPageBytes - (a - pageAddr));
    std::memcpy(bytes.data() + done, pageLocked(pageAddr) + (a - pageAddr),
                len);
    done += len;
  }
  return it->second = llvm::xxh3_64bits(bytes);
}

uint64_t HbmImage::keyOf(const std::vector<isa::Buffer> &buffers) {
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

bool HbmImage::holds(const std::vector<isa::Buffer> &other) const {
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

bool HbmImage::isInitialized(const isa::Buffer &b) {
  return b.space == isa::MemSpace::HBM && b.init != isa::BufferInit::Zero &&
         b.bytes > 0;
}

const HbmImage::Block &HbmImage::blockLocked(size_t buffer) {
  auto [it, inserted] = blockOf.try_emplace(buffer, 0);
  if (!inserted)
    return blocks[it->second];
  const isa::Buffer &b = buffers[buffer];
  uint64_t first = b.base & ~(Memory::kHbmPageBytes - 1);
  uint64_t end = llvm::alignTo(llvm::SaturatingAdd(b.base, b.bytes),
                               Memory::kHbmPageBytes);
  if (end == 0) // the buffer reaches the top of the address space
    end = UINT64_MAX & ~(Memory::kHbmPageBytes - 1);
  Block block{first, end - first,
              std::unique_ptr<uint8_t[]>(new uint8_t[end - first])};
  for (uint64_t page = first; page < end; page += Memory::kHbmPageBytes) {
    uint8_t *at = block.data.get() + (page - first);
    initPage(page, buffers, at);
    // A page two buffers share keeps the copy made first.
    pages.try_emplace(page, at);
  }
  it->second = blocks.size();
  blocks.push_back(std::move(block));
  return blocks.back();
}

const uint8_t *HbmImage::pageLocked(uint64_t pageAddr) {
  auto it = pages.find(pageAddr);
  if (it != pages.end())
    return it->second;
  // A page of an initialized buffer: the buffer's block, all its pages.
  for (size_t i = 0; i < buffers.size(); ++i) {
    const isa::Buffer &b = buffers[i];
    if (isInitialized(b) && pageAddr < llvm::SaturatingAdd(b.base, b.bytes) &&
        b.base < pageAddr + Memory::kHbmPageBytes) {
      blockLocked(i);
      return pages.find(pageAddr)->second;
    }
  }
  // Zeros (a page of no initialized buffer): a block of its own.
  Block block{pageAddr, Memory::kHbmPageBytes,
              std::unique_ptr<uint8_t[]>(new uint8_t[Memory::kHbmPageBytes])};
  initPage(pageAddr, buffers, block.data.get());
  const uint8_t *at = block.data.get();
  blocks.push_back(std::move(block));
  pages[pageAddr] = at;
  return at;
}

std::shared_ptr<HbmImage>
HbmImage::get(const std::vector<isa::Buffer> &buffers) {
  static std::mutex cacheMutex;
  static std::vector<std::shared_ptr<HbmImage>> kept; // most recent last
  uint64_t key = keyOf(buffers);
  std::lock_guard<std::mutex> lock(cacheMutex);
  for (auto it = kept.begin(); it != kept.end(); ++it)
    if ((*it)->key == key && (*it)->holds(buffers)) {
      std::shared_ptr<HbmImage> image = *it;
      kept.erase(it);
      kept.push_back(image);
      return image;
    }
  std::shared_ptr<HbmImage> image(new HbmImage(buffers, key));
  if (kept.size() == kKept)
    kept.erase(kept.begin());
  kept.push_back(image);
  return image;
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
