//===- Input.cpp - Bounded reading of every input file --------------------===//

#include "accel/Support/Input.h"
#include "accel/Support/BulkVector.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Program.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <vector>

using namespace accel;

static constexpr uint64_t kMiB = uint64_t(1) << 20;
static constexpr uint64_t kGiB = uint64_t(1) << 30;

InputLimits accel::getInputLimits(InputKind kind) {
  switch (kind) {
  case InputKind::Program:
    return {256 * kMiB, 256 * kMiB};
  case InputKind::Json:
  case InputKind::Csv:
    return {64 * kMiB, 64 * kMiB};
  case InputKind::Metrics:
    return {4 * kGiB, 256 * kMiB};
  case InputKind::Npy:
  case InputKind::Trace:
    return {16 * kGiB, 1 * kGiB};
  }
  return {0, 0};
}

llvm::StringRef accel::getInputKindName(InputKind kind) {
  switch (kind) {
  case InputKind::Program:
    return "a program";
  case InputKind::Json:
    return "a JSON config";
  case InputKind::Metrics:
    return "a metrics file";
  case InputKind::Csv:
    return "a CSV table";
  case InputKind::Npy:
    return "a .npy file";
  case InputKind::Trace:
    return "a trace";
  }
  return "an input";
}

std::string accel::formatByteLimit(uint64_t bytes) {
  if (bytes && bytes % kGiB == 0)
    return std::to_string(bytes / kGiB) + " GiB";
  if (bytes && bytes % kMiB == 0)
    return std::to_string(bytes / kMiB) + " MiB";
  return std::to_string(bytes) + " bytes";
}

size_t accel::findNulByte(llvm::StringRef text) {
  const void *at = std::memchr(text.data(), 0, text.size());
  return at ? size_t(static_cast<const char *>(at) - text.data())
            : llvm::StringRef::npos;
}

std::string accel::describeNulByte(llvm::StringRef text, size_t at) {
  llvm::StringRef before = text.take_front(at);
  size_t line = 1 + before.count('\n');
  size_t lineStart = before.rfind('\n');
  size_t column = lineStart == llvm::StringRef::npos ? at + 1 : at - lineStart;
  return "byte " + std::to_string(at) + ": a NUL byte at line " +
         std::to_string(line) + ", column " + std::to_string(column);
}

/// "a character device" for a file that is not regular, or empty for a
/// regular file or a FIFO (which are read).
static const char *describeUnreadable(llvm::sys::fs::file_type type) {
  using llvm::sys::fs::file_type;
  switch (type) {
  case file_type::regular_file:
  case file_type::fifo_file:
    return nullptr;
  case file_type::directory_file:
    return "a directory";
  case file_type::character_file:
    return "a character device";
  case file_type::block_file:
    return "a block device";
  case file_type::socket_file:
    return "a socket";
  default:
    return "a file of unknown type";
  }
}

static llvm::Error tooLarge(uint64_t limit, llvm::StringRef kindName,
                            std::optional<uint64_t> size = std::nullopt) {
  std::string msg = "input is larger than the " + formatByteLimit(limit) +
                    " limit for " + kindName.str();
  if (size)
    msg += " (" + std::to_string(*size) + " bytes)";
  return llvm::createStringError(
      std::make_error_code(std::errc::file_too_large), msg);
}

namespace {
/// The bytes a stream was read into, as a MemoryBuffer (NUL-terminated):
/// the array itself, not a copy of it.
class StreamBuffer final : public llvm::MemoryBuffer {
public:
  /// `bytes` holds the input and a NUL after it.
  StreamBuffer(BulkVector<char> bytes, llvm::StringRef name)
      : bytes(std::move(bytes)), name(name.str()) {
    init(this->bytes.begin(), this->bytes.end() - 1,
         /*RequiresNullTerminator=*/true);
  }
  llvm::StringRef getBufferIdentifier() const override { return name; }
  BufferKind getBufferKind() const override { return MemoryBuffer_Malloc; }

private:
  BulkVector<char> bytes;
  std::string name;
};
} // namespace

