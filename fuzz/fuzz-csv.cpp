//===- fuzz-csv.cpp - libFuzzer target: calibration CSV tables ------------===//
//
// sim::LatencyTable::parse (lib/Sim/Calibration.cpp), the reader of the
// measured latency tables a machine config names (docs/config.md,
// "Calibration"), on arbitrary bytes as the CSV text, with the three
// shapes of table a config asks for: one key ("bytes", times in "cycles",
// as a DMA table), two ("m", "n" and "cycles") and three ("m", "n", "k" and
// "time_ns", as an mxu.matmul table). An error is a clean rejection; a
// crash, a sanitizer report or an escaping exception (the CSV parser
// throws; the reader must catch every one) is a bug. An accepted table
// must be a full grid whose lookups on and off the grid are finite.
//
//===----------------------------------------------------------------------===//

#include "accel/Sim/Calibration.h"

#include "llvm/Support/ErrorHandling.h"

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

using namespace accel;
using namespace accel::sim;

// The CSV parser allocates a 48 MiB line buffer per table. In ASan's
// default 256 MiB quarantine every one is a fresh mapping (about 100
// inputs a second); a 16 MiB quarantine recycles them at once and still
// holds thousands of the reader's small allocations (about 3000 a
// second). ASAN_OPTIONS overrides it.
extern "C" const char *__asan_default_options() {
  return "quarantine_size_mb=16";
}

namespace {
void check(llvm::StringRef text, const std::vector<std::string> &keys,
           llvm::StringRef time) {
  auto table = LatencyTable::parse(text, "fuzz.csv", keys, time);
  if (!table) {
    llvm::consumeError(table.takeError());
    return;
  }
  const LatencyTable &t = **table;
  size_t points = 1;
  for (size_t i = 0; i < keys.size(); ++i) {
    if (t.getAxis(i).size() < 2)
      llvm::report_fatal_error("an accepted axis has fewer than two values");
    points *= t.getAxis(i).size();
  }
  if (points != t.size())
    llvm::report_fatal_error("an accepted table is not a full grid");
  // On the grid's corners, between them and past them: finite.
  std::vector<double> point(keys.size());
  for (int where = 0; where < 4; ++where) {
    for (size_t i = 0; i < keys.size(); ++i) {
      llvm::ArrayRef<double> axis = t.getAxis(i);
      point[i] = where == 0   ? axis.front()
                 : where == 1 ? axis.back()
                 : where == 2 ? (axis[0] + axis[1]) / 2
                              : axis.back() * 2 + 1;
    }
    double v = t.lookup(point);
    if (!std::isfinite(v))
      llvm::report_fatal_error("a lookup of an accepted table is not finite");
  }
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static bool quiet = [] {
    // Extrapolation warnings would flood the log.
    setCalibrationWarningHandler(nullptr);
    return true;
  }();
  (void)quiet;
  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  check(text, {"bytes"}, "cycles");
  check(text, {"m", "n"}, "cycles");
  check(text, {"m", "n", "k"}, "time_ns");
  return 0;
}
