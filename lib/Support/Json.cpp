//===- Json.cpp - JSON read without exceptions ----------------------------===//

#include "accel/Support/Json.h"
#include "accel/Support/Input.h"
#include "accel/Support/Nesting.h"
#include "accel/Support/Output.h"

#include <cmath>

using namespace accel;
using json = nlohmann::json;

namespace {
/// nlohmann's DOM builder with the parse error kept instead of thrown, so
/// that errors the parser reports without a byte offset in their exception
/// (number overflow, out_of_range.406) still get the lexer's position.
class Sax : public nlohmann::detail::json_sax_dom_parser<json> {
public:
  explicit Sax(json &root)
      : json_sax_dom_parser(root, /*allow_exceptions=*/false) {}
  template <class Exception>
  bool parse_error(std::size_t position, const std::string &token,
                   const Exception &ex) {
    if (!failed) {
      failed = true;
      // A syntax error names its offending character (the last one read);
      // a number overflow (406) the start of the number.
      byte = ex.id == 406 && position >= token.size() ? position - token.size()
             : position                               ? position - 1
                                                      : 0;
      std::string what = ex.what();
      size_t at = what.find("] ");
      message = what.substr(at == std::string::npos ? 0 : at + 2);
    }
    return false;
  }
  bool failed = false;
  size_t byte = 0;
  std::string message;
};

} // namespace

llvm::Expected<json> accel::parseJson(llvm::StringRef text,
                                      llvm::StringRef source,
                                      unsigned maxDepth) {
  // nlohmann's lexer ends the input at a NUL byte: what follows one would be
  // ignored, not read.
  size_t nul = findNulByte(text);
  if (nul != llvm::StringRef::npos)
    return llvm::createStringError("%s: %s", source.str().c_str(),
                                   describeNulByte(text, nul).c_str());
  size_t deep = findTooDeep(text, maxDepth, "[{", "]}", /*lineComments=*/false);
  if (deep != llvm::StringRef::npos)
    return llvm::createStringError(
        "%s: byte %zu: nesting deeper than %u arrays and objects",
        source.str().c_str(), deep, maxDepth);
  json doc;
  Sax sax(doc);
  try {
    json::sax_parse(text.begin(), text.end(), &sax);
  } catch (const json::exception &e) {
    // Not expected (the SAX handler keeps errors), but never let one out.
    return llvm::createStringError("%s: %s", source.str().c_str(), e.what());
  }
  if (sax.failed)
    return llvm::createStringError("%s: byte %zu: %s", source.str().c_str(),
                                   sax.byte, sax.message.c_str());
  return doc;
}

std::string accel::dumpJson(const json &value, int indent) {
  return value.dump(indent, ' ', /*ensure_ascii=*/false,
                    json::error_handler_t::replace);
}

namespace {
/// nlohmann's output adapter interface over an llvm::raw_ostream.
class RawOstreamAdapter
    : public nlohmann::detail::output_adapter_protocol<char> {
public:
  explicit RawOstreamAdapter(llvm::raw_ostream &os) : os(os) {}
  void write_character(char c) override { os << c; }
  void write_characters(const char *s, std::size_t length) override {
    os.write(s, length);
  }

private:
  llvm::raw_ostream &os;
};
} // namespace

llvm::Error accel::writeJsonFile(llvm::StringRef path, const json &value) {
  return writeOutput(path, [&](llvm::raw_ostream &os) {
    dumpJson(value, os, 2);
    os << "\n";
    return llvm::Error::success();
  });
}

void accel::dumpJson(const json &value, llvm::raw_ostream &os, int indent,
                     unsigned currentIndent) {
  // What basic_json::dump does, with this adapter instead of a string's.
  nlohmann::detail::serializer<json> s(std::make_shared<RawOstreamAdapter>(os),
                                       ' ', json::error_handler_t::replace);
  if (indent >= 0)
    s.dump(value, /*pretty_print=*/true, /*ensure_ascii=*/false,
           static_cast<unsigned>(indent), currentIndent);
  else
    s.dump(value, false, false, 0);
}

void JsonReader::fail(const std::string &field, const std::string &what) {
  if (error.empty())
    error = source + ": field '" + field + "': " + what;
}

const json *JsonReader::get(const json &obj, const std::string &key,
                            const std::string &path) {
  const json *v = find(obj, key);
  if (!v)
    fail(path + key, "missing");
  return v;
}

const json *JsonReader::find(const json &obj, const std::string &key) {
  if (!obj.is_object())
    return nullptr;
  auto it = obj.find(key);
  return it == obj.end() ? nullptr : &*it;
}