/// Reads `fd` to its end, stopping with an error once more than `limit`
/// bytes have come. The bytes go straight into a BulkVector: past 1 MiB it
/// is a mapping that grows without copying and whose pages are populated
/// ahead of the reads. A stream at a program's 256 MiB limit (issue 34,
/// test/Support/inputs-devices.test) took 66.7 K page faults and 1.9 s of
/// system time read in heap chunks and concatenated.
static llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
readStream(llvm::sys::fs::file_t fd, llvm::StringRef name, uint64_t limit,
           llvm::StringRef kindName) {
  // A pipe's buffer is 64 KiB: one read takes at most that much.
  static constexpr size_t kChunk = size_t(64) << 10;
  BulkVector<char> bytes;
  while (true) {
    size_t used = bytes.size();
    bytes.resize_for_overwrite(used + kChunk);
    llvm::Expected<size_t> n = llvm::sys::fs::readNativeFile(
        fd, llvm::MutableArrayRef<char>(bytes.data() + used, kChunk));
    if (!n)
      return n.takeError();
    bytes.truncate(used + *n);
    if (*n == 0)
      break;
    if (bytes.size() > limit)
      return tooLarge(limit, kindName);
  }
  bytes.push_back('\0');
  return std::make_unique<StreamBuffer>(std::move(bytes), name);
}

llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
accel::readInputFile(llvm::StringRef path, const InputLimits &limits,
                     llvm::StringRef kindName, bool nullTerminate) {
  namespace fs = llvm::sys::fs;
  if (path == "-") {
    // Standard input: a regular file redirected in has the file limit, a
    // pipe, a terminal or a device the stream limit; either way the read is
    // bounded.
    (void)llvm::sys::ChangeStdinMode(fs::OF_None);
    fs::file_t in = fs::getStdinHandle();
    fs::file_status status;
    bool regular =
        !fs::status(in, status) && status.type() == fs::file_type::regular_file;
    return readStream(in, "<stdin>",
                      regular ? limits.fileBytes : limits.streamBytes,
                      kindName);
  }
  // The type first, by path: a device is refused before it is opened
  // (opening one may have effects, reading /dev/zero never ends).
  fs::file_status status;
  if (std::error_code ec = fs::status(path, status))
    return llvm::errorCodeToError(ec);
  if (const char *what = describeUnreadable(status.type()))
    return llvm::createStringError(
        std::make_error_code(std::errc::invalid_argument),
        "not a regular file (%s)", what);
  llvm::Expected<fs::file_t> fd = fs::openNativeFileForRead(path);
  if (!fd)
    return fd.takeError();
  llvm::scope_exit close([&] { fs::closeFile(*fd); });
  // Again on the open file: the path may have been replaced meanwhile.
  if (std::error_code ec = fs::status(*fd, status))
    return llvm::errorCodeToError(ec);
  if (const char *what = describeUnreadable(status.type()))
    return llvm::createStringError(
        std::make_error_code(std::errc::invalid_argument),
        "not a regular file (%s)", what);
  if (status.type() == fs::file_type::fifo_file)
    return readStream(*fd, path, limits.streamBytes, kindName);
  uint64_t size = status.getSize();
  if (size > limits.fileBytes)
    return tooLarge(limits.fileBytes, kindName, size);
  auto buf = llvm::MemoryBuffer::getOpenFile(*fd, path, size, nullTerminate);
  if (!buf)
    return llvm::errorCodeToError(buf.getError());
  return std::move(*buf);
}

llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
accel::readInputFile(llvm::StringRef path, InputKind kind) {
  bool text = kind == InputKind::Program || kind == InputKind::Json ||
              kind == InputKind::Metrics || kind == InputKind::Csv;
  return readInputFile(path, getInputLimits(kind), getInputKindName(kind),
                       text);
}
