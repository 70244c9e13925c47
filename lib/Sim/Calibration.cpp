//===- Calibration.cpp - Measured latency tables --------------------------===//
//
// CSV parsing is fast-cpp-csv-parser's (Debian libfccp-dev); numbers are
// parsed with LLVM's StringRef::getAsDouble so that a malformed field is an
// error instead of a partial number. See Calibration.h.
//
//===----------------------------------------------------------------------===//

#include "accel/Sim/Calibration.h"
#include "accel/Support/Input.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#define CSV_IO_NO_THREAD
#if defined(__GNUC__) && !defined(__clang__)
// csv.h copies file names into fixed buffers with strncpy, by design.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-truncation"
#endif
#include <libfccp/csv.h>
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <mutex>
#include <utility>

using namespace accel;
using namespace accel::sim;

llvm::StringRef accel::sim::calibrationKeyName(CalibrationKey key) {
  switch (key) {
  case CalibrationKey::M:
    return "m";
  case CalibrationKey::N:
    return "n";
  case CalibrationKey::K:
    return "k";
  case CalibrationKey::Rows:
    return "rows";
  case CalibrationKey::Cols:
    return "cols";
  case CalibrationKey::Bytes:
    return "bytes";
  }
  return "?";
}

//===----------------------------------------------------------------------===//
// Warnings
//===----------------------------------------------------------------------===//

static std::mutex &handlerMutex() {
  static std::mutex m;
  return m;
}

static CalibrationWarningHandler &handlerSlot() {
  static CalibrationWarningHandler handler = [](llvm::StringRef message) {
    llvm::errs() << "warning: " << message << "\n";
  };
  return handler;
}

CalibrationWarningHandler
accel::sim::setCalibrationWarningHandler(CalibrationWarningHandler handler) {
  std::lock_guard<std::mutex> lock(handlerMutex());
  std::swap(handlerSlot(), handler);
  return handler;
}

void accel::sim::calibrationWarning(llvm::StringRef message) {
  std::lock_guard<std::mutex> lock(handlerMutex());
  if (handlerSlot())
    handlerSlot()(message);
}

//===----------------------------------------------------------------------===//
// Reading
//===----------------------------------------------------------------------===//

