//===- Memory.cpp - Simulated HBM and VMEM --------------------------------===//

#include "accel/Sim/Memory.h"

#include <algorithm>
#include <cstring>

using namespace accel;
using namespace accel::sim;

static void initPage(uint64_t pageAddr, const std::vector<isa::Buffer> &bufs,
                     std::vector<uint8_t> &bytes) {
  bytes.assign(Memory::kHbmPageBytes, 0);
  uint64_t pageEnd = pageAddr + Memory::kHbmPageBytes;
  for (const isa::Buffer &b : bufs) {
    if (b.space != isa::MemSpace::HBM || b.zeroInit)
      continue;
    uint64_t lo = std::max(pageAddr, b.base);
    uint64_t hi = std::min(pageEnd, b.base + b.bytes);
    for (uint64_t a = lo; a + 4 <= hi; a += 4) {
      uint64_t index = (a - b.base) / 4;
      if (b.iota) {
        int32_t v = int32_t(index);
        std::memcpy(&bytes[a - pageAddr], &v, 4);
      } else {
        float v = isa::initValue(b.seed, index);
        std::memcpy(&bytes[a - pageAddr], &v, 4);
      }
    }
  }
}

Memory::Memory(uint64_t vmemBytes, const std::vector<isa::Buffer> &bufs,
               bool initHbm)
    : vmem(vmemBytes), initHbm(initHbm), buffers(bufs) {
  std::sort(buffers.begin(), buffers.end(),
            [](const isa::Buffer &a, const isa::Buffer &b) {
              return std::make_pair(a.space, a.base) <
                     std::make_pair(b.space, b.base);
            });
}

const isa::Buffer *Memory::findBuffer(const AddrRange &r,
                                      const isa::Buffer *hint) const {
  auto holds = [&](const isa::Buffer &b) {
    return b.space == r.space && r.begin >= b.base &&
           r.end <= b.base + b.bytes &&
           (r.space != isa::MemSpace::VMEM || b.base + b.bytes <= vmem.size());
  };
  if (hint && holds(*hint))
    return hint;
  for (const isa::Buffer &b : buffers)
    if (holds(b))
      return &b;
  return nullptr;
}

Memory::Page &Memory::hbmPage(uint64_t pageAddr) {
  auto &slot = hbm[pageAddr];
  if (!slot) {
    slot = std::make_unique<Page>();
    if (initHbm)
      initPage(pageAddr, buffers, slot->bytes);
    else
      slot->bytes.assign(kHbmPageBytes, 0);
  }
  return *slot;
}

static llvm::Error noBuffer(isa::MemSpace space, uint64_t addr, uint64_t n) {
  return llvm::createStringError(
      "no buffer holds %s [%llu, %llu)", isa::memSpaceName(space).str().c_str(),
      (unsigned long long)addr, (unsigned long long)(addr + n));
}

/// Whether [b, e) is covered by buffers of `space` (adjacent buffers may
/// share it: coalesced ranges of a trace span them).
static bool coveredByBuffers(const std::vector<isa::Buffer> &buffers,
                             isa::MemSpace space, uint64_t b, uint64_t e) {
  while (b < e) {
    const isa::Buffer *hit = nullptr;
    for (const isa::Buffer &buf : buffers)
      if (buf.space == space && b >= buf.base && b < buf.base + buf.bytes) {
        hit = &buf;
        break;
      }
    if (!hit)
      return false;
    b = hit->base + hit->bytes;
  }
  return true;
}

llvm::Error Memory::read(isa::MemSpace space, uint64_t addr, uint64_t n,
                         uint8_t *out) {
  if (!coveredByBuffers(buffers, space, addr, addr + n) ||
      (space == isa::MemSpace::VMEM && addr + n > vmem.size()))
    return noBuffer(space, addr, n);
  if (space == isa::MemSpace::VMEM)
    std::memcpy(out, vmem.data() + addr, n);
  else
    readHbm(addr, out, n);
  return llvm::Error::success();
}

llvm::Error Memory::install(isa::MemSpace space, uint64_t addr,
                            llvm::ArrayRef<uint8_t> bytes) {
  if (!coveredByBuffers(buffers, space, addr, addr + bytes.size()) ||
      (space == isa::MemSpace::VMEM && addr + bytes.size() > vmem.size()))
    return noBuffer(space, addr, bytes.size());
  if (space == isa::MemSpace::VMEM) {
    std::memcpy(vmem.data() + addr, bytes.data(), bytes.size());
    return llvm::Error::success();
  }
  const uint8_t *src = bytes.data();
  uint64_t n = bytes.size();
  while (n) {
    uint64_t page = addr & ~(kHbmPageBytes - 1);
    uint64_t off = addr - page;
    uint64_t len = std::min(n, kHbmPageBytes - off);
    std::memcpy(hbmPage(page).bytes.data() + off, src, len);
    src += len, addr += len, n -= len;
  }
  return llvm::Error::success();
}

void Memory::readHbm(uint64_t addr, void *out, uint64_t n) {
  auto *dst = static_cast<uint8_t *>(out);
  while (n) {
    uint64_t page = addr & ~(kHbmPageBytes - 1);
    uint64_t off = addr - page;
    uint64_t len = std::min(n, kHbmPageBytes - off);
    std::memcpy(dst, hbmPage(page).bytes.data() + off, len);
    dst += len, addr += len, n -= len;
  }
}

void Memory::writeHbm(uint64_t addr, const void *in, uint64_t n) {
  auto *src = static_cast<const uint8_t *>(in);
  while (n) {
    uint64_t page = addr & ~(kHbmPageBytes - 1);
    uint64_t off = addr - page;
    uint64_t len = std::min(n, kHbmPageBytes - off);
    Page &p = hbmPage(page);
    std::memcpy(p.bytes.data() + off, src, len);
    p.dirty = true;
    src += len, addr += len, n -= len;
  }
}

void Memory::readTile(const TileRef &t, float *out) {
  for (uint64_t r = 0; r < t.rows; ++r) {
    uint64_t addr = t.base + r * t.rowStride * 4;
    if (t.space == isa::MemSpace::VMEM)
      std::memcpy(out + r * t.cols, vmem.data() + addr, t.cols * 4);
    else
      readHbm(addr, out + r * t.cols, t.cols * 4);
  }
}

void Memory::writeTile(const TileRef &t, const float *in) {
  for (uint64_t r = 0; r < t.rows; ++r) {
    uint64_t addr = t.base + r * t.rowStride * 4;
    if (t.space == isa::MemSpace::VMEM)
      std::memcpy(vmem.data() + addr, in + r * t.cols, t.cols * 4);
    else
      writeHbm(addr, in + r * t.cols, t.cols * 4);
  }
}

std::map<uint64_t, std::vector<uint8_t>> Memory::dirtyHbmPages() const {
  std::map<uint64_t, std::vector<uint8_t>> out;
  for (const auto &entry : hbm)
    if (entry.second->dirty)
      out[entry.first] = entry.second->bytes;
  return out;
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
