//===- NpyIO.cpp - HBM arguments from and to NumPy .npy files -------------===//

#include "accel/Fdo/NpyIO.h"
#include "accel/Support/BFloat16.h"
#include "accel/Support/Output.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <xtensor/xadapt.hpp>
#include <xtensor/xnpy.hpp>

#include "llvm/Support/MemoryBuffer.h"

#include <cstring>
#include <sstream>

using namespace mlir;
using namespace accel;

namespace {

/// "%arg0 (memref<8x128xf32, #accel.space<hbm>>), ..." for error messages.
std::string describeArguments(func::FuncOp entry) {
  std::string text;
  llvm::raw_string_ostream os(text);
  for (auto [i, arg] : llvm::enumerate(entry.getArguments()))
    os << (i ? ", " : "") << "%arg" << i << " (" << arg.getType() << ")";
  return text.empty() ? "none" : text;
}

/// The dtype string NumPy writes for the element type of `type`, or empty
/// (bf16 has several; see loadHbmInput).
std::string getDtype(MemRefType type) {
  if (type.getElementType().isF32())
    return "<f4";
  if (type.getElementType().isInteger(32))
    return "<i4";
  if (type.getElementType().isBF16())
    return "bf16";
  return "";
}

/// The dtypes a bf16 argument reads: bit patterns, or f32 to round.
bool isBf16Bits(llvm::StringRef dtype) {
  return dtype == "<u2" || dtype == "<V2" || dtype == "|V2";
}

std::string formatShape(llvm::ArrayRef<int64_t> shape) {
  std::string text = "(";
  for (auto [i, d] : llvm::enumerate(shape))
    text += (i ? ", " : "") + std::to_string(d);
  if (shape.size() == 1)
    text += ",";
  return text + ")";
}

/// The HBM memref type of argument `index` of `entry`, or an error.
/// The memref type of argument `index` of `entry`, or why it is not an
/// HBM buffer (the lowering's rule, checkHbmArgument).
llvm::Expected<MemRefType> getHbmArgument(func::FuncOp entry, unsigned index) {
  Type type = entry.getArgument(index).getType();
  std::string why = checkHbmArgument(type);
  if (why.empty())
    return cast<MemRefType>(type);
  std::string text;
  llvm::raw_string_ostream(text) << type;
  return llvm::createStringError("%%arg%u (%s) is not an HBM buffer: it %s",
                                 index, text.c_str(), why.c_str());
}

} // namespace

llvm::Expected<unsigned> accel::parseArgumentName(func::FuncOp entry,
                                                  llvm::StringRef name) {
  llvm::StringRef digits = name;
  digits.consume_front("%");
  digits.consume_front("arg");
  unsigned index;
  if (digits.empty() || digits.getAsInteger(10, index) ||
      index >= entry.getNumArguments())
    return llvm::createStringError(
        "'%s' names no argument of @%s; its arguments are %s (name one by "
        "position N, argN or %%argN)",
        name.str().c_str(), entry.getSymName().str().c_str(),
        describeArguments(entry).c_str());
  return index;
}

