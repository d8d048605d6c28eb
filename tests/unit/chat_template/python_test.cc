// Python's spelling of values: float repr, str repr and json.dumps, which every printed value
// and every tojson goes through.
#include "chat_template/python.h"

#include <gtest/gtest.h>

#include <cmath>

namespace crux::chat_template::python {
namespace {

TEST(Python, FloatRepr) {
  EXPECT_EQ(FloatRepr(1.0), "1.0");
  EXPECT_EQ(FloatRepr(0.1 + 0.2), "0.30000000000000004");
  EXPECT_EQ(FloatRepr(1e16), "1e+16");
  EXPECT_EQ(FloatRepr(1e15), "1000000000000000.0");
  EXPECT_EQ(FloatRepr(0.0001), "0.0001");
  EXPECT_EQ(FloatRepr(0.00001), "1e-05");
  EXPECT_EQ(FloatRepr(-2.5e-10), "-2.5e-10");
  EXPECT_EQ(FloatRepr(-0.0), "-0.0");
  EXPECT_EQ(FloatRepr(INFINITY), "inf");
  EXPECT_EQ(FloatRepr(NAN), "nan");
}

TEST(Python, StrRepr) {
  EXPECT_EQ(StrRepr("a"), "'a'");
  EXPECT_EQ(StrRepr("it's"), "\"it's\"");
  EXPECT_EQ(StrRepr("'\""), "'\\'\"'");
  EXPECT_EQ(StrRepr("a\nb\\"), "'a\\nb\\\\'");
  EXPECT_EQ(StrRepr("\x01"), "'\\x01'");
  EXPECT_EQ(StrRepr("é"), "'é'");
}

TEST(Python, JsonDumps) {
  std::string error;
  JsonOptions options;
  auto dict = std::make_shared<DictData>();
  dict->Set(Value("k"), Value::List({Value(1), Value(2.5), Value::None(), Value(true)}));
  dict->Set(Value("s"), Value("é\"\n\x01"));
  EXPECT_EQ(JsonDumps(Value::Dict(dict), options, error),
            "{\"k\": [1, 2.5, null, true], \"s\": \"é\\\"\\n\\u0001\"}");
  options.ensure_ascii = true;
  EXPECT_EQ(JsonDumps(Value("é😀"), options, error), "\"\\u00e9\\ud83d\\ude00\"");
  options = {};
  options.indent_set = true;
  options.indent = "  ";
  options.item_separator = ",";
  EXPECT_EQ(JsonDumps(Value::List({Value(1), Value::List({})}), options, error),
            "[\n  1,\n  []\n]");
  EXPECT_FALSE(JsonDumps(Value(), options, error).has_value());
  EXPECT_NE(error.find("Undefined"), std::string::npos);
}

TEST(Python, CodePoints) {
  EXPECT_EQ(CodePointCount("héllo"), 5u);
  EXPECT_EQ(CodePointOffsets("aé").size(), 3u);
  EXPECT_EQ(CodePointCount("\xff\xfe"), 2u);  // invalid bytes count one each
}

}  // namespace
}  // namespace crux::chat_template::python
