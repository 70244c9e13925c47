//===- ByteStream.h - Little-endian writer and checked reader ---*- C++ -*-===//
//
// The binary files of accel (program images, docs/isa.md; traces,
// docs/trace-format.md) are little-endian fields, strings with a u32 length
// and byte blocks with a u64 length. ByteWriter appends them and ByteReader
// reads them, both over LLVM's byte order and binary stream support; the
// reader adds accel's rule for bad input: its first failure sticks as a
// message naming the absolute byte offset and the field.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_ISA_BYTESTREAM_H
#define ACCEL_ISA_BYTESTREAM_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/BinaryByteStream.h"
#include "llvm/Support/BinaryStreamReader.h"
#include "llvm/Support/Endian.h"

#include <cassert>
#include <cstdint>
#include <string>
#include <vector>

namespace accel {

/// Appends little-endian fields (llvm::support::endian) to `out`.
class ByteWriter {
public:
  std::vector<uint8_t> out;

  void u8(uint8_t v) { out.push_back(v); }
  void u32(uint32_t v) { le(v); }
  void u64(uint64_t v) { le(v); }
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
  void raw(llvm::ArrayRef<uint8_t> b) {
    out.insert(out.end(), b.begin(), b.end());
  }

private:
  template <typename T> void le(T v) {
    size_t at = out.size();
    out.resize(at + sizeof(T));
    llvm::support::endian::write<T, llvm::endianness::little>(&out[at], v);
  }
};

/// Reads little-endian fields with an llvm::BinaryStreamReader, checking
/// each read against the bytes left first: its first failure sticks as a
/// message naming the absolute byte offset in the file and the field
/// ("truncated trace at byte 40 while reading register count").
class ByteReader {
public:
  /// Reads `in`, whose first byte is at `fileOffset` of the file; a
  /// truncation reads "<truncatedPrefix><offset> while reading <field>".
  ByteReader(llvm::ArrayRef<uint8_t> in, size_t fileOffset,
             std::string truncatedPrefix)
      : stream(in, llvm::endianness::little), reader(stream), base(fileOffset),
        prefix(std::move(truncatedPrefix)) {}
  /// The reader refers to its own stream: not copyable.
  ByteReader(const ByteReader &) = delete;
  ByteReader &operator=(const ByteReader &) = delete;

  /// Sets the error, unless one is set already (the first one sticks).
  void fail(std::string message) {
    if (err.empty())
      err = std::move(message);
  }

  std::string err;

  bool ok() const { return err.empty(); }
  /// The offset of the next field in `in`, and in the file.
  size_t getPos() const { return size_t(reader.getOffset()); }
  size_t fileOffset() const { return base + getPos(); }
  /// Moves to offset `pos` of `in` (at most its size).
  void setPos(size_t pos) {
    assert(pos <= reader.getLength() && "setPos past the end");
    reader.setOffset(pos);
  }
  /// Skips `n` bytes that need(n) found.
  void skip(uint64_t n) { llvm::cantFail(reader.skip(n)); }
  /// Whether `n` more bytes are there; sets the error otherwise.
  bool need(uint64_t n, const char *what) {
    if (!err.empty())
      return false;
    if (n > reader.bytesRemaining()) {
      err = prefix + std::to_string(fileOffset()) + " while reading " + what;
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
    uint64_t left = reader.bytesRemaining();
    if (recordBytes && count > left / recordBytes) {
      // count * recordBytes may not fit in 64 bits: print it in two parts.
      err = prefix + std::to_string(fileOffset()) + " while reading " + what +
            ": " + std::to_string(count) + " announced, at least " +
            std::to_string(count) + " x " + std::to_string(recordBytes) +
            " bytes, but " + std::to_string(left) + " are left";
      return false;
    }
    return true;
  }
  /// `n` u32s into `out[0..n)` in one pass over the bytes (a PC
  /// sequence); the same values and, when the bytes run out, the same
  /// error as `n` calls of u32(what).
  void u32s(uint32_t *out, uint64_t n, const char *what) {
    if (!err.empty() || n > reader.bytesRemaining() / 4) {
      for (uint64_t i = 0; i < n && err.empty(); ++i)
        out[i] = u32(what);
      return;
    }
    const uint8_t *p = rest().data();
    for (uint64_t i = 0; i < n; ++i)
      out[i] = llvm::support::endian::read32le(p + 4 * i);
    skip(4 * n);
  }
  uint8_t u8(const char *what) { return read<uint8_t>(what); }
  uint32_t u32(const char *what) { return read<uint32_t>(what); }
  uint64_t u64(const char *what) { return read<uint64_t>(what); }
  /// A u32 length, then the characters.
  std::string str(const char *what) {
    uint32_t n = u32(what);
    if (!need(n, what))
      return {};
    llvm::StringRef s;
    llvm::cantFail(reader.readFixedString(s, n));
    return s.str();
  }
  /// A u64 length, then the bytes (a view into `in`).
  llvm::ArrayRef<uint8_t> bytes(const char *what) {
    uint64_t n = u64(what);
    if (!need(n, what))
      return {};
    // Not readBytes, whose size is 32 bits: a block may be larger.
    llvm::ArrayRef<uint8_t> r = rest().take_front(n);
    skip(n);
    return r;
  }
  /// The bytes not read yet.
  llvm::ArrayRef<uint8_t> rest() const {
    return stream.data().drop_front(getPos());
  }

private:
  template <typename T> T read(const char *what) {
    T v = 0;
    if (need(sizeof(T), what))
      llvm::cantFail(reader.readInteger(v));
    return v;
  }

  llvm::BinaryByteStream stream;
  llvm::BinaryStreamReader reader;
  size_t base;
  std::string prefix;
};

} // namespace accel

#endif // ACCEL_ISA_BYTESTREAM_H
