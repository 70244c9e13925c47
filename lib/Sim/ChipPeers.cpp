//===- ChipPeers.cpp - The rest of a system, as one chip sees it ----------===//

#include "accel/Sim/ChipPeers.h"

using namespace accel;
using namespace accel::sim;

ChipPeers::~ChipPeers() = default;

/// Calls `fn(address, bytes)` for each row of `tile`.
template <typename Fn> static llvm::Error forEachRow(const TileRef &t, Fn fn) {
  uint64_t rowBytes = t.rowBytes();
  uint64_t stride = t.rowStride * t.elemBytes;
  for (uint64_t r = 0; r < t.rows; ++r)
    if (llvm::Error e = fn(t.base + r * stride, r * rowBytes, rowBytes))
      return e;
  return llvm::Error::success();
}

llvm::Error sim::readTileBytes(Memory &memory, const TileRef &tile,
                               std::vector<uint8_t> &out) {
  out.resize(tile.rows * tile.rowBytes());
  return forEachRow(tile, [&](uint64_t addr, uint64_t at, uint64_t n) {
    return memory.read(tile.space, addr, n, out.data() + at);
  });
}

llvm::Error sim::writeTileBytes(Memory &memory, const TileRef &tile,
                                llvm::ArrayRef<uint8_t> bytes) {
  if (bytes.size() != tile.rows * tile.rowBytes())
    return llvm::createStringError(
        "%zu bytes for a tile of %llu x %llu %u-byte elements", bytes.size(),
        (unsigned long long)tile.rows, (unsigned long long)tile.cols,
        unsigned(tile.elemBytes));
  return forEachRow(tile, [&](uint64_t addr, uint64_t at, uint64_t n) {
    return memory.install(tile.space, addr, bytes.slice(at, n));
  });
}

const RemoteAnswer *LoggedPeers::current(const char *what) {
  if (next < log.answers.size())
    return &log.answers[next];
  if (error.empty())
    error = "the window issues more remote DMAs than the " +
            std::to_string(log.answers.size()) +
            " the trace answers (wanted its " + what + ")";
  return nullptr;
}

IciTransfer LoggedPeers::send(uint32_t, uint64_t, uint64_t,
                              llvm::ArrayRef<unsigned>, uint64_t) {
  const RemoteAnswer *a = current("ICI transfer");
  return a ? a->transfer : IciTransfer();
}

HbmUnits LoggedPeers::reserveHbm(uint32_t, uint32_t, HbmUnits from, HbmUnits,
                                 HbmUnits) {
  const RemoteAnswer *a = current("other chip's HBM time");
  if (!a)
    return from;
  if (!a->hasPeerHbm) {
    if (error.empty())
      error = "remote DMA " + std::to_string(next) +
              " of the window uses another chip's HBM but the trace has no "
              "HBM time for it";
    return from;
  }
  return a->peerHbmAt;
}

void LoggedPeers::copy(uint32_t fromChip, Memory &own, const TileRef &src,
                       const TileRef &dst) {
  // A DMA between two tiles of one other chip leaves this chip's memory
  // alone and crosses no ICI link: it has no answer.
  if (src.chip == dst.chip)
    return;
  const RemoteAnswer *a = current("data");
  if (!a)
    return;
  ++next;
  if (dst.chip != fromChip)
    return; // a remote write: the other chip's memory is not replayed
  if (llvm::Error e = writeTileBytes(own, dst, a->readBytes))
    if (error.empty())
      error = "the trace's answer to remote DMA " + std::to_string(next - 1) +
              " of the window holds " + llvm::toString(std::move(e));
}
