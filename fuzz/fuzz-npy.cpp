//===- fuzz-npy.cpp - libFuzzer target: .npy tensors for --input ----------===//
//
// accel::readNpyInput (lib/Fdo/NpyIO.cpp), the reader of `--input
// NAME=FILE.npy`, on arbitrary bytes. The first bytes choose the argument
// the file is read for; the rest is the .npy file:
//
//   byte 0        the element type: 0 f32, 1 i32, 2 bf16 (modulo 3)
//   byte 1        the rank, 0 to 3 (modulo 4)
//   2 bytes/dim   each dimension, a little-endian u16
//   the rest      the .npy file
//
// An error is a clean rejection; a crash, a sanitizer report, an escaping
// exception or an allocation beyond -malloc_limit_mb is a bug (the
// argument may claim 2^48 elements and the header 2^64: nothing may be
// allocated before the file is known to hold the data). An accepted file
// must give exactly the argument's bytes and agree with parseNpyHeader.
//
//===----------------------------------------------------------------------===//

#include "accel/Fdo/NpyIO.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/ErrorHandling.h"

#include <cstdint>

using namespace accel;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 2)
    return 0;
  NpyElement element = NpyElement(data[0] % 3);
  unsigned rank = data[1] % 4;
  size_t at = 2;
  if (size < at + 2 * rank)
    return 0;
  llvm::SmallVector<int64_t, 3> shape;
  uint64_t elements = 1;
  for (unsigned i = 0; i < rank; ++i, at += 2) {
    shape.push_back(int64_t(data[at]) | int64_t(data[at + 1]) << 8);
    elements *= uint64_t(shape.back()); // at most 2^48: no overflow
  }
  llvm::StringRef bytes(reinterpret_cast<const char *>(data) + at, size - at);
  auto input = readNpyInput(bytes, "fuzz.npy", 3, element, shape);
  if (!input) {
    llvm::consumeError(input.takeError());
    return 0;
  }
  // Accepted: the argument's bytes exactly, from a header that parses to
  // the argument's shape and data that ends the file.
  uint64_t itemBytes = element == NpyElement::BF16 ? 2 : 4;
  if (input->bytes.size() != elements * itemBytes)
    llvm::report_fatal_error(
        "readNpyInput gave " + llvm::Twine(input->bytes.size()) +
        " bytes for an argument of " + llvm::Twine(elements * itemBytes));
  if (input->argIndex != 3)
    llvm::report_fatal_error("readNpyInput lost the argument index");
  auto header = parseNpyHeader(bytes);
  if (!header)
    llvm::report_fatal_error("readNpyInput accepted a header that "
                             "parseNpyHeader rejects: " +
                             llvm::Twine(llvm::toString(header.takeError())));
  if (header->elements != elements || header->shape.size() != rank ||
      header->dataOffset > bytes.size())
    llvm::report_fatal_error("readNpyInput accepted a header that does not "
                             "match the argument");
  if (element != NpyElement::BF16 || header->descr != "<f4") {
    if (input->roundedValues != 0)
      llvm::report_fatal_error("values rounded without a conversion");
  }
  return 0;
}