namespace {
/// The CSV dialect: comma-separated, double-quoted fields, spaces and tabs
/// trimmed, '#' comment lines and empty lines skipped.
template <unsigned N>
using Reader =
    io::CSVReader<N, io::trim_chars<' ', '\t'>,
                  io::double_quote_escape<',', '"'>, io::throw_on_overflow,
                  io::single_and_empty_line_comment<'#'>>;

/// The raw fields of the named columns, row by row, with their line.
struct Rows {
  std::vector<std::vector<std::string>> fields;
  std::vector<unsigned> lines;
};

template <unsigned N, size_t... I>
static void readAll(Reader<N> &reader, const std::vector<std::string> &names,
                    Rows &out, std::index_sequence<I...>) {
  reader.read_header(io::ignore_extra_column, names[I]...);
  std::array<char *, N> row{};
  while (reader.read_row(row[I]...)) {
    out.fields.emplace_back();
    for (char *field : row)
      out.fields.back().emplace_back(field ? field : "");
    out.lines.push_back(reader.get_file_line());
  }
}

template <unsigned N>
static void readColumns(const std::string &path, llvm::StringRef text,
                        const std::vector<std::string> &names, Rows &out) {
  Reader<N> reader(path, text.begin(), text.end());
  readAll<N>(reader, names, out, std::make_index_sequence<N>());
}

/// "line N: " for an error that knows its line, else "".
template <class E> static std::string lineOf(const E &e) {
  if constexpr (std::is_base_of_v<io::error::with_file_line, E>)
    if (e.file_line > 0)
      return "line " + std::to_string(e.file_line) + ": ";
  return "";
}

/// Reads the named columns of the CSV text; errors name `path`.
static llvm::Error readCsv(const std::string &path, llvm::StringRef text,
                           const std::vector<std::string> &names, Rows &out) {
  auto fail = [&](const std::string &what) {
    return llvm::createStringError(path + ": " + what);
  };
  try {
    switch (names.size()) {
    case 2:
      readColumns<2>(path, text, names, out);
      break;
    case 3:
      readColumns<3>(path, text, names, out);
      break;
    case 4:
      readColumns<4>(path, text, names, out);
      break;
    default:
      return fail("internal error: " + std::to_string(names.size()) +
                  " columns");
    }
  } catch (const io::error::missing_column_in_header &e) {
    return fail("line 1: no column '" + std::string(e.column_name) +
                "' in the header");
  } catch (const io::error::duplicated_column_in_header &e) {
    return fail("line 1: column '" + std::string(e.column_name) +
                "' appears twice in the header");
  } catch (const io::error::header_missing &) {
    return fail("no header row (the file is empty)");
  } catch (const io::error::too_few_columns &e) {
    return fail(lineOf(e) + "fewer fields than the header has columns");
  } catch (const io::error::too_many_columns &e) {
    return fail(lineOf(e) + "more fields than the header has columns");
  } catch (const io::error::escaped_string_not_closed &e) {
    return fail(lineOf(e) + "a quoted field is not closed");
  } catch (const io::error::line_length_limit_exceeded &e) {
    return fail(lineOf(e) + "the line is longer than 16 MiB");
  } catch (const io::error::base &e) {
    return fail(e.what());
  } catch (const std::exception &e) {
    return fail(e.what());
  }
  return llvm::Error::success();
}

/// The cache: one table per (path, keys, time column), for the process.
struct Cache {
  std::mutex mutex;
  std::map<std::string, std::shared_ptr<const LatencyTable>> tables;
};
Cache &getCache() {
  static Cache cache;
  return cache;
}

/// "m=8, n=256".
std::string describePoint(llvm::ArrayRef<std::string> keys,
                          llvm::ArrayRef<double> point) {
  std::string s;
  for (size_t i = 0; i < keys.size(); ++i) {
    if (i)
      s += ", ";
    s += keys[i] + "=" + std::to_string(uint64_t(point[i]));
  }
  return s;
}
} // namespace

llvm::Expected<std::shared_ptr<const LatencyTable>>
LatencyTable::load(llvm::StringRef pathRef, llvm::ArrayRef<std::string> keys,
                   llvm::StringRef timeColumn) {
  std::string path = pathRef.str();
  auto fail = [&](const std::string &what) -> llvm::Error {
    return llvm::createStringError(path + ": " + what);
  };
  if (keys.empty() || keys.size() > kMaxCalibrationKeys)
    return fail("a table has 1 to " + std::to_string(kMaxCalibrationKeys) +
                " keys");
  std::string cacheKey = path;
  for (const std::string &k : keys)
    cacheKey += '\0' + k;
  cacheKey += '\0' + timeColumn.str();

  Cache &cache = getCache();
  // Loads run under the lock: a sweep's threads asking for one table read
  // it once.
  std::lock_guard<std::mutex> lock(cache.mutex);
  auto cached = cache.tables.find(cacheKey);
  if (cached != cache.tables.end())
    return cached->second;

  // Bounded: a config naming /dev/zero or a directory is an error, not a
  // hang.
  auto buf = readInputFile(path, InputKind::Csv);
  if (!buf)
    return fail("cannot read: " + llvm::toString(buf.takeError()));
  auto table = parse((*buf)->getBuffer(), path, keys, timeColumn);
  if (!table)
    return table.takeError();
  cache.tables.emplace(cacheKey, *table);
  return std::move(*table);
}

