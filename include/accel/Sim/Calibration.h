//===- Calibration.h - Measured latency tables ------------------*- C++ -*-===//
//
// A machine config may name CSV tables of measured latencies
// (docs/config.md, "Calibration"): where a table covers an instruction, its
// interpolated value replaces the formula of the timing model. The habits
// are those of the profiled latency databases of LLM-serving simulators
// (their trace generators): tables are loaded once per process and
// cached, times are converted to cycles once at load, lookups interpolate
// linearly on the measured grid and extrapolate past it with one warning
// per table, and a missing file or column is one error naming it.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_SIM_CALIBRATION_H
#define ACCEL_SIM_CALIBRATION_H

#include "accel/ISA/Isa.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace accel {
namespace sim {

/// The most keys a table may have (mxu.matmul has three: m, n, k).
constexpr unsigned kMaxCalibrationKeys = 3;
/// A calibrated latency is clamped to [1, kMaxCalibratedCycles] cycles
/// (about 17 minutes at 1 GHz), so an extrapolation can never overflow the
/// simulator's cycle arithmetic; a DMA's may be 0.
constexpr uint64_t kMaxCalibratedCycles = 1ull << 40;
/// Keys are instruction dimensions: integers in [0, kMaxCalibrationKey].
constexpr double kMaxCalibrationKey = double(1ull << 48);
/// Measured times are in [0, kMaxCalibrationTime] (in the table's unit).
constexpr double kMaxCalibrationTime = 1e15;
/// A table file larger than this is refused (it is not a latency table).
constexpr uint64_t kMaxCalibrationFileBytes = 64ull << 20;

/// A table of measured times on a full grid: for keys k_1..k_d (d in
/// [1, kMaxCalibrationKeys]) with sorted distinct values, one time for every
/// combination of values. The time unit is the file's; the caller scales.
class LatencyTable {
public:
  /// Reads `path` (a CSV file with a header row; fields may be quoted;
  /// spaces and tabs around fields are trimmed; other columns are ignored)
  /// through fast-cpp-csv-parser, taking the key columns `keys` and the time
  /// column `timeColumn`. A table already read with the same path, keys and
  /// time column is returned from a process-wide cache (thread-safe).
  /// Errors, each one message naming the file (and line, when one is at
  /// fault): the file cannot be read or is not a regular file or is larger
  /// than kMaxCalibrationFileBytes; a named column is missing ("no column
  /// 'time_us'"); a row has too few columns or a field that is not a number
  /// (keys: integers in [0, 2^48]; times: finite, in [0, 1e15]); the same
  /// point twice; a point of the grid missing ("no row for m=8, n=256");
  /// a key with fewer than two values; no data rows.
  static llvm::Expected<std::shared_ptr<const LatencyTable>>
  load(llvm::StringRef path, llvm::ArrayRef<std::string> keys,
       llvm::StringRef timeColumn);

  /// The table in the CSV `text` (the contents of file `path`, which errors
  /// name), as load reads it, without the file and the cache: the errors of
  /// load after reading, and "PATH: byte N: a NUL byte at line L, column
  /// C" for a NUL byte anywhere in `text` (the CSV reader would end the
  /// field at it and ignore the rest). The file reading (accel::
  /// readInputFile, kind Csv) refuses a non-regular file or one larger than
  /// kMaxCalibrationFileBytes (64 MiB); the text is bounded the same way.
  static llvm::Expected<std::shared_ptr<const LatencyTable>>
  parse(llvm::StringRef text, llvm::StringRef path,
        llvm::ArrayRef<std::string> keys, llvm::StringRef timeColumn);

  /// The time at `point` (one value per key, in key order): multilinear
  /// interpolation between the grid's neighbouring values (1-D linear,
  /// 2-D bilinear, 3-D trilinear), extended linearly past the grid's first
  /// and last values along any key. The first lookup past the grid reports
  /// one warning for the table (calibrationWarning) naming the key, the
  /// value and the grid's edge; later ones are silent.
  double lookup(llvm::ArrayRef<double> point) const;

  const std::string &getPath() const { return path; }
  llvm::ArrayRef<std::string> getKeys() const { return keys; }
  /// The sorted distinct values of key `i`.
  llvm::ArrayRef<double> getAxis(unsigned i) const { return axes[i]; }
  /// The number of grid points (rows).
  size_t size() const { return values.size(); }

  /// Kinds of warning a table gives at most once per process.
  enum WarningKind : unsigned {
    Extrapolated = 1,  ///< a lookup past the grid
    FasterThanHbm = 2, ///< a DMA faster than hbm.bytes_per_cycle allows
  };
  /// Reports "PATH: MESSAGE" through calibrationWarning unless this table
  /// already reported a warning of `kind`.
  void warnOnce(WarningKind kind, llvm::StringRef message) const;

private:
  std::string path;
  std::vector<std::string> keys;
  std::vector<std::vector<double>> axes;
  /// Times on the grid, the last key varying fastest.
  std::vector<double> values;
  mutable std::atomic<unsigned> warned{0}; ///< WarningKind bits
};

/// Receives calibration warnings (one line, without a "warning: " prefix).
/// The default prints "warning: MESSAGE" to stderr. Returns the previous
/// handler. Thread-safe to call before simulations start.
using CalibrationWarningHandler = std::function<void(llvm::StringRef)>;
CalibrationWarningHandler
setCalibrationWarningHandler(CalibrationWarningHandler handler);
/// Reports `message` to the current handler.
void calibrationWarning(llvm::StringRef message);

/// What a table is keyed by: the instruction's dimensions.
enum class CalibrationKey : uint8_t {
  M,     ///< mxu.matmul: rows of A and C
  N,     ///< mxu.matmul: columns of B and C
  K,     ///< mxu.matmul: the reduction dimension
  Rows,  ///< vpu.*: rows of the tile; dma.issue: rows of the source tile
  Cols,  ///< vpu.*: columns of the tile
  Bytes, ///< dma.issue: bytes moved
};
/// "m", "n", "k", "rows", "cols", "bytes".
llvm::StringRef calibrationKeyName(CalibrationKey key);

/// One entry of the config's "calibration" array: a table covering one
/// instruction (an opcode mnemonic such as "mxu.matmul" or "vpu.exp", or
/// "dma.issue" for the local DMAs of one link or of every link).
struct CalibrationEntry {
  std::string instruction;
  isa::Opcode opcode = isa::Opcode::Nop;
  /// For dma.issue: the link ("hbm->vmem"), or empty for every local link
  /// without a table of its own.
  std::string link;
  std::vector<CalibrationKey> keys;
  std::string file; ///< absolute path
  std::string timeColumn;
  std::string unit; ///< "cycles", "ns" or "us"
  /// Cycles per unit of the table's time: 1, clock_ghz or 1000 * clock_ghz
  /// (the conversion done once, at load).
  double cyclesPerUnit = 1;
  std::shared_ptr<const LatencyTable> table;

  /// The calibrated cycles at `point` (one value per key):
  /// round(table->lookup(point) * cyclesPerUnit), clamped to
  /// [minCycles, kMaxCalibratedCycles].
  uint64_t getCycles(llvm::ArrayRef<double> point, uint64_t minCycles) const;
};

} // namespace sim
} // namespace accel

#endif // ACCEL_SIM_CALIBRATION_H
