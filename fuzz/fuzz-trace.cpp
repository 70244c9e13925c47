//===- fuzz-trace.cpp - libFuzzer target: trace files ---------------------===//
//
// What `accel-replay replay` does with a trace file (docs/trace-format.md):
// Trace::deserialize, then Replayer::create (the config and
// Trace::validate), the trace-load step, a replay bounded to
// kMaxReplayInstructions and fuzz::kMaxWork (FuzzBudget.h) with the DMA
// stall collector and the analyzer
// attached, the functional check and the analysis (metrics.json, timeline,
// report). Any error is a clean rejection; a crash, a sanitizer report, an
// escaping exception or an allocation beyond libFuzzer's -malloc_limit_mb
// is a bug.
//
// Almost every mutation of a trace breaks its CRC-32, so
// LLVMFuzzerCustomMutator mutates the payload (decompressed, when it is
// zstd-compressed, and compressed again) and then recomputes the header's
// payload size and CRC-32; one mutation in eight mutates the file as it is
// (header and checksum included) so the header checks stay covered, and
// one in eight mutates a compressed payload's zstd bytes themselves.
//
//===----------------------------------------------------------------------===//

#include "FuzzBudget.h"

#include "accel/Profile/Analyzer.h"
#include "accel/Profile/DmaStallAnalysis.h"
#include "accel/Profile/DmaTable.h"
#include "accel/Replay/Replayer.h"
#include "accel/Replay/Trace.h"

#include "llvm/Support/CRC.h"
#include "llvm/Support/Compression.h"
#include "llvm/Support/raw_ostream.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

using namespace accel;

extern "C" size_t LLVMFuzzerMutate(uint8_t *data, size_t size,
                                   size_t maxSize);

namespace {
/// Resource limits of the harness, not of the reader: a valid trace may
/// ask for more (a 4 GiB VMEM, 16 GiB DMAs, millions of DMA ids), which a
/// replay then really allocates; the fuzzer skips such traces so that each
/// run stays small and fast.
constexpr uint64_t kMaxVmemBytes = 4ull << 20;
constexpr uint64_t kMaxHbmBytes = 256ull << 20;
constexpr uint64_t kMaxReplayInstructions = 256;

constexpr size_t kHeaderBytes = 32;
constexpr char kMagic[8] = {'A', 'C', 'C', 'E', 'L', 'T', 'R', 'C'};

uint32_t le32(const uint8_t *p) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i)
    v |= uint32_t(p[i]) << (8 * i);
  return v;
}
uint64_t le64(const uint8_t *p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i)
    v |= uint64_t(p[i]) << (8 * i);
  return v;
}
void put32(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; ++i)
    p[i] = uint8_t(v >> (8 * i));
}
void put64(uint8_t *p, uint64_t v) {
  for (int i = 0; i < 8; ++i)
    p[i] = uint8_t(v >> (8 * i));
}