llvm::Expected<std::shared_ptr<const LatencyTable>>
LatencyTable::parse(llvm::StringRef text, llvm::StringRef pathRef,
                    llvm::ArrayRef<std::string> keys,
                    llvm::StringRef timeColumn) {
  // Long: the CSV's header, rows and checks in order (docs/config.md,
  // Calibration).
  std::string path = pathRef.str();
  auto fail = [&](const std::string &what) -> llvm::Error {
    return llvm::createStringError(path + ": " + what);
  };
  if (keys.empty() || keys.size() > kMaxCalibrationKeys)
    return fail("a table has 1 to " + std::to_string(kMaxCalibrationKeys) +
                " keys");
  if (text.size() > kMaxCalibrationFileBytes)
    return fail("larger than " +
                std::to_string(kMaxCalibrationFileBytes >> 20) + " MiB");
  // The CSV reader ends a field at a NUL byte: the rest of the field would
  // be ignored, not read.
  size_t nul = findNulByte(text);
  if (nul != llvm::StringRef::npos)
    return fail(describeNulByte(text, nul));

  std::vector<std::string> names(keys.begin(), keys.end());
  names.push_back(timeColumn.str());
  Rows rows;
  if (llvm::Error e = readCsv(path, text, names, rows))
    return std::move(e);
  if (rows.fields.empty())
    return fail("no data rows after the header");

  // Parse the fields; collect each key's distinct values.
  size_t d = keys.size();
  std::vector<std::vector<double>> points(rows.fields.size());
  std::vector<double> times(rows.fields.size());
  auto table = std::make_shared<LatencyTable>();
  table->path = path;
  table->keys.assign(keys.begin(), keys.end());
  table->axes.resize(d);
  for (size_t r = 0; r < rows.fields.size(); ++r) {
    std::string where = "line " + std::to_string(rows.lines[r]) + ": ";
    for (size_t c = 0; c <= d; ++c) {
      llvm::StringRef field = rows.fields[r][c];
      double v;
      bool isKey = c < d;
      if (field.getAsDouble(v) || !std::isfinite(v))
        return fail(where + "column '" + names[c] + "': '" + field.str() +
                    "' is not a number");
      if (isKey && (v < 0 || v > kMaxCalibrationKey || v != std::floor(v)))
        return fail(where + "column '" + names[c] + "': " + field.str() +
                    " is not an integer in [0, 2^48] (keys are instruction "
                    "dimensions)");
      if (!isKey && (v < 0 || v > kMaxCalibrationTime))
        return fail(where + "column '" + names[c] + "': " + field.str() +
                    " is not a time in [0, 1e15]");
      if (isKey) {
        points[r].push_back(v);
        table->axes[c].push_back(v);
      } else {
        times[r] = v;
      }
    }
  }
  size_t gridPoints = 1;
  for (size_t i = 0; i < d; ++i) {
    std::vector<double> &axis = table->axes[i];
    llvm::sort(axis);
    axis.erase(std::unique(axis.begin(), axis.end()), axis.end());
    if (axis.size() < 2)
      return fail("column '" + keys[i] + "' has one value (" +
                  std::to_string(uint64_t(axis[0])) +
                  "): a key needs at least two measured values to "
                  "interpolate; drop it from \"keys\" instead");
    gridPoints *= axis.size(); // <= rows: each axis value has a row
    if (gridPoints > rows.fields.size())
      break;
  }

  auto duplicate = [&](size_t r) {
    return fail("line " + std::to_string(rows.lines[r]) + ": " +
                describePoint(keys, points[r]) +
                " is measured twice (each point of the grid needs exactly "
                "one row; does the time depend on a column missing from "
                "\"keys\"?)");
  };
  // Place every row on the grid, the last key varying fastest.
  auto indexOf = [&](llvm::ArrayRef<double> point) {
    size_t index = 0;
    for (size_t i = 0; i < d; ++i) {
      const std::vector<double> &axis = table->axes[i];
      index = index * axis.size() +
              size_t(llvm::lower_bound(axis, point[i]) - axis.begin());
    }
    return index;
  };
  if (gridPoints == rows.fields.size()) {
    table->values.assign(gridPoints, -1);
    for (size_t r = 0; r < points.size(); ++r) {
      double &slot = table->values[indexOf(points[r])];
      if (slot >= 0)
        return duplicate(r);
      slot = times[r];
    }
    // Every slot is filled: rows == grid points and none was a duplicate.
  } else {
    // Either a duplicate or a hole: name the first of either.
    std::map<std::vector<double>, unsigned> seen;
    for (size_t r = 0; r < points.size(); ++r)
      if (!seen.emplace(points[r], rows.lines[r]).second)
        return duplicate(r);
    // No duplicates and fewer rows than grid points: walk the grid in
    // order; a hole is met within rows + 1 steps.
    std::vector<size_t> at(d, 0);
    std::vector<double> point(d);
    while (true) {
      for (size_t i = 0; i < d; ++i)
        point[i] = table->axes[i][at[i]];
      if (!seen.count(point))
        return fail("no row for " + describePoint(keys, point) +
                    ": the table must measure every combination of its "
                    "keys' values (a full grid)");
      size_t i = d;
      while (i > 0 && ++at[i - 1] == table->axes[i - 1].size())
        at[--i] = 0;
      if (i == 0)
        break; // unreachable: fewer rows than points means a hole
    }
    return fail("internal error: grid check");
  }
  return std::shared_ptr<const LatencyTable>(std::move(table));
}

