//===- InputTest.cpp - Bounded input reading, .npy headers ----------------===//
//
// Issue 31 ("nothing lost, nothing crashes"): accel::readInputFile refuses
// devices and directories, checks a regular file's size before reading it
// and stops a stream at its limit; accel::parseNpyHeader checks a .npy
// header before anything is allocated for its data.
//
//===----------------------------------------------------------------------===//

#include "accel/Support/Input.h"
#include "accel/Fdo/NpyIO.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <thread>

using namespace accel;

namespace {

template <typename T> std::string errorOf(llvm::Expected<T> e) {
  if (e)
    return "";
  return llvm::toString(e.takeError());
}

/// A fresh temporary directory, removed with its files.
class TempDir {
public:
  TempDir() {
    EXPECT_FALSE(llvm::sys::fs::createUniqueDirectory("accel-input", path));
  }
  ~TempDir() { llvm::sys::fs::remove_directories(path); }
  std::string file(llvm::StringRef name) const {
    llvm::SmallString<128> p(path);
    llvm::sys::path::append(p, name);
    return std::string(p);
  }
  llvm::SmallString<128> path;
};

void writeFile(const std::string &path, llvm::StringRef text) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  ASSERT_FALSE(ec);
  os << text;
}

TEST(InputTest, RegularFileIsReadWholeAndTerminated) {
  TempDir dir;
  std::string path = dir.file("a.json");
  writeFile(path, "{\"chips\": 1}");
  auto buf = readInputFile(path, InputKind::Json);
  ASSERT_TRUE(bool(buf)) << llvm::toString(buf.takeError());
  EXPECT_EQ((*buf)->getBuffer(), "{\"chips\": 1}");
  EXPECT_EQ((*buf)->getBufferIdentifier(), path);
  EXPECT_EQ(*(*buf)->getBufferEnd(), '\0');
}

TEST(InputTest, RegularFileOverItsLimitIsNotRead) {
  TempDir dir;
  std::string path = dir.file("big.csv");
  writeFile(path, std::string(100, 'x'));
  EXPECT_EQ(errorOf(readInputFile(path, {99, 1000}, "a test input", true)),
            "input is larger than the 99 bytes limit for a test input "
            "(100 bytes)");
  EXPECT_TRUE(bool(readInputFile(path, {100, 1}, "a test input", true)));
}

TEST(InputTest, DevicesAndDirectoriesAreRefused) {
  EXPECT_EQ(errorOf(readInputFile("/dev/zero", InputKind::Trace)),
            "not a regular file (a character device)");
  EXPECT_EQ(errorOf(readInputFile("/dev/null", InputKind::Program)),
            "not a regular file (a character device)");
  TempDir dir;
  EXPECT_EQ(errorOf(readInputFile(std::string(dir.path), InputKind::Npy)),
            "not a regular file (a directory)");
  std::string missing = errorOf(readInputFile(dir.file("no"), InputKind::Csv));
  EXPECT_EQ(missing, "No such file or directory");
}

TEST(InputTest, FifoStopsAtItsStreamLimit) {
  TempDir dir;
  std::string path = dir.file("fifo");
  ASSERT_EQ(mkfifo(path.c_str(), 0600), 0);
  // A writer of 1 MiB + 1 bytes (more than one read chunk); the reader's
  // limit is 1 MiB. The writer ends at the first failed write (the reader
  // closed the pipe: EPIPE, SIGPIPE ignored here).
  std::thread writer([&] {
    FILE *f = std::fopen(path.c_str(), "w");
    if (!f)
      return;
    std::string block(4096, 'y');
    for (int i = 0; i < 257; ++i)
      if (std::fwrite(block.data(), 1, block.size(), f) != block.size())
        break;
    std::fclose(f);
  });
  auto old = signal(SIGPIPE, SIG_IGN);
  EXPECT_EQ(errorOf(readInputFile(path, {1000, 1 << 20}, "a test input", true)),
            "input is larger than the 1 MiB limit for a test input");
  writer.join();
  signal(SIGPIPE, old);
  // A FIFO within the limit is read whole.
  std::thread small([&] {
    FILE *f = std::fopen(path.c_str(), "w");
    if (f) {
      std::fputs("hello", f);
      std::fclose(f);
    }
  });
  auto buf = readInputFile(path, {1000, 1 << 20}, "a test input", true);
  small.join();
  ASSERT_TRUE(bool(buf)) << llvm::toString(buf.takeError());
  EXPECT_EQ((*buf)->getBuffer(), "hello");
  EXPECT_EQ(*(*buf)->getBufferEnd(), '\0');
}

