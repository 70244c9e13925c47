//===- CheckedSize.h - Byte sizes of user-given shapes ----------*- C++ -*-===//
//
// Sizes computed from dimensions a user wrote (a memref type, a shape in an
// input file) must not wrap: memref<4294967296x4294967296xf32> is 2^66
// bytes, which 64-bit arithmetic turns into 0 and a run into a success on a
// 0-byte buffer. These compute sizes with overflow checks and describe the
// exact size when it does not fit (issue 31).
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_SUPPORT_CHECKEDSIZE_H
#define ACCEL_SUPPORT_CHECKEDSIZE_H

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <optional>
#include <string>

namespace accel {

/// The largest byte size of a buffer: sizes are int64_t in MLIR (2^63 - 1).
constexpr uint64_t kMaxByteSize = uint64_t(INT64_MAX);

/// The number of elements of `shape` (the product of its dimensions; 1 for
/// rank 0), or std::nullopt when a dimension is negative (dynamic) or the
/// product passes kMaxByteSize.
std::optional<uint64_t> getCheckedNumElements(llvm::ArrayRef<int64_t> shape);

/// The bytes of `shape` elements of `elemBytes` bytes each, or std::nullopt
/// when a dimension is negative (dynamic) or the size passes kMaxByteSize.
std::optional<uint64_t> getCheckedByteSize(llvm::ArrayRef<int64_t> shape,
                                           uint64_t elemBytes);

/// The exact size of `shape` elements of `elemBytes` bytes, for a message:
/// "4294967296 × 4294967296 × 4 bytes = 73786976294838206464 bytes (2^66)"
/// (the power of two only when the size is one; dimensions in order, the
/// element size last). Never overflows (arbitrary precision).
std::string describeByteSize(llvm::ArrayRef<int64_t> shape,
                             uint64_t elemBytes);

/// `a + b`, or std::nullopt when it passes `limit` (bytes, addresses).
std::optional<uint64_t> checkedAdd(uint64_t a, uint64_t b,
                                   uint64_t limit = UINT64_MAX);

/// `value` rounded up to a multiple of `align` (> 0), or std::nullopt when
/// that passes `limit`.
std::optional<uint64_t> checkedAlignTo(uint64_t value, uint64_t align,
                                       uint64_t limit = UINT64_MAX);

} // namespace accel

#endif // ACCEL_SUPPORT_CHECKEDSIZE_H
