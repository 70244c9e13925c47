//===- ByteStream.h - Little-endian writer and checked reader ---*- C++ -*-===//
//
// The binary files of accel (program images, docs/isa.md; traces,
// docs/trace-format.md) are little-endian fields, strings with a u32 length
// and byte blocks with a u64 length. ByteWriter appends them; ByteReader
// reads them with bounds checks, and its first failure sticks as a message
// naming the absolute byte offset and the field.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_ISA_BYTESTREAM_H
#define ACCEL_ISA_BYTESTREAM_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>
#include <vector>

namespace accel {

class ByteWriter {
public:
  std::vector<uint8_t> out;

  void u8(uint8_t v) { out.push_back(v); }
  void u32(uint32_t v) { le(v, 4); }
  void u64(uint64_t v) { le(v, 8); }
  /// A u32 length, then the characters.
  void str(llvm::StringRef s) {
    u32(uint32_t(s.size()));
    out.insert(out.end(), s.begin(), s.end());
  }
  /// A u64 length, then the bytes.
  void bytes(llvm::ArrayRef<uint8_t> b) {
    u64(b.size());
    out.insert(out.end(), b.begin(), b.end());
  }
  void raw(llvm::ArrayRef<uint8_t> b) { out.insert(out.end(), b.begin(), b.end()); }

private:
  void le(uint64_t v, int n) {
    for (int i = 0; i < n; ++i)
      out.push_back(uint8_t(v >> (8 * i)));
  }
};

class ByteReader {
public:
  /// Reads `in`, whose first byte is at `fileOffset` of the file; a
  /// truncation reads "<truncatedPrefix><offset> while reading <field>".
  ByteReader(llvm::ArrayRef<uint8_t> in, size_t fileOffset,
             std::string truncatedPrefix)
      : in(in), base(fileOffset), prefix(std::move(truncatedPrefix)) {}
  /// Sets the error, unless one is set already (the first one sticks).
  void fail(std::string message) {
    if (err.empty())
      err = std::move(message);
  }

  size_t pos = 0; ///< offset in `in`
  std::string err;

  bool ok() const { return err.empty(); }
  size_t fileOffset() const { return base + pos; }
  /// Whether `n` more bytes are there; sets the error otherwise.
  bool need(uint64_t n, const char *what) {
    if (!err.empty())
      return false;
    if (n > in.size() - pos) {
      err = prefix + std::to_string(base + pos) + " while reading " + what;
      return false;
    }
    return true;
  }
  /// Whether `count` records of `recordBytes` bytes each (at least, for
  /// records of variable size) can follow; sets the error otherwise:
  /// "<prefix><offset> while reading <what>: <count> announced, at least
  /// <bytes> bytes, but <left> are left". Call it before allocating for a
  /// count read from the file.
  bool needRecords(uint64_t count, uint64_t recordBytes, const char *what) {
    if (!err.empty())
      return false;
    uint64_t left = in.size() - pos;
    if (recordBytes && count > left / recordBytes) {
      // count * recordBytes may not fit in 64 bits: print it in two parts.
      err = prefix + std::to_string(base + pos) + " while reading " + what +
            ": " + std::to_string(count) + " announced, at least " +
            std::to_string(count) + " x " + std::to_string(recordBytes) +
            " bytes, but " + std::to_string(left) + " are left";
      return false;
    }
    return true;
  }
  uint8_t u8(const char *what) { return need(1, what) ? in[pos++] : 0; }
  uint32_t u32(const char *what) { return uint32_t(le(4, what)); }
  uint64_t u64(const char *what) { return le(8, what); }
  std::string str(const char *what) {
    uint32_t n = u32(what);
    if (!need(n, what))
      return {};
    std::string s(in.begin() + pos, in.begin() + pos + n);
    pos += n;
    return s;
  }
  llvm::ArrayRef<uint8_t> bytes(const char *what) {
    uint64_t n = u64(what);
    if (!need(n, what))
      return {};
    auto r = in.slice(pos, n);
    pos += n;
    return r;
  }
  llvm::ArrayRef<uint8_t> rest() const { return in.drop_front(pos); }

private:
  uint64_t le(int n, const char *what) {
    if (!need(n, what))
      return 0;
    uint64_t v = 0;
    for (int i = 0; i < n; ++i)
      v |= uint64_t(in[pos++]) << (8 * i);
    return v;
  }

  llvm::ArrayRef<uint8_t> in;
  size_t base;
  std::string prefix;
};

} // namespace accel

#endif // ACCEL_ISA_BYTESTREAM_H