/// Writes header + payload to `out` (at most `maxSize` bytes); returns the
/// size, or 0 when it does not fit.
size_t seal(const uint8_t *header, uint32_t flags,
            llvm::ArrayRef<uint8_t> payload, uint8_t *out, size_t maxSize) {
  if (kHeaderBytes + payload.size() > maxSize)
    return 0;
  std::vector<uint8_t> file(header, header + kHeaderBytes);
  put32(&file[16], flags);
  put32(&file[20], llvm::crc32(payload));
  put64(&file[24], payload.size());
  file.insert(file.end(), payload.begin(), payload.end());
  std::memcpy(out, file.data(), file.size());
  return file.size();
}
} // namespace

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size,
                                          size_t maxSize, unsigned seed) {
  bool isTrace = size >= kHeaderBytes && maxSize > kHeaderBytes &&
                 std::memcmp(data, kMagic, 8) == 0;
  if (!isTrace || seed % 8 == 0)
    return LLVMFuzzerMutate(data, size, maxSize);
  uint8_t header[kHeaderBytes];
  std::memcpy(header, data, kHeaderBytes);
  uint32_t flags = le32(data + 16);
  llvm::ArrayRef<uint8_t> stored(data + kHeaderBytes, size - kHeaderBytes);
  bool zstd = (flags & 1) && llvm::compression::zstd::isAvailable() &&
              stored.size() >= 8;

  if (zstd && seed % 8 == 1) {
    // The zstd bytes themselves (after the u64 uncompressed size), or the
    // declared size: the decompressor's and the size check's paths.
    std::vector<uint8_t> p(stored.begin(), stored.end());
    p.resize(maxSize - kHeaderBytes);
    size_t n = LLVMFuzzerMutate(p.data(), stored.size(), p.size());
    p.resize(n);
    size_t out = seal(header, flags, p, data, maxSize);
    return out ? out : size;
  }

  // The plain payload: decompressed if needed (a payload that does not
  // decompress is mutated as it is).
  std::vector<uint8_t> plain(stored.begin(), stored.end());
  if (zstd) {
    uint64_t rawSize = le64(stored.data());
    llvm::SmallVector<uint8_t, 0> out;
    if (rawSize <= (64u << 20) &&
        !llvm::errorToBool(llvm::compression::zstd::decompress(
            stored.drop_front(8), out, size_t(rawSize))))
      plain.assign(out.begin(), out.end());
    else
      zstd = false;
  }
  size_t room = std::max(maxSize - kHeaderBytes, plain.size());
  size_t used = plain.size();
  plain.resize(room);
  used = LLVMFuzzerMutate(plain.data(), used, room);
  plain.resize(used);
  if (zstd) {
    llvm::SmallVector<uint8_t, 0> packed;
    llvm::compression::zstd::compress(plain, packed);
    std::vector<uint8_t> p(8);
    put64(p.data(), plain.size());
    p.insert(p.end(), packed.begin(), packed.end());
    if (size_t out = seal(header, flags, p, data, maxSize))
      return out;
  }
  size_t out = seal(header, flags & ~1u, plain, data, maxSize);
  return out ? out : size;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  auto trace = replay::Trace::deserialize(llvm::ArrayRef<uint8_t>(data, size));
  if (!trace) {
    llvm::consumeError(trace.takeError());
    return 0;
  }
  // What trace-info prints needs nothing more.
  (void)trace->stateBytes();

  // The harness's resource limits (see above), on the config the replay
  // runs on.
  auto config = sim::MachineConfig::fromJson(trace->configJson, "fuzz");
  if (!config) {
    llvm::consumeError(config.takeError());
    return 0;
  }
  if (config->vmemBytes > kMaxVmemBytes || config->hbmBytes > kMaxHbmBytes)
    return 0;
  // A longer window is replayed in part: its results cannot be compared.
  bool whole = trace->pcs.size() <= kMaxReplayInstructions;
  if (!whole) {
    trace->pcs.truncate(kMaxReplayInstructions);
    trace->finalRegisters.clear();
    trace->writtenRanges.clear();
  }
  // The window's instructions are known: skip a window whose work exceeds
  // the harness's bound (Trace::validate rejects PCs outside the code).
  uint64_t work = 0;
  for (uint32_t pc : trace->pcs)
    if (pc < trace->program.code.size())
      work += fuzz::getWork(trace->program.code[pc]);
  if (work > fuzz::kMaxWork)
    return 0;

  auto replayer = replay::Replayer::create(*trace);
  if (!replayer) {
    llvm::consumeError(replayer.takeError());
    return 0;
  }
  profile::DmaStallCollector collector;
  profile::Analyzer analyzer((*replayer)->getProgram(),
                             (*replayer)->getConfig());
  (*replayer)->addObserver(&collector);
  (*replayer)->addObserver(&analyzer);
  if (llvm::Error e = (*replayer)->load()) {
    llvm::consumeError(std::move(e));
    return 0;
  }
  (*replayer)->getSimulator().setTimingOnly(size % 2 == 1);
  auto summary = (*replayer)->run();
  if (!summary) {
    llvm::consumeError(summary.takeError());
    return 0;
  }
  if (whole)
    llvm::consumeError((*replayer)->checkResults());
  // The analysis of `accel-replay replay` (finishAnalysis in lib/Fdo).
  nlohmann::json metrics = profile::buildMetrics(
      (*replayer)->getProgram(), (*replayer)->getConfig(), *summary, collector);
  profile::DmaTable dmas((*replayer)->getProgram(), (*replayer)->getConfig(),
                         collector);
  analyzer.addToMetrics(metrics, &dmas);
  llvm::raw_null_ostream null;
  analyzer.writeTimeline(null, metrics);
  profile::writeReport(metrics, null);
  profile::writeMetricsJson(null, metrics, &dmas);
  return 0;
}
