//===- Input.h - Bounded reading of every input file ------------*- C++ -*-===//
//
// Every file accel reads (programs, machine configs, metrics.json, sweep
// configs, calibration CSV tables, .npy tensors, traces) goes through
// readInputFile, so that no input can make a tool read until memory runs
// out: a regular file is checked against a per-kind size limit before it is
// read; standard input ("-") and FIFOs (a pipe, `<(...)`) are read in chunks
// that stop at a smaller per-kind limit; devices (/dev/zero, /dev/urandom,
// a terminal named by path), sockets and directories are refused before
// they are opened. The limits are documented in docs/inputs.md.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_SUPPORT_INPUT_H
#define ACCEL_SUPPORT_INPUT_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstdint>
#include <memory>
#include <string>

namespace accel {

/// What an input holds: it chooses the size limits and the name errors use.
enum class InputKind : uint8_t {
  Program, ///< MLIR text or a program image (accel-replay, accel-opt,
           ///< accel-translate input)
  Json,    ///< a machine config (--config of every tool and command)
  Metrics, ///< a metrics.json (--accel-attach-metrics=FILE), which grows
           ///< with the run (9 MiB for the Llama-2 MLP block's 106 K
           ///< instructions)
  Csv,     ///< a calibration table
  Npy,     ///< a NumPy .npy tensor (--input)
  Trace,   ///< an accel trace (docs/trace-format.md)
};

/// The size limits of one kind of input, in bytes.
struct InputLimits {
  /// A regular file (checked with stat before it is read).
  uint64_t fileBytes;
  /// Standard input or a FIFO (read in chunks; reading stops past it).
  uint64_t streamBytes;
};

/// The limits of `kind` (docs/inputs.md): a program 256 MiB (file and
/// stream); a JSON config or a CSV table 64 MiB (file and stream); a
/// metrics.json 4 GiB as a regular file, 256 MiB from a stream; a .npy file
/// or a trace 16 GiB as a regular file, 1 GiB from a stream.
InputLimits getInputLimits(InputKind kind);

/// "a program", "a JSON config", "a metrics file", "a CSV table", "a .npy
/// file", "a trace".
llvm::StringRef getInputKindName(InputKind kind);

/// Reads the whole input `path` ("-": standard input) of kind `kind`.
/// Text kinds (Program, Json, Metrics, Csv) get a NUL-terminated buffer, as
/// llvm::SourceMgr needs. The buffer's identifier is `path`, or "<stdin>"
/// for "-".
///
/// Errors (one line each; the message does not repeat the path, the caller
/// names it):
///  - the reason open or read failed ("No such file or directory");
///  - "not a regular file (a character device)" (also "a block device",
///    "a socket", "a directory", "a file of unknown type");
///  - "input is larger than the N MiB limit for KIND" (a regular file, with
///    its size in bytes after it, or a stream once it has passed the limit).
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
readInputFile(llvm::StringRef path, InputKind kind);

/// The same with explicit limits (`limits` in bytes; `kindName` for the
/// message), for tests and callers with a limit of their own.
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
readInputFile(llvm::StringRef path, const InputLimits &limits,
              llvm::StringRef kindName, bool nullTerminate);

/// "256 MiB", "16 GiB", "1000 bytes": a limit for messages.
std::string formatByteLimit(uint64_t bytes);

/// The first NUL byte of `text`, or StringRef::npos. Text formats (JSON,
/// CSV) reject one: their parsers would stop at it and ignore the rest.
size_t findNulByte(llvm::StringRef text);

/// "byte N: a NUL byte at line L, column C" (N 0-based, L and C 1-based)
/// for the NUL byte at offset `at` of `text`.
std::string describeNulByte(llvm::StringRef text, size_t at);

} // namespace accel

#endif // ACCEL_SUPPORT_INPUT_H