llvm::Expected<HbmInput> accel::loadHbmInput(func::FuncOp entry,
                                             llvm::StringRef spec) {
  auto fail = [&](const llvm::Twine &why) -> llvm::Error {
    return llvm::createStringError("--input '" + spec + "': " + why);
  };
  auto [name, path] = spec.split('=');
  if (name.empty() || path.empty())
    return fail("expected NAME=FILE.npy");
  auto index = parseArgumentName(entry, name);
  if (!index)
    return fail(llvm::toString(index.takeError()));
  auto type = getHbmArgument(entry, *index);
  if (!type)
    return fail(llvm::toString(type.takeError()));

  auto file = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                          /*RequiresNullTerminator=*/false);
  if (!file)
    return fail("cannot open '" + path + "': " + file.getError().message());
  std::string contents = (*file)->getBuffer().str();
  file->reset();
  // NumPy saves ml_dtypes.bfloat16 as the raw 2-byte type '<V2' (or
  // '|V2'), which xtensor's reader does not parse: read it as the '<u2' of
  // the same bits (the header keeps its length).
  for (llvm::StringRef raw : {"'descr': '<V2'", "'descr': '|V2'"}) {
    size_t at = contents.find(raw.str());
    if (at != std::string::npos && at < contents.find('\n'))
      contents.replace(at, raw.size(), "'descr': '<u2'");
  }
  std::istringstream stream(std::move(contents));
  HbmInput input;
  input.argIndex = *index;
  input.source = ("--input '" + spec + "'").str();
  std::string dtype = getDtype(*type);
  std::vector<int64_t> shape;
  try {
    xt::detail::npy_file file = xt::detail::load_npy_file(stream);
    if (!stream)
      return fail("'" + path + "' is truncated (its header promises " +
                  llvm::Twine(file.n_bytes()) + " bytes of data)");
    if (stream.peek() != std::char_traits<char>::eof())
      return fail("'" + path + "' has bytes after its data");
    for (size_t d : file.m_shape)
      shape.push_back(int64_t(d));
    bool bf16 = dtype == "bf16";
    if (bf16 && !isBf16Bits(file.m_typestring) && file.m_typestring != "<f4")
      return fail("'" + path + "' holds dtype '" + file.m_typestring +
                  "' but %arg" + llvm::Twine(*index) +
                  " has bf16 elements: save them as '<f4' (rounded to "
                  "nearest even), as '<u2' bit patterns (a.view(np.uint16)) "
                  "or as ml_dtypes.bfloat16");
    if (!bf16 && file.m_typestring != dtype)
      return fail("'" + path + "' holds dtype '" + file.m_typestring +
                  "' but %arg" + llvm::Twine(*index) + " has '" + dtype +
                  "' elements (convert with numpy's astype)");
    if (file.m_fortran_order && shape.size() > 1)
      return fail("'" + path + "' is in Fortran (column-major) order; save "
                  "a C-order array (numpy.ascontiguousarray)");
    if (llvm::ArrayRef<int64_t>(shape) != type->getShape())
      return fail("'" + path + "' has shape " + formatShape(shape) +
                  " but %arg" + llvm::Twine(*index) + " has shape " +
                  formatShape(type->getShape()));
    if (bf16 && file.m_typestring == "<f4") {
      // f32 values: rounded to bf16, each inexact one counted.
      uint64_t n = file.n_bytes() / 4;
      input.bytes.resize(2 * n);
      for (uint64_t i = 0; i < n; ++i) {
        float f;
        std::memcpy(&f, file.ptr() + 4 * i, 4);
        uint16_t h = f32ToBf16(f);
        float back = bf16ToF32(h);
        if (std::memcmp(&back, &f, 4) != 0 && !(f != f))
          ++input.roundedValues;
        std::memcpy(input.bytes.data() + 2 * i, &h, 2);
      }
    } else {
      input.bytes.assign(file.ptr(), file.ptr() + file.n_bytes());
    }
  } catch (const std::exception &e) {
    return fail("'" + path + "' is not a NumPy .npy file: " + e.what());
  }
  return input;
}

llvm::Error accel::writeHbmOutputs(llvm::StringRef dir, func::FuncOp entry,
                                   const RunResult &r) {
  if (auto ec = llvm::sys::fs::create_directories(dir))
    return llvm::createStringError("cannot create directory '%s': %s",
                                   dir.str().c_str(), ec.message().c_str());
  size_t next = 0;
  for (const isa::Buffer &b : r.program.buffers) {
    if (b.space != isa::MemSpace::HBM)
      continue;
    if (next >= r.hbmBuffers.size())
      return llvm::createStringError("the run kept no HBM contents");
    const std::vector<uint8_t> &bytes = r.hbmBuffers[next++];
    llvm::StringRef digits = llvm::StringRef(b.name).drop_front(4); // "%arg"
    unsigned index;
    if (digits.getAsInteger(10, index) || index >= entry.getNumArguments())
      continue;
    auto type = cast<MemRefType>(entry.getArgument(index).getType());
    std::vector<size_t> shape(type.getShape().begin(), type.getShape().end());
    std::string text;
    if (type.getElementType().isInteger(32)) {
      std::vector<int32_t> values(bytes.size() / 4);
      std::memcpy(values.data(), bytes.data(), values.size() * 4);
      text = xt::dump_npy(xt::adapt(values, shape));
    } else if (type.getElementType().isBF16()) {
      std::vector<float> values(bytes.size() / 2);
      widenBf16(bytes.data(), values.data(), values.size());
      text = xt::dump_npy(xt::adapt(values, shape));
    } else {
      std::vector<float> values(bytes.size() / 4);
      std::memcpy(values.data(), bytes.data(), values.size() * 4);
      text = xt::dump_npy(xt::adapt(values, shape));
    }
    llvm::SmallString<256> path(dir);
    llvm::sys::path::append(path, "arg" + std::to_string(index) + ".npy");
    if (auto e = writeOutput(path, text))
      return e;
  }
  return llvm::Error::success();
}