// A stream past the 1 MiB at which the reader's array becomes a mapping
// (BulkVector) comes back whole and in order, NUL-terminated.
TEST(InputTest, LargeFifoIsReadWhole) {
  TempDir dir;
  std::string path = dir.file("fifo");
  ASSERT_EQ(mkfifo(path.c_str(), 0600), 0);
  std::string want;
  for (size_t i = 0; want.size() < (size_t(3) << 20) + 5; ++i)
    want += std::to_string(i) + ",";
  std::thread writer([&] {
    FILE *f = std::fopen(path.c_str(), "w");
    if (!f)
      return;
    std::fwrite(want.data(), 1, want.size(), f);
    std::fclose(f);
  });
  auto buf = readInputFile(path, {1000, 4 << 20}, "a test input", true);
  writer.join();
  ASSERT_TRUE(bool(buf)) << llvm::toString(buf.takeError());
  EXPECT_EQ((*buf)->getBufferIdentifier(), path);
  EXPECT_TRUE((*buf)->getBuffer() == want);
  EXPECT_EQ(*(*buf)->getBufferEnd(), '\0');
}

TEST(InputTest, LimitsAndNames) {
  EXPECT_EQ(getInputLimits(InputKind::Program).fileBytes, 256ull << 20);
  EXPECT_EQ(getInputLimits(InputKind::Json).streamBytes, 64ull << 20);
  EXPECT_EQ(getInputLimits(InputKind::Csv).fileBytes, 64ull << 20);
  EXPECT_EQ(getInputLimits(InputKind::Metrics).fileBytes, 4ull << 30);
  EXPECT_EQ(getInputLimits(InputKind::Npy).fileBytes, 16ull << 30);
  EXPECT_EQ(getInputLimits(InputKind::Trace).streamBytes, 1ull << 30);
  EXPECT_EQ(formatByteLimit(256ull << 20), "256 MiB");
  EXPECT_EQ(formatByteLimit(16ull << 30), "16 GiB");
  EXPECT_EQ(formatByteLimit(1000), "1000 bytes");
  EXPECT_EQ(getInputKindName(InputKind::Npy), "a .npy file");
}

TEST(InputTest, NulBytes) {
  llvm::StringRef text("ab\ncd\0e", 7);
  EXPECT_EQ(findNulByte(text), 5u);
  EXPECT_EQ(describeNulByte(text, 5), "byte 5: a NUL byte at line 2, column 3");
  EXPECT_EQ(findNulByte("abc"), llvm::StringRef::npos);
  EXPECT_EQ(describeNulByte(llvm::StringRef("\0", 1), 0),
            "byte 0: a NUL byte at line 1, column 1");
}

/// A version-1 .npy file with header dict `dict` and `data` bytes.
std::string npy(llvm::StringRef dict, size_t data, unsigned version = 1) {
  std::string h = dict.str() + "\n";
  std::string out = "\x93NUMPY";
  out += char(version);
  out += char(0);
  size_t n = h.size();
  out += char(n & 0xff);
  out += char(n >> 8 & 0xff);
  if (version > 1) {
    out += char(n >> 16 & 0xff);
    out += char(n >> 24 & 0xff);
  }
  return out + h + std::string(data, '\0');
}

