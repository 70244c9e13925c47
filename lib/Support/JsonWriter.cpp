//===- JsonWriter.cpp - JSON written straight to a stream -----------------===//

#include "accel/Support/JsonWriter.h"

#include "accel/Support/Json.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/bit.h"

#include <nlohmann/json.hpp>

#include <array>
#include <cassert>
#include <charconv>
#include <cmath>
#include <cstring>

using namespace accel;

void JsonWriter::beforeValue() {
  if (stack.empty())
    return;
  Level &l = stack.back();
  if (l.isObject) {
    assert(l.afterKey && "a value in an object needs its key first");
    l.afterKey = false;
    return;
  }
  if (!l.empty)
    os << ',';
  l.empty = false;
  newLine(stack.size());
}

void JsonWriter::newLine(size_t depth) {
  if (indent < 0)
    return;
  os << '\n';
  os.indent(unsigned(depth * unsigned(indent)));
}

JsonWriter &JsonWriter::beginObject() {
  beforeValue();
  os << '{';
  stack.push_back(Level{true});
  return *this;
}

JsonWriter &JsonWriter::endObject() {
  assert(!stack.empty() && stack.back().isObject && !stack.back().afterKey &&
         "endObject without its object");
  bool empty = stack.back().empty;
  stack.pop_back();
  if (!empty)
    newLine(stack.size());
  os << '}';
  return *this;
}

JsonWriter &JsonWriter::beginArray() {
  beforeValue();
  os << '[';
  stack.push_back(Level{false});
  return *this;
}

JsonWriter &JsonWriter::endArray() {
  assert(!stack.empty() && !stack.back().isObject && "endArray without array");
  bool empty = stack.back().empty;
  stack.pop_back();
  if (!empty)
    newLine(stack.size());
  os << ']';
  return *this;
}

JsonWriter &JsonWriter::key(llvm::StringRef k) {
  assert(!stack.empty() && stack.back().isObject && !stack.back().afterKey &&
         "a key outside an object");
  Level &l = stack.back();
#ifndef NDEBUG
  assert((l.empty || l.lastKey < k) &&
         "keys out of nlohmann::json's (sorted) order");
  l.lastKey = k.str();
#endif
  if (!l.empty)
    os << ',';
  l.empty = false;
  newLine(stack.size());
  if (needsEscape(k)) {
    value(k); // as a string; value() sees afterKey false: no comma
    os << ':';
  } else {
    os << '"' << k << "\":";
  }
  if (indent >= 0)
    os << ' ';
  l.afterKey = true;
  return *this;
}

bool JsonWriter::needsEscape(llvm::StringRef s) {
  // Control characters, '"', '\\' and every non-ASCII byte (dumpJson
  // checks and replaces invalid UTF-8).
  static const auto table = [] {
    std::array<bool, 256> t{};
    for (unsigned c = 0; c < 256; ++c)
      t[c] = c < 0x20 || c == '"' || c == '\\' || c >= 0x80;
    return t;
  }();
  for (unsigned char c : s)
    if (table[c])
      return true;
  return false;
}

JsonWriter &JsonWriter::value(llvm::StringRef s) {
  // A key is written through here too, before afterKey is set: its comma
  // was written by key().
  if (!stack.empty() && (!stack.back().isObject || stack.back().afterKey))
    beforeValue();
  if (!needsEscape(s)) {
    os << '"' << s << '"';
  } else {
    llvm::SmallString<64> text;
    appendString(s, text);
    os << text;
  }
  return *this;
}

void JsonWriter::appendString(llvm::StringRef s,
                              llvm::SmallVectorImpl<char> &out) {
  if (!needsEscape(s)) {
    out.push_back('"');
    out.append(s.begin(), s.end());
    out.push_back('"');
    return;
  }
  std::string text = dumpJson(nlohmann::json(s.str()));
  out.append(text.begin(), text.end());
}

void JsonWriter::appendDouble(double d, llvm::SmallVectorImpl<char> &out) {
  if (!std::isfinite(d)) {
    out.append({'n', 'u', 'l', 'l'});
    return;
  }
  std::array<char, 64> buffer;
  char *end = nlohmann::detail::to_chars(buffer.data(),
                                         buffer.data() + buffer.size(), d);
  out.append(buffer.data(), end);
}

void DoubleTextCache::append(double d, llvm::SmallVectorImpl<char> &out) {
  uint64_t bits = llvm::bit_cast<uint64_t>(d);
  Slot &s = slots[(bits * 0x9e3779b97f4a7c15ULL) >> (64 - kSlotBits)];
  if (!s.size || s.bits != bits) {
    llvm::SmallString<32> text;
    JsonWriter::appendDouble(d, text);
    if (text.size() > sizeof(s.text)) { // not for any double: kept safe
      out.append(text.begin(), text.end());
      return;
    }
    std::memcpy(s.text, text.data(), text.size());
    s.size = uint8_t(text.size());
    s.bits = bits;
  }
  out.append(s.text, s.text + s.size);
}

JsonWriter &JsonWriter::value(double d) {
  beforeValue();
  llvm::SmallString<32> text;
  appendDouble(d, text);
  os << text;
  return *this;
}

/// `v` in decimal, as raw_ostream's operator<< writes it, through
/// std::to_chars: raw_ostream's write_integer is about 140 host
/// instructions a number, and metrics.json's VMEM heatmap alone has 25,600
/// (15% of a small run's instructions went to writing them).
template <typename Int> static void writeInteger(llvm::raw_ostream &os, Int v) {
  char text[24]; // 20 digits and a sign at most
  std::to_chars_result r = std::to_chars(text, text + sizeof(text), v);
  os.write(text, size_t(r.ptr - text));
}

JsonWriter &JsonWriter::value(uint64_t v) {
  beforeValue();
  writeInteger(os, v);
  return *this;
}

JsonWriter &JsonWriter::value(int64_t v) {
  beforeValue();
  writeInteger(os, v);
  return *this;
}

JsonWriter &JsonWriter::value(bool b) {
  beforeValue();
  os << (b ? "true" : "false");
  return *this;
}

JsonWriter &JsonWriter::rawValue(llvm::StringRef json) {
  beforeValue();
  os << json;
  return *this;
}

JsonWriter &JsonWriter::value(const nlohmann::json &j) {
  beforeValue();
  // Indented as the members around it: nested lines start `stack.size()`
  // levels in.
  dumpJson(j, os, indent, indent < 0 ? 0 : unsigned(stack.size() * indent));
  return *this;
}
