//===- CheckedSize.cpp - Byte sizes of user-given shapes ------------------===//

#include "accel/Support/CheckedSize.h"

#include "llvm/ADT/APInt.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/CheckedArithmetic.h"

using namespace accel;

std::optional<uint64_t>
accel::getCheckedNumElements(llvm::ArrayRef<int64_t> shape) {
  return getCheckedByteSize(shape, 1);
}

std::optional<uint64_t> accel::getCheckedByteSize(llvm::ArrayRef<int64_t> shape,
                                                  uint64_t elemBytes) {
  std::optional<uint64_t> size = elemBytes;
  for (int64_t d : shape) {
    if (d < 0)
      return std::nullopt;
    size = llvm::checkedMulUnsigned(*size, uint64_t(d));
    if (!size)
      return std::nullopt;
  }
  if (*size > kMaxByteSize)
    return std::nullopt;
  return size;
}

std::string accel::describeByteSize(llvm::ArrayRef<int64_t> shape,
                                    uint64_t elemBytes) {
  // Each factor is below 2^64: the product fits 64 * (factors) bits.
  unsigned bits = 64 * unsigned(shape.size() + 1);
  llvm::APInt size(bits, elemBytes);
  std::string text;
  for (int64_t d : shape) {
    text += std::to_string(d) + " \u00d7 ";
    size *= llvm::APInt(bits, uint64_t(d < 0 ? 0 : d));
  }
  text += std::to_string(elemBytes) + (elemBytes == 1 ? " byte" : " bytes");
  llvm::SmallString<64> digits;
  size.toStringUnsigned(digits, 10);
  text += " = " + std::string(digits) + " bytes";
  if (size.ugt(1) && size.isPowerOf2())
    text += " (2^" + std::to_string(size.logBase2()) + ")";
  return text;
}

std::optional<uint64_t> accel::checkedAdd(uint64_t a, uint64_t b,
                                          uint64_t limit) {
  std::optional<uint64_t> sum = llvm::checkedAddUnsigned(a, b);
  if (!sum || *sum > limit)
    return std::nullopt;
  return sum;
}

std::optional<uint64_t> accel::checkedAlignTo(uint64_t value, uint64_t align,
                                              uint64_t limit) {
  uint64_t rem = value % align;
  if (rem == 0)
    return value <= limit ? std::optional<uint64_t>(value) : std::nullopt;
  return checkedAdd(value, align - rem, limit);
}