TEST(NpyHeaderTest, ValidHeaders) {
  auto h = parseNpyHeader(
      npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", 24));
  ASSERT_TRUE(bool(h)) << llvm::toString(h.takeError());
  EXPECT_EQ(h->descr, "<f4");
  EXPECT_FALSE(h->fortranOrder);
  EXPECT_EQ(h->shape, (std::vector<uint64_t>{2, 3}));
  EXPECT_EQ(h->elements, 6u);
  auto scalar = parseNpyHeader(npy(
      "{\"shape\": (), \"fortran_order\": True, \"descr\": \"<i4\"}", 4, 3));
  ASSERT_TRUE(bool(scalar)) << llvm::toString(scalar.takeError());
  EXPECT_TRUE(scalar->shape.empty());
  EXPECT_EQ(scalar->elements, 1u);
  EXPECT_TRUE(scalar->fortranOrder);
  auto zero = parseNpyHeader(
      npy("{'descr': '<f4', 'fortran_order': False, 'shape': (0, 4294967296)}",
          0, 2));
  ASSERT_TRUE(bool(zero)) << llvm::toString(zero.takeError());
  EXPECT_EQ(zero->elements, 0u);
}

TEST(NpyHeaderTest, BadHeaders) {
  auto err = [](llvm::StringRef dict) {
    return errorOf(parseNpyHeader(npy(dict, 64)));
  };
  // The dict starts at byte 10.
  EXPECT_EQ(
      err("{'descr': '<f4', 'fortran_order': False, 'shape': (8.0, 128)}"),
      "is not a NumPy .npy file: header byte 62: 'shape' must be a tuple "
      "of non-negative integers");
  EXPECT_EQ(err("{'descr': '<f4', 'fortran_order': False, 'shape': 8}"),
            "is not a NumPy .npy file: header byte 60: 'shape' must be a tuple "
            "of non-negative integers");
  EXPECT_EQ(err("{'descr': '<f4', 'fortran_order': False, 'shape': (8 128)}"),
            "is not a NumPy .npy file: header byte 63: expected ',' or ')' in "
            "'shape'");
  EXPECT_EQ(
      err("{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, "
          "4294967296)}"),
      "is not a NumPy .npy file: 'shape' (4294967296, 4294967296) has more "
      "than 2^64 elements");
  EXPECT_EQ(err("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': "
                "(1,)}"),
            "is not a NumPy .npy file: header byte 20: 'descr' is a structured "
            "dtype; save a plain array");
  EXPECT_EQ(err("{'descr': 'a\\'b', 'fortran_order': False, 'shape': (1,)}"),
            "is not a NumPy .npy file: header byte 22: an escape in a string "
            "(not a NumPy header)");
  std::string deep = "{'descr': '<f4', 'fortran_order': False, 'shape': (";
  for (int i = 0; i < 65; ++i)
    deep += "1, ";
  EXPECT_NE(err(deep + ")}").find("'shape' has more than 64 dimensions"),
            std::string::npos);
  // The header length past the file, in every version.
  std::string v2 = npy("{}", 0, 2);
  v2[8] = v2[9] = v2[10] = v2[11] = char(0xff);
  EXPECT_EQ(errorOf(parseNpyHeader(v2)),
            "is not a NumPy .npy file: the header length 4294967295 at byte 8 "
            "passes the end of the file (15 bytes)");
  EXPECT_EQ(errorOf(parseNpyHeader("\x93NUMPZ\x01\x00\x00\x00")),
            "is not a NumPy .npy file: no \\x93NUMPY magic at byte 0");
}

TEST(NpyHeaderTest, ReadChecksTheArgumentBeforeAllocating) {
  // 2^40 elements claimed by a 4 KiB file: the shape differs from the
  // argument's, and with the argument's shape the data is not there.
  std::string huge =
      npy("{'descr': '<f4', 'fortran_order': False, 'shape': (1099511627776,)}",
          4000);
  int64_t argShape[] = {1099511627776};
  EXPECT_EQ(errorOf(readNpyInput(huge, "h.npy", 0, NpyElement::F32,
                                 {int64_t(8), int64_t(128)})),
            "'h.npy' has shape (1099511627776,) but %arg0 has shape (8, 128)");
  EXPECT_EQ(
      errorOf(readNpyInput(huge, "h.npy", 0, NpyElement::F32, argShape)),
      "'h.npy' is truncated (its header promises 4398046511104 bytes of data)");
  // The right file.
  std::string good =
      npy("{'descr': '<u2', 'fortran_order': False, 'shape': (2, 2)}", 8);
  int64_t twoByTwo[] = {2, 2};
  auto in = readNpyInput(good, "g.npy", 1, NpyElement::BF16, twoByTwo);
  ASSERT_TRUE(bool(in)) << llvm::toString(in.takeError());
  EXPECT_EQ(in->bytes.size(), 8u);
  EXPECT_EQ(in->argIndex, 1u);
  EXPECT_EQ(
      errorOf(readNpyInput(good + "x", "g.npy", 1, NpyElement::BF16, twoByTwo)),
      "'g.npy' has bytes after its data");
}

} // namespace
