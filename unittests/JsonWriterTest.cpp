//===- JsonWriterTest.cpp - JsonWriter writes what dumpJson writes --------===//
//
// JsonWriter replaces JSON trees in large outputs without changing a byte
// (issue 34): every value here is written both ways and compared.
//
//===----------------------------------------------------------------------===//

#include "accel/Support/JsonWriter.h"
#include "accel/Support/Json.h"

#include "gtest/gtest.h"

#include "llvm/ADT/SmallString.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

using namespace accel;
using json = nlohmann::json;

namespace {

template <typename Fn> std::string written(Fn fn, int indent = -1) {
  std::string out;
  llvm::raw_string_ostream os(out);
  JsonWriter w(os, indent);
  fn(w);
  EXPECT_TRUE(w.isComplete());
  return out;
}

TEST(JsonWriterTest, DoublesAsDumpWritesThem) {
  std::vector<double> values = {0.0,
                                -0.0,
                                1.0,
                                -1.5,
                                0.1,
                                1e-5,
                                1e-4,
                                123456789012345678.0,
                                1e15,
                                1e16,
                                1e21,
                                1e22,
                                5e-324,
                                std::numeric_limits<double>::max(),
                                std::numeric_limits<double>::min(),
                                0.008571428571428572,
                                1.0 / 3.0,
                                2.0 / 3.0 * 1e-7};
  std::mt19937_64 rng(34);
  for (int i = 0; i < 20000; ++i) {
    uint64_t bits = rng();
    double d;
    std::memcpy(&d, &bits, 8);
    if (std::isfinite(d))
      values.push_back(d);
    // Timestamps as the timeline computes them: cycles / (GHz * 1000).
    values.push_back(double(rng() % 100000000) * (1.0 / (0.94 * 1000.0)));
  }
  llvm::SmallString<32> text;
  for (double d : values) {
    EXPECT_EQ(written([&](JsonWriter &w) { w.value(d); }), dumpJson(json(d)))
        << d;
    // appendDouble appends the same text (after what is there).
    text = "x";
    JsonWriter::appendDouble(d, text);
    EXPECT_EQ(std::string(text), "x" + dumpJson(json(d))) << d;
  }
  // Not finite: null, as dump() writes them.
  for (double d : {std::nan(""), std::numeric_limits<double>::infinity(),
                   -std::numeric_limits<double>::infinity()}) {
    EXPECT_EQ(written([&](JsonWriter &w) { w.value(d); }), "null");
    text.clear();
    JsonWriter::appendDouble(d, text);
    EXPECT_EQ(std::string(text), "null");
  }
}

// The cache appends what appendDouble appends, for values that repeat
// (hits), that share a slot (the same slot, other bits: 0.0 and -0.0, NaNs
// of different payloads), and that are not finite.
TEST(JsonWriterTest, DoubleTextCacheAsAppendDouble) {
  std::vector<double> values = {0.0,
                                -0.0,
                                1.0,
                                0.0,
                                -0.0,
                                std::nan(""),
                                -std::nan(""),
                                std::numeric_limits<double>::infinity(),
                                -std::numeric_limits<double>::max(),
                                5e-324};
  std::mt19937_64 rng(3434);
  for (int i = 0; i < 20000; ++i) {
    // A few durations, repeated (the timeline's case), and fresh values
    // that push them out of their slots.
    values.push_back(double(rng() % 40 + 1) * (1.0 / 1050.0));
    uint64_t bits = rng();
    double d;
    std::memcpy(&d, &bits, 8);
    values.push_back(d);
  }
  DoubleTextCache cache;
  llvm::SmallString<32> cached, direct;
  for (double d : values) {
    cached = "x";
    direct = "x";
    cache.append(d, cached);
    JsonWriter::appendDouble(d, direct);
    ASSERT_EQ(std::string(cached), std::string(direct)) << d;
  }
}

TEST(JsonWriterTest, IntegersBoolsStrings) {
  for (uint64_t v : {uint64_t(0), uint64_t(7), uint64_t(UINT64_MAX)})
    EXPECT_EQ(written([&](JsonWriter &w) { w.value(v); }), dumpJson(json(v)));
  for (int64_t v : {int64_t(-1), int64_t(INT64_MIN), int64_t(42)})
    EXPECT_EQ(written([&](JsonWriter &w) { w.value(v); }), dumpJson(json(v)));
  EXPECT_EQ(written([](JsonWriter &w) { w.value(true); }), "true");
  EXPECT_EQ(written([](JsonWriter &w) { w.value(false); }), "false");
  for (std::string s :
       {std::string(""), std::string("accel.vfill (op 7)"),
        std::string("quote \" and \\ backslash"), std::string("tab\tnew\nline"),
        std::string("\x01\x1f"), std::string("caf\xc3\xa9"),
        std::string("bad \xff utf-8 \xc3"), std::string("\xe2\x82\xac")}) {
    EXPECT_EQ(written([&](JsonWriter &w) { w.value(s); }), dumpJson(json(s)))
        << s;
    // appendString appends the same text (after what is there).
    llvm::SmallString<32> text("x");
    JsonWriter::appendString(s, text);
    EXPECT_EQ(std::string(text.str()), "x" + dumpJson(json(s))) << s;
  }
}

TEST(JsonWriterTest, NestedAsDumpWritesIt) {
  json tree = {{"args", {{"name", "x\"y"}, {"op_id", 3}}},
               {"cat", "dma"},
               {"dur", 0.5},
               {"list", {1, 2.5, "three", true, json::object(), json::array()}},
               {"ph", "X"},
               {"pid", -1}};
  std::string out = written([](JsonWriter &w) {
    w.beginObject();
    w.key("args").beginObject().member("name", "x\"y").member("op_id", 3);
    w.endObject();
    w.member("cat", "dma").member("dur", 0.5);
    w.key("list").beginArray().value(1).value(2.5).value("three").value(true);
    w.beginObject().endObject().beginArray().endArray().endArray();
    w.member("ph", "X").member("pid", -1).endObject();
  });
  EXPECT_EQ(out, dumpJson(tree));
  // A tree as one value.
  EXPECT_EQ(written([&](JsonWriter &w) {
              w.beginArray().value(tree).value(tree).endArray();
            }),
            dumpJson(json::array({tree, tree})));
}

TEST(JsonWriterTest, EscapedKeysAndRawValues) {
  // Keys that need escaping go through the string path; others are copied.
  json tree = {{"a\"b", 1}, {"caf\xc3\xa9", 2}, {"plain", 3}};
  EXPECT_EQ(written([](JsonWriter &w) {
              w.beginObject().member("a\"b", 1).member("caf\xc3\xa9", 2);
              w.member("plain", 3).endObject();
            }),
            dumpJson(tree));
  // A value written once and repeated as text, in an array and as members.
  std::string args = dumpJson(json{{"dma", 7}, {"loc", "f.mlir:3:1"}});
  json events = json::array({{{"args", json::parse(args)}, {"ph", "b"}},
                             {{"args", json::parse(args)}, {"ph", "e"}}});
  EXPECT_EQ(written([&](JsonWriter &w) {
              w.beginArray();
              for (const char *ph : {"b", "e"})
                w.beginObject()
                    .key("args")
                    .rawValue(args)
                    .member("ph", ph)
                    .endObject();
              w.endArray();
            }),
            dumpJson(events));
}

// dumpJson to a stream writes the bytes of dumpJson to a string: indented
// or not, invalid UTF-8 replaced, nested values and doubles.
TEST(JsonWriterTest, DumpToStreamAsToString) {
  json tree = {{"a", {1, 2.5, "x\ty"}},
               {"bad", "caf\xc3 \xff"},
               {"empty", json::object()},
               {"list", json::array()},
               {"n", nullptr},
               {"nested", {{"k", {{"deep", -3}}}}}};
  for (int indent : {-1, 0, 2, 4}) {
    std::string streamed;
    llvm::raw_string_ostream os(streamed);
    dumpJson(tree, os, indent);
    os.flush();
    EXPECT_EQ(streamed, dumpJson(tree, indent)) << indent;
  }
}

/// Writes `j` through `w` value by value (objects and arrays by the
/// writer's own calls), except at depth `asTreeAt`, where each value goes
/// in whole as value(json).
void writeTree(JsonWriter &w, const json &j, int asTreeAt, int depth = 0) {
  if (depth == asTreeAt) {
    w.value(j);
  } else if (j.is_object()) {
    w.beginObject();
    for (auto it = j.begin(); it != j.end(); ++it) {
      w.key(it.key());
      writeTree(w, *it, asTreeAt, depth + 1);
    }
    w.endObject();
  } else if (j.is_array()) {
    w.beginArray();
    for (const json &e : j)
      writeTree(w, e, asTreeAt, depth + 1);
    w.endArray();
  } else if (j.is_string()) {
    w.value(j.get<std::string>());
  } else if (j.is_number_unsigned()) {
    w.value(j.get<uint64_t>());
  } else if (j.is_number_integer()) {
    w.value(j.get<int64_t>());
  } else if (j.is_number_float()) {
    w.value(j.get<double>());
  } else if (j.is_boolean()) {
    w.value(j.get<bool>());
  } else {
    w.value(j); // null
  }
}

/// A random tree of depth at most `depth`: objects, arrays (empty ones
/// too), strings that need escaping or not, numbers of every kind.
json randomTree(std::mt19937_64 &rng, int depth) {
  unsigned kind = unsigned(rng() % (depth > 0 ? 9 : 6));
  switch (kind) {
  case 0:
    return rng() % 2 ? json(uint64_t(rng())) : json(-int64_t(rng() % 1000));
  case 1:
    return double(rng() % 100000) / 7.0;
  case 2:
    return rng() % 2 ? json("plain") : json("tab\t\"quote\" caf\xc3\xa9");
  case 3:
    return rng() % 2 == 0;
  case 4:
    return nullptr;
  case 5:
    return rng() % 2 ? json::object() : json::array();
  case 6:
  case 7: {
    json o = json::object();
    for (unsigned i = 0, n = unsigned(rng() % 5); i < n; ++i)
      o[std::string(1, char('a' + rng() % 26)) + (rng() % 3 ? "" : "\"k")] =
          randomTree(rng, depth - 1);
    return o;
  }
  default: {
    json a = json::array();
    for (unsigned i = 0, n = unsigned(rng() % 5); i < n; ++i)
      a.push_back(randomTree(rng, depth - 1));
    return a;
  }
  }
}

// Indented: the bytes of dumpJson(tree, indent), whether each part is
// written by the writer's calls or handed over whole as a tree at some
// depth (metrics.json: a tree with "dmas" written row by row).
TEST(JsonWriterTest, IndentedAsDumpWritesIt) {
  std::mt19937_64 rng(3434);
  for (int i = 0; i < 400; ++i) {
    json tree = randomTree(rng, 4);
    for (int indent : {0, 2, 4})
      for (int asTreeAt : {-1, 0, 1, 2}) {
        std::string out = written(
            [&](JsonWriter &w) { writeTree(w, tree, asTreeAt); }, indent);
        ASSERT_EQ(out, dumpJson(tree, indent))
            << "tree " << i << ", indent " << indent << ", whole at depth "
            << asTreeAt;
      }
  }
}

} // namespace
