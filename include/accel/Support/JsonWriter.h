//===- JsonWriter.h - JSON written straight to a stream ---------*- C++ -*-===//
//
// Large JSON outputs (timeline.json: hundreds of thousands of events;
// metrics.json's "dmas") are written value by value to their stream instead
// of being built as an nlohmann::json tree and dumped (issue 34: a quarter
// of a run went to building and freeing those trees). The bytes are exactly
// those of dumpJson(value, indent) (nlohmann::json::dump(indent), invalid
// UTF-8 replaced) for the same value, compact or indented, so a writer can
// replace a tree without changing an output:
//   - doubles through nlohmann's own shortest round-trip conversion
//     (nlohmann::detail::to_chars, what dump() calls), NaN and infinities as
//     null;
//   - strings escaped by dumpJson unless they need no escaping;
//   - object keys in the order the caller writes them, which must be
//     nlohmann::json's (sorted, as in its std::map): checked by assertions.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_SUPPORT_JSONWRITER_H
#define ACCEL_SUPPORT_JSONWRITER_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <string>

namespace accel {

class JsonWriter {
public:
  /// A writer of compact JSON (`indent` < 0), or of JSON indented by
  /// `indent` spaces per level as dumpJson(value, indent) writes it (each
  /// member and element on its own line; empty objects and arrays as {}
  /// and []).
  explicit JsonWriter(llvm::raw_ostream &os, int indent = -1)
      : os(os), indent(indent) {}

  JsonWriter &beginObject();
  JsonWriter &endObject();
  JsonWriter &beginArray();
  JsonWriter &endArray();
  /// The next member's key (inside an object; keys in increasing byte
  /// order, as nlohmann::json sorts them).
  JsonWriter &key(llvm::StringRef k);

  JsonWriter &value(llvm::StringRef s);
  JsonWriter &value(const char *s) { return value(llvm::StringRef(s)); }
  JsonWriter &value(const std::string &s) { return value(llvm::StringRef(s)); }
  JsonWriter &value(double d);
  JsonWriter &value(uint64_t v);
  JsonWriter &value(int64_t v);
  JsonWriter &value(unsigned v) { return value(uint64_t(v)); }
  JsonWriter &value(int v) { return value(int64_t(v)); }
  JsonWriter &value(bool b);
  /// A whole value as dumpJson writes it (for the few parts already held
  /// as JSON).
  JsonWriter &value(const nlohmann::json &j);
  /// A value already written as JSON text (e.g. by another JsonWriter, to
  /// repeat it on many events without writing it again each time), copied
  /// as it is (so compact text stays compact in an indented writer).
  JsonWriter &rawValue(llvm::StringRef json);

  /// Appends `d` to `out` as value(d) writes it: the shortest digits that
  /// read back as `d`, as nlohmann::json dumps a number (null when `d` is
  /// not finite). For callers that assemble many events of one fixed shape
  /// as text (timeline slices) and hand each to rawValue.
  static void appendDouble(double d, llvm::SmallVectorImpl<char> &out);
  /// Appends `s` to `out` as value(s) writes it: between quotes, escaped
  /// as nlohmann::json dumps a string (invalid UTF-8 replaced).
  static void appendString(llvm::StringRef s, llvm::SmallVectorImpl<char> &out);

  /// key(k) then value(v).
  template <typename T> JsonWriter &member(llvm::StringRef k, const T &v) {
    key(k);
    return value(v);
  }

  /// Whether every object and array begun was ended.
  bool isComplete() const { return stack.empty(); }

private:
  /// Writes the comma before a value that is not the first of its array,
  /// and when indenting the line break and indentation before an element.
  void beforeValue();
  /// When indenting: a line break and the indentation of `depth` levels.
  void newLine(size_t depth);
  /// Whether `s` is written other than as its bytes between quotes.
  static bool needsEscape(llvm::StringRef s);

  llvm::raw_ostream &os;
  int indent;
  struct Level {
    bool isObject;
    bool empty = true;
    bool afterKey = false;
#ifndef NDEBUG
    std::string lastKey;
#endif
  };
  llvm::SmallVector<Level, 8> stack;
};

/// JsonWriter::appendDouble behind a small direct-mapped cache of the
/// texts of recent values, keyed by their bits: the same text, without
/// converting again a value written shortly before. A timeline slice's
/// duration is the difference of two times in microseconds, so a loop's
/// ops give a few dozen distinct values over thousands of slices
/// (layernorm_loop: 37 over 100,000), and each conversion is about 600 host
/// instructions (callgrind; nlohmann's grisu2). A miss costs a hash and a
/// 32-byte copy over appendDouble.
class DoubleTextCache {
public:
  /// Appends `d` to `out` exactly as JsonWriter::appendDouble does.
  void append(double d, llvm::SmallVectorImpl<char> &out);

private:
  static constexpr unsigned kSlotBits = 7, kSlots = 1u << kSlotBits;
  struct Slot {
    uint64_t bits = 0;
    uint8_t size = 0; ///< bytes of `text`; 0: the slot is empty
    char text[32];
  };
  Slot slots[kSlots];
};

} // namespace accel

#endif // ACCEL_SUPPORT_JSONWRITER_H
