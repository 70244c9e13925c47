//===- NpyIO.cpp - HBM arguments from and to NumPy .npy files -------------===//

#include "accel/Fdo/NpyIO.h"
#include "accel/Support/BFloat16.h"
#include "accel/Support/Input.h"
#include "accel/Support/Output.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <xtensor/xadapt.hpp>
#include <xtensor/xnpy.hpp>

#include "llvm/Support/MemoryBuffer.h"

#include <cstring>
#include <map>
#include <optional>

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

/// The dtypes a bf16 argument reads: bit patterns, or f32 to round.
bool isBf16Bits(llvm::StringRef dtype) {
  return dtype == "<u2" || dtype == "<V2" || dtype == "|V2";
}

template <typename T> std::string formatShape(llvm::ArrayRef<T> shape) {
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

//===----------------------------------------------------------------------===//
// Reading: the header parsed and checked before anything is allocated
//===----------------------------------------------------------------------===//

namespace {
/// The NumPy header dict, a Python literal, read by a recursive-descent-free
/// scanner over `text` (the header's bytes, at file offset `base`). The first
/// problem sticks in `err` with its file offset.
class NpyHeaderParser {
public:
  NpyHeaderParser(llvm::StringRef text, size_t base) : text(text), base(base) {}

  llvm::Error parse(NpyHeader &h) {
    skipSpace();
    expect('{', "the header dict");
    bool seen[3] = {false, false, false};
    skipSpace();
    while (ok() && !peek('}')) {
      size_t keyAt = pos;
      std::string key = string("a key");
      skipSpace();
      expect(':', "':' after the key");
      skipSpace();
      int index = key == "descr"           ? 0
                  : key == "fortran_order" ? 1
                  : key == "shape"         ? 2
                                           : -1;
      if (ok() && index < 0)
        failAt(keyAt, "unknown key '" + key +
                          "' (the keys are 'descr', 'fortran_order' and "
                          "'shape')");
      if (ok() && seen[index])
        failAt(keyAt, "the key '" + key + "' appears twice");
      if (!ok())
        break;
      seen[index] = true;
      if (index == 0) {
        if (peek('['))
          fail("'descr' is a structured dtype; save a plain array");
        h.descr = string("the 'descr' string");
      } else if (index == 1) {
        h.fortranOrder = boolean();
      } else {
        shape(h.shape);
      }
      skipSpace();
      if (!peek(','))
        break;
      ++pos;
      skipSpace();
    }
    expect('}', "',' or '}' in the header dict");
    skipSpace();
    if (ok() && pos < text.size())
      fail("bytes after the header dict (only spaces and a newline may "
           "follow it)");
    for (int i = 0; i < 3 && ok(); ++i)
      if (!seen[i])
        failAt(pos, std::string("no '") +
                        (i == 0   ? "descr"
                         : i == 1 ? "fortran_order"
                                  : "shape") +
                        "' key in the header dict");
    if (!ok())
      return llvm::createStringError(err);
    return llvm::Error::success();
  }

private:
  llvm::StringRef text;
  size_t base;
  size_t pos = 0;
  std::string err;

  bool ok() const { return err.empty(); }
  void failAt(size_t at, const std::string &what) {
    if (err.empty())
      err = "header byte " + std::to_string(base + at) + ": " + what;
  }
  void fail(const std::string &what) { failAt(pos, what); }
  bool peek(char c) const { return pos < text.size() && text[pos] == c; }
  void skipSpace() {
    while (pos < text.size() &&
           llvm::StringRef(" \t\n\r\f\v").contains(text[pos]))
      ++pos;
  }
  void expect(char c, const char *what) {
    if (!ok())
      return;
    if (!peek(c))
      return fail(std::string("expected ") + what);
    ++pos;
  }
  /// A quoted string without escapes: 'text' or "text".
  std::string string(const char *what) {
    if (!ok())
      return {};
    if (!peek('\'') && !peek('"')) {
      fail(std::string("expected ") + what + " (a quoted string)");
      return {};
    }
    char quote = text[pos++];
    size_t end = text.find(quote, pos);
    size_t escape = text.find('\\', pos);
    if (end == llvm::StringRef::npos) {
      fail("a string is not closed");
      return {};
    }
    if (escape < end) {
      failAt(escape, "an escape in a string (not a NumPy header)");
      return {};
    }
    std::string value = text.slice(pos, end).str();
    pos = end + 1;
    return value;
  }
  bool boolean() {
    if (!ok())
      return false;
    if (text.substr(pos).starts_with("True")) {
      pos += 4;
      return true;
    }
    if (text.substr(pos).starts_with("False")) {
      pos += 5;
      return false;
    }
    fail("'fortran_order' must be True or False");
    return false;
  }
  /// A tuple of non-negative integers: (), (N,), (N, M), ...
  void shape(std::vector<uint64_t> &dims) {
    if (!ok())
      return;
    if (!peek('('))
      return fail("'shape' must be a tuple of non-negative integers");
    ++pos;
    skipSpace();
    bool comma = false; // a comma followed the last dimension
    while (ok() && !peek(')')) {
      if (!dims.empty() && !comma)
        return fail("expected ',' or ')' in 'shape'");
      if (pos >= text.size() || !llvm::isDigit(text[pos]))
        return fail("'shape' must be a tuple of non-negative integers");
      size_t start = pos;
      while (pos < text.size() && llvm::isDigit(text[pos]))
        ++pos;
      uint64_t d;
      if (text.slice(start, pos).getAsInteger(10, d))
        return failAt(start, "a dimension of 'shape' passes 2^64");
      if (peek('L')) // Python 2's long integers
        ++pos;
      if (pos < text.size() &&
          !llvm::StringRef(" \t\n\r\f\v,)").contains(text[pos]))
        return fail("'shape' must be a tuple of non-negative integers");
      if (dims.size() == kMaxNpyRank)
        return failAt(start, "'shape' has more than " +
                                 std::to_string(kMaxNpyRank) + " dimensions");
      dims.push_back(d);
      skipSpace();
      comma = peek(',');
      if (comma) {
        ++pos;
        skipSpace();
      }
    }
    // Python: (5) is 5, not a tuple.
    if (ok() && dims.size() == 1 && !comma)
      return fail("'shape' (N) is not a tuple; a 1-D shape is (N,)");
    expect(')', "')' after 'shape'");
  }
};
} // namespace

llvm::Expected<NpyHeader> accel::parseNpyHeader(llvm::StringRef bytes) {
  auto notNpy = [](const llvm::Twine &why) {
    return llvm::createStringError("is not a NumPy .npy file: " + why);
  };
  static constexpr char kMagic[] = "\x93NUMPY";
  if (bytes.size() < 8 || !bytes.starts_with(llvm::StringRef(kMagic, 6)))
    return notNpy("no \\x93NUMPY magic at byte 0");
  NpyHeader h;
  h.major = uint8_t(bytes[6]);
  unsigned minor = uint8_t(bytes[7]);
  if (h.major < 1 || h.major > 3 || minor != 0)
    return notNpy("format version " + llvm::Twine(h.major) + "." +
                  llvm::Twine(minor) +
                  " at byte 6 (this build reads 1.0, 2.0 and 3.0)");
  size_t lengthBytes = h.major == 1 ? 2 : 4;
  if (bytes.size() < 8 + lengthBytes)
    return notNpy("the file ends inside the header length at byte 8");
  uint64_t length = 0;
  for (size_t i = 0; i < lengthBytes; ++i)
    length |= uint64_t(uint8_t(bytes[8 + i])) << (8 * i);
  uint64_t start = 8 + lengthBytes;
  if (length > bytes.size() - start)
    return notNpy("the header length " + llvm::Twine(length) +
                  " at byte 8 passes the end of the file (" +
                  llvm::Twine(bytes.size()) + " bytes)");
  h.dataOffset = start + length;
  NpyHeaderParser parser(bytes.substr(start, length), start);
  if (llvm::Error e = parser.parse(h))
    return notNpy(llvm::toString(std::move(e)));
  h.elements = 1;
  for (uint64_t d : h.shape) {
    std::optional<uint64_t> n = llvm::checkedMulUnsigned(h.elements, d);
    if (!n)
      return notNpy("'shape' " +
                    formatShape(llvm::ArrayRef<uint64_t>(h.shape)) +
                    " has more than 2^64 elements");
    h.elements = *n;
  }
  return h;
}

llvm::Expected<HbmInput> accel::readNpyInput(llvm::StringRef bytes,
                                             llvm::StringRef path,
                                             unsigned argIndex,
                                             NpyElement element,
                                             llvm::ArrayRef<int64_t> argShape) {
  std::string file = "'" + path.str() + "'";
  auto fail = [&](const llvm::Twine &why) -> llvm::Error {
    return llvm::createStringError(file + " " + why);
  };
  auto header = parseNpyHeader(bytes);
  if (!header)
    return fail(llvm::toString(header.takeError()));
  const std::string &dtype = header->descr;
  std::string arg = "%arg" + std::to_string(argIndex);
  bool bf16 = element == NpyElement::BF16;
  bool bf16Bits = bf16 && isBf16Bits(dtype);
  if (bf16 && !bf16Bits && dtype != "<f4")
    return fail("holds dtype '" + dtype + "' but " + arg +
                " has bf16 elements: save them as '<f4' (rounded to "
                "nearest even), as '<u2' bit patterns (a.view(np.uint16)) "
                "or as ml_dtypes.bfloat16");
  std::string want = element == NpyElement::I32 ? "<i4" : "<f4";
  if (!bf16 && dtype != want)
    return fail("holds dtype '" + dtype + "' but " + arg + " has '" + want +
                "' elements (convert with numpy's astype)");
  if (header->fortranOrder && header->shape.size() > 1)
    return fail("is in Fortran (column-major) order; save a C-order array "
                "(numpy.ascontiguousarray)");
  bool sameShape = header->shape.size() == argShape.size();
  for (size_t i = 0; sameShape && i < argShape.size(); ++i)
    sameShape = argShape[i] >= 0 && header->shape[i] == uint64_t(argShape[i]);
  if (!sameShape)
    return fail("has shape " +
                formatShape(llvm::ArrayRef<uint64_t>(header->shape)) + " but " +
                arg + " has shape " + formatShape(argShape));
  uint64_t itemBytes = bf16Bits ? 2 : 4;
  std::optional<uint64_t> dataBytes =
      llvm::checkedMulUnsigned(header->elements, itemBytes);
  if (!dataBytes)
    return fail("has " + llvm::Twine(header->elements) +
                " elements, more than 2^64 bytes");
  uint64_t left = bytes.size() - header->dataOffset;
  if (*dataBytes > left)
    return fail("is truncated (its header promises " + llvm::Twine(*dataBytes) +
                " bytes of data)");
  if (*dataBytes < left)
    return fail("has bytes after its data");

  // Checked: the data is there and is the argument's. Now copy it.
  HbmInput input;
  input.argIndex = argIndex;
  input.source = file;
  const char *data = bytes.data() + header->dataOffset;
  if (bf16 && !bf16Bits) {
    // f32 values: rounded to bf16, each inexact one counted.
    uint64_t n = header->elements;
    input.bytes.resize(2 * n);
    for (uint64_t i = 0; i < n; ++i) {
      float f;
      std::memcpy(&f, data + 4 * i, 4);
      uint16_t h = f32ToBf16(f);
      float back = bf16ToF32(h);
      if (std::memcmp(&back, &f, 4) != 0 && !(f != f))
        ++input.roundedValues;
      std::memcpy(input.bytes.data() + 2 * i, &h, 2);
    }
  } else {
    input.bytes.assign(data, data + *dataBytes);
  }
  return input;
}

/// The shape the program declares for HBM argument `index` of `entry`
/// (memref type `type`): () for the arguments the frontend's
/// accel-expand-rank0 made one element (the function's `accel.rank0`),
/// else the memref's shape.
static llvm::SmallVector<int64_t>
getDeclaredShape(func::FuncOp entry, unsigned index, MemRefType type) {
  if (auto rank0 = entry->getAttrOfType<DenseI64ArrayAttr>("accel.rank0"))
    if (llvm::is_contained(rank0.asArrayRef(), int64_t(index)) &&
        type.getNumElements() == 1)
      return {};
  return llvm::to_vector(type.getShape());
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
  NpyElement element = type->getElementType().isInteger(32) ? NpyElement::I32
                       : type->getElementType().isBF16()    ? NpyElement::BF16
                                                            : NpyElement::F32;

  // Bounded: /dev/zero or a never-ending pipe is an error, not a hang.
  auto file = readInputFile(path, InputKind::Npy);
  if (!file)
    return fail("cannot open '" + path +
                "': " + llvm::toString(file.takeError()));
  auto input = readNpyInput((*file)->getBuffer(), path, *index, element,
                            getDeclaredShape(entry, *index, *type));
  if (!input)
    return fail(llvm::toString(input.takeError()));
  input->source = ("--input '" + spec + "'").str();
  return input;
}

llvm::Expected<std::vector<std::string>>
accel::getShapeBindings(llvm::ArrayRef<std::string> inputSpecs,
                        llvm::ArrayRef<std::string> bindSpecs) {
  std::vector<std::string> out;
  std::map<unsigned, std::string> from; // argument -> the spec that gave it
  auto add = [&](llvm::StringRef option, llvm::StringRef spec,
                 llvm::StringRef name,
                 const std::string &shape) -> llvm::Error {
    llvm::StringRef digits = name;
    digits.consume_front("%");
    digits.consume_front("arg");
    unsigned index;
    if (digits.empty() || digits.getAsInteger(10, index))
      return llvm::createStringError(
          "%s '%s': '%s' names no argument (name one by position N, argN or "
          "%%argN)",
          option.str().c_str(), spec.str().c_str(), name.str().c_str());
    std::string self = (option + " '" + spec + "'").str();
    auto [it, inserted] = from.try_emplace(index, self);
    if (!inserted)
      return llvm::createStringError(
          "%s and %s both give the shape of argument %u: give it once",
          it->second.c_str(), self.c_str(), index);
    out.push_back(std::to_string(index) + "=" + shape);
    return llvm::Error::success();
  };
  // An --input that names no argument, cannot be read or has a bad
  // header gives no shape: loadHbmInput names its problem with the
  // program's arguments once the program is there (and two --input for one
  // argument there, too).
  for (const std::string &spec : inputSpecs) {
    auto [name, path] = llvm::StringRef(spec).split('=');
    llvm::StringRef digits = name;
    digits.consume_front("%");
    digits.consume_front("arg");
    unsigned index;
    if (name.empty() || path.empty() || digits.getAsInteger(10, index) ||
        from.count(index))
      continue;
    auto file = readInputFile(path, InputKind::Npy);
    if (!file) {
      llvm::consumeError(file.takeError());
      continue;
    }
    auto header = parseNpyHeader((*file)->getBuffer());
    if (!header) {
      llvm::consumeError(header.takeError());
      continue;
    }
    std::string shape =
        header->shape.empty()
            ? std::string("()")
            : llvm::join(
                  llvm::map_range(header->shape,
                                  [](uint64_t d) { return std::to_string(d); }),
                  "x");
    if (auto e = add("--input", spec, name, shape))
      return std::move(e);
  }
  for (const std::string &spec : bindSpecs) {
    auto [name, shape] = llvm::StringRef(spec).split('=');
    bool ok = !name.empty() && !shape.empty();
    if (ok && shape != "()") {
      llvm::SmallVector<llvm::StringRef> dims;
      shape.split(dims, 'x');
      for (llvm::StringRef d : dims) {
        uint64_t v;
        ok &= !d.getAsInteger(10, v) && v <= uint64_t(INT64_MAX);
      }
    }
    if (!ok)
      return llvm::createStringError(
          "--bind '%s': expected NAME=D0xD1x... (an argument and its whole "
          "shape, e.g. 0=16x128, or 0=() for rank 0)",
          spec.c_str());
    if (auto e = add("--bind", spec, name, shape.str()))
      return std::move(e);
  }
  return out;
}

/// writeHbmOutputs for one chip's buffers.
static llvm::Error
writeBuffers(llvm::StringRef dir, func::FuncOp entry, const RunResult &r,
             const std::vector<std::vector<uint8_t>> &buffers,
             StagedFiles *staged) {
  size_t next = 0;
  for (const isa::Buffer &b : r.program.buffers) {
    if (b.space != isa::MemSpace::HBM)
      continue;
    if (next >= buffers.size())
      return llvm::createStringError("the run kept no HBM contents");
    const std::vector<uint8_t> &bytes = buffers[next++];
    llvm::StringRef digits = llvm::StringRef(b.name).drop_front(4); // "%arg"
    unsigned index;
    if (digits.getAsInteger(10, index) || index >= entry.getNumArguments())
      continue;
    auto type = cast<MemRefType>(entry.getArgument(index).getType());
    llvm::SmallVector<int64_t> declared = getDeclaredShape(entry, index, type);
    std::vector<size_t> shape(declared.begin(), declared.end());
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
    if (auto e = staged ? staged->add(path, text) : writeOutput(path, text))
      return e;
  }
  return llvm::Error::success();
}

llvm::Error accel::writeHbmOutputs(llvm::StringRef dir, func::FuncOp entry,
                                   const RunResult &r, StagedFiles *staged) {
  // Staged: StagedFiles::add creates the directory (and removes it again if
  // the command fails).
  if (!staged)
    if (auto ec = llvm::sys::fs::create_directories(dir))
      return llvm::createStringError("cannot create directory '%s': %s",
                                     dir.str().c_str(), ec.message().c_str());
  if (auto e = writeBuffers(dir, entry, r, r.hbmBuffers, staged))
    return e;
  // The other chips of a system, each in its own directory.
  for (size_t c = 0; c < r.chipHbmBuffers.size(); ++c) {
    llvm::SmallString<256> chipDir(dir);
    llvm::sys::path::append(chipDir, "chip" + std::to_string(c + 1));
    if (!staged)
      if (auto ec = llvm::sys::fs::create_directories(chipDir))
        return llvm::createStringError("cannot create directory '%s': %s",
                                       chipDir.c_str(), ec.message().c_str());
    if (auto e = writeBuffers(chipDir, entry, r, r.chipHbmBuffers[c], staged))
      return e;
  }
  return llvm::Error::success();
}