uint64_t JsonReader::u64(const json &obj, const std::string &key,
                         const std::string &path, uint64_t min, uint64_t max) {
  const json *v = get(obj, key, path);
  if (!v || !ok())
    return 0;
  if (!v->is_number_unsigned() &&
      !(v->is_number_integer() && v->get<int64_t>() >= 0)) {
    fail(path + key, "must be a non-negative integer");
    return 0;
  }
  uint64_t x = v->get<uint64_t>();
  if (x < min) {
    fail(path + key, "must be >= " + std::to_string(min));
    return 0;
  }
  if (x > max) {
    fail(path + key, "must be <= " + std::to_string(max));
    return 0;
  }
  return x;
}

unsigned JsonReader::u32(const json &obj, const std::string &key,
                         const std::string &path, uint64_t min, uint64_t max) {
  return unsigned(
      u64(obj, key, path, min, std::min<uint64_t>(max, UINT32_MAX)));
}

int64_t JsonReader::i64(const json &obj, const std::string &key,
                        const std::string &path, int64_t min, int64_t max) {
  const json *v = get(obj, key, path);
  if (!v || !ok())
    return 0;
  if (!v->is_number_integer() ||
      (v->is_number_unsigned() && v->get<uint64_t>() > uint64_t(INT64_MAX))) {
    fail(path + key, "must be an integer");
    return 0;
  }
  int64_t x = v->get<int64_t>();
  if (x < min || x > max) {
    fail(path + key, "must be in [" + std::to_string(min) + ", " +
                         std::to_string(max) + "]");
    return 0;
  }
  return x;
}

double JsonReader::number(const json &obj, const std::string &key,
                          const std::string &path, double min, double max,
                          bool minExclusive) {
  const json *v = get(obj, key, path);
  if (!v || !ok())
    return 0;
  if (!v->is_number()) {
    fail(path + key, "must be a number");
    return 0;
  }
  double x = v->get<double>();
  auto str = [](double d) {
    std::string s = std::to_string(d);
    // "1024.000000" -> "1024", "0.001000" -> "0.001".
    if (s.find('.') != std::string::npos) {
      s.erase(s.find_last_not_of('0') + 1);
      if (s.back() == '.')
        s.pop_back();
    }
    return s;
  };
  if (!std::isfinite(x) || (minExclusive ? !(x > min) : !(x >= min))) {
    fail(path + key,
         std::string("must be ") + (minExclusive ? "> " : ">= ") + str(min));
    return 0;
  }
  if (!(x <= max)) {
    fail(path + key, "must be <= " + str(max));
    return 0;
  }
  return x;
}

std::string JsonReader::string(const json &obj, const std::string &key,
                               const std::string &path) {
  const json *v = get(obj, key, path);
  if (!v || !ok())
    return {};
  if (!v->is_string()) {
    fail(path + key, "must be a string");
    return {};
  }
  return v->get<std::string>();
}

bool JsonReader::boolean(const json &obj, const std::string &key,
                         const std::string &path) {
  const json *v = get(obj, key, path);
  if (!v || !ok())
    return false;
  if (!v->is_boolean()) {
    fail(path + key, "must be true or false");
    return false;
  }
  return v->get<bool>();
}

const json *JsonReader::object(const json &obj, const std::string &key,
                               const std::string &path,
                               std::initializer_list<const char *> allowed) {
  const json *v = get(obj, key, path);
  if (!v || !ok())
    return nullptr;
  if (!v->is_object()) {
    fail(path + key, "must be an object");
    return nullptr;
  }
  if (allowed.size())
    onlyKeys(*v, path + key + ".", allowed);
  return v;
}

const json *JsonReader::array(const json &obj, const std::string &key,
                              const std::string &path) {
  const json *v = get(obj, key, path);
  if (!v || !ok())
    return nullptr;
  if (!v->is_array()) {
    fail(path + key, "must be an array");
    return nullptr;
  }
  return v;
}

void JsonReader::onlyKeys(const json &obj, const std::string &path,
                          std::initializer_list<const char *> allowed) {
  if (!obj.is_object())
    return;
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    bool known = false;
    for (const char *k : allowed)
      known |= it.key() == k;
    if (!known)
      fail(path + it.key(), "unknown field");
  }
}

std::optional<int64_t> accel::getInt64(const json &obj, const char *key) {
  const json *v = JsonReader::find(obj, key);
  if (!v || !v->is_number_integer())
    return std::nullopt;
  if (v->is_number_unsigned() && v->get<uint64_t>() > uint64_t(INT64_MAX))
    return std::nullopt;
  return v->get<int64_t>();
}

std::optional<std::string> accel::getString(const json &obj, const char *key) {
  const json *v = JsonReader::find(obj, key);
  if (!v || !v->is_string())
    return std::nullopt;
  return v->get<std::string>();
}