double LatencyTable::lookup(llvm::ArrayRef<double> point) const {
  size_t d = keys.size();
  assert(point.size() == d && "one value per key");
  // Per key: the segment [lo, lo + 1] holding the value (the first or last
  // segment past the grid) and the position t along it (< 0 or > 1 past
  // the grid: linear extension).
  std::array<size_t, kMaxCalibrationKeys> lo{};
  std::array<double, kMaxCalibrationKeys> t{};
  for (size_t i = 0; i < d; ++i) {
    const std::vector<double> &axis = axes[i];
    double x = point[i];
    size_t upper = size_t(llvm::upper_bound(axis, x) - axis.begin());
    size_t l = std::min(upper ? upper - 1 : 0, axis.size() - 2);
    lo[i] = l;
    t[i] = (x - axis[l]) / (axis[l + 1] - axis[l]);
    if (x < axis.front() || x > axis.back())
      warnOnce(
          Extrapolated,
          keys[i] + "=" + std::to_string(uint64_t(x)) +
              " is past the measured grid (" + keys[i] + " from " +
              std::to_string(uint64_t(axis.front())) + " to " +
              std::to_string(uint64_t(axis.back())) +
              "): extrapolating linearly; later lookups past this table's grid "
              "are not reported");
  }
  // Strides of the row-major grid.
  std::array<size_t, kMaxCalibrationKeys> stride{};
  size_t s = 1;
  for (size_t i = d; i-- > 0;) {
    stride[i] = s;
    s *= axes[i].size();
  }
  double sum = 0;
  for (unsigned corner = 0; corner < (1u << d); ++corner) {
    double weight = 1;
    size_t index = 0;
    for (size_t i = 0; i < d; ++i) {
      bool high = corner >> i & 1;
      weight *= high ? t[i] : 1 - t[i];
      index += (lo[i] + high) * stride[i];
    }
    sum += weight * values[index];
  }
  return sum;
}

void LatencyTable::warnOnce(WarningKind kind, llvm::StringRef message) const {
  if (!(warned.fetch_or(kind, std::memory_order_relaxed) & kind))
    calibrationWarning(path + ": " + message.str());
}

uint64_t CalibrationEntry::getCycles(llvm::ArrayRef<double> point,
                                     uint64_t minCycles) const {
  double cycles = std::round(table->lookup(point) * cyclesPerUnit);
  if (std::isnan(cycles) || cycles >= double(kMaxCalibratedCycles))
    return kMaxCalibratedCycles;
  if (cycles <= double(minCycles))
    return minCycles;
  return uint64_t(cycles);
}
