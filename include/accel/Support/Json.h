//===- Json.h - JSON read without exceptions, written without throwing -*- C++
//-*-===//
//
// Every JSON document accel reads from a file (machine configs, metrics.json)
// goes through parseJson, and every field through JsonReader: no nlohmann
// exception escapes, nesting is bounded (no stack overflow on hostile input),
// and each problem is one error naming the file and the byte offset or the
// field. Every document accel writes goes through dumpJson, which replaces
// bytes that are not UTF-8 (a function or path name) instead of throwing.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_SUPPORT_JSON_H
#define ACCEL_SUPPORT_JSON_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>

namespace accel {

/// Deepest nesting of arrays and objects parseJson accepts. accel's own
/// documents nest at most 6 deep.
constexpr unsigned kMaxJsonDepth = 64;

/// Parses `text` as one JSON value. Errors (one, the first):
///   "SOURCE: byte N: parse error at line L, column C: ..." (syntax, bad
///   UTF-8), "SOURCE: byte N: number overflow parsing '1e400'",
///   "SOURCE: byte N: nesting deeper than 64 arrays and objects",
///   "SOURCE: byte N: a NUL byte at line L, column C" (anywhere in `text`;
///   the parser would otherwise stop at it), and anything but whitespace
///   after the value ("... expected end of input").
/// Byte offsets are 0-based.
llvm::Expected<nlohmann::json> parseJson(llvm::StringRef text,
                                         llvm::StringRef source,
                                         unsigned maxDepth = kMaxJsonDepth);

/// `value.dump(indent)`, with bytes that are not valid UTF-8 replaced by
/// U+FFFD instead of a thrown type_error.316.
std::string dumpJson(const nlohmann::json &value, int indent = -1);

/// dumpJson(value, indent) written straight to `os`, without the string:
/// the same bytes (nlohmann's own serializer), for large documents such as
/// a metrics.json of tens of MB. With `indent` >= 0, `currentIndent` spaces
/// start every line after the first (a value nested in an indented
/// document, as the document's own dump would write it).
void dumpJson(const nlohmann::json &value, llvm::raw_ostream &os,
              int indent = -1, unsigned currentIndent = 0);

/// Writes `value` to `path` as accel's JSON documents are written
/// (metrics.json, fdo.json, sweep.json): dumpJson with an indent of 2 and a
/// final newline, streamed through writeOutput (Output.h: staged, replaced
/// whole; "-" is stdout). Errors: writeOutput's.
llvm::Error writeJsonFile(llvm::StringRef path, const nlohmann::json &value);

/// Reads fields of a parsed document with type and range checks. The first
/// problem wins and is kept in `error` as
/// "SOURCE: field 'PATH': WHAT" (PATH as in "dma.links[0].bytes_per_cycle").
/// Accessors return a neutral value (0, "", nullptr) once an error is set,
/// so callers read a whole structure and check `ok()` once.
class JsonReader {
public:
  explicit JsonReader(std::string source) : source(std::move(source)) {}

  std::string error;
  bool ok() const { return error.empty(); }
  /// Records `what` about field `field` unless an error is already set.
  void fail(const std::string &field, const std::string &what);

  /// The member `key` of `obj`; a missing key is an error.
  const nlohmann::json *get(const nlohmann::json &obj, const std::string &key,
                            const std::string &path);
  /// The member `key`, or nullptr (no error) when absent.
  static const nlohmann::json *find(const nlohmann::json &obj,
                                    const std::string &key);
  /// An integer in [min, max].
  uint64_t u64(const nlohmann::json &obj, const std::string &key,
               const std::string &path, uint64_t min = 1,
               uint64_t max = UINT64_MAX);
  /// An integer in [min, max] (max <= UINT32_MAX).
  unsigned u32(const nlohmann::json &obj, const std::string &key,
               const std::string &path, uint64_t min = 1,
               uint64_t max = UINT32_MAX);
  /// A signed integer in [min, max].
  int64_t i64(const nlohmann::json &obj, const std::string &key,
              const std::string &path, int64_t min, int64_t max);
  /// A finite number in [min, max]; `minExclusive` makes the lower bound
  /// exclusive ("must be > 0").
  double number(const nlohmann::json &obj, const std::string &key,
                const std::string &path, double min, double max,
                bool minExclusive = false);
  std::string string(const nlohmann::json &obj, const std::string &key,
                     const std::string &path);
  /// `true` or `false`.
  bool boolean(const nlohmann::json &obj, const std::string &key,
               const std::string &path);
  /// An object member, whose keys must all be in `allowed` (an empty list
  /// allows any key).
  const nlohmann::json *object(const nlohmann::json &obj,
                               const std::string &key, const std::string &path,
                               std::initializer_list<const char *> allowed);
  /// An array member.
  const nlohmann::json *array(const nlohmann::json &obj, const std::string &key,
                              const std::string &path);
  /// Every key of `obj` is in `allowed`; otherwise "unknown field".
  void onlyKeys(const nlohmann::json &obj, const std::string &path,
                std::initializer_list<const char *> allowed);

private:
  std::string source;
};

/// The value of `obj[key]` when it is an integer that fits int64_t, else
/// nullopt (absent, another type, or a huge unsigned value).
std::optional<int64_t> getInt64(const nlohmann::json &obj, const char *key);
/// The value of `obj[key]` when it is a string, else nullopt.
std::optional<std::string> getString(const nlohmann::json &obj,
                                     const char *key);

} // namespace accel

#endif // ACCEL_SUPPORT_JSON_H
