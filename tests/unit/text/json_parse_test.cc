// The fast request-body parser accepts exactly what nlohmann's parser accepts and builds the
// same value, number types included; its errors name the problem and the byte; its limits
// hold at any depth and width.
#include "crux/text/json_parse.h"

#include <gtest/gtest.h>

#include <functional>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

namespace crux::text {
namespace {

using Json = nlohmann::json;
using OrderedJson = nlohmann::ordered_json;

// Same value, same key order and the same number type at every node (nlohmann's == calls 1
// and 1u equal, and 1.0 and 1 too).
template <class J>
bool Identical(const J& a, const J& b) {
  if (a.type() != b.type() || a.size() != b.size()) return false;
  if (a.is_object()) {
    for (auto x = a.begin(), y = b.begin(); x != a.end(); ++x, ++y) {
      if (x.key() != y.key() || !Identical(x.value(), y.value())) return false;
    }
    return true;
  }
  if (a.is_array()) {
    for (size_t i = 0; i < a.size(); ++i) {
      if (!Identical(a[i], b[i])) return false;
    }
    return true;
  }
  return a == b;
}

template <class J>
void ExpectAgreesWithNlohmann(const std::string& text) {
  const J reference = J::parse(text, nullptr, /*allow_exceptions=*/false);
  const Expected<J> ours = ParseJson<J>(text);
  if (reference.is_discarded()) {
    EXPECT_FALSE(ours.ok()) << "accepted what nlohmann rejects: " << text;
    return;
  }
  ASSERT_TRUE(ours.ok()) << "rejected what nlohmann accepts: " << text << " — "
                         << ours.error().message();
  EXPECT_TRUE(Identical(*ours, reference))
      << text << " → " << ours->dump() << " vs " << reference.dump();
}

std::vector<std::string> ValueInputs() {
  return {
      // Values of every type, whitespace of every kind.
      "{}",
      "[]",
      " \t\r\n{ } ",
      "null",
      "true",
      "false",
      "\"\"",
      "0",
      "-0",
      "1",
      "-1",
      R"({"a":1,"b":[true,false,null],"c":{"d":"e"}})",
      "[1, 2.5, -3e2, 4E+1, 5e-1, 0.0]",
      // Integers at the edges of int64 / uint64, and past them (doubles).
      "9223372036854775807",
      "9223372036854775808",
      "18446744073709551615",
      "18446744073709551616",
      "-9223372036854775808",
      "-9223372036854775809",
      "123456789012345678901234567890",
      "1e308",
      "1e-400",
      "-1e-400",
      "2.2250738585072014e-308",
      "0.1",
      "3.141592653589793238462643383279",
      // Numbers nlohmann refuses.
      "01",
      "-",
      "1.",
      ".5",
      "1e",
      "1e+",
      "+1",
      "0x10",
      "Infinity",
      "NaN",
      "-01",
      "1.e5",
      "1e309",
      "-1e309",
  };
}

std::vector<std::string> StringInputs() {
  return {
      // Strings: escapes, surrogates, raw UTF-8, and every kind of bad string.
      R"("\" \\ \/ \b \f \n \r \t")",
      R"("\u0041\u00e9\u4e2d\ud83c\udf0d")",
      R"("\u0000")",
      "\"caf\xc3\xa9 \xe6\x97\xa5 \xf0\x9f\x8c\x8d\"",
      R"("\ud83c")",
      R"("\udf0d")",
      R"("\ud83c\u0041")",
      R"("\ud83cx")",
      R"("\u12")",
      R"("\u12G4")",
      R"("\x")",
      "\"a\tb\"",
      "\"a\nb\"",
      std::string("\"a\0b\"", 5),
      "\"\x7f\"",
      "\"\x80\"",
      "\"\xc3\"",
      "\"\xc0\xaf\"",
      "\"\xed\xa0\x80\"",
      "\"\xf4\x90\x80\x80\"",
      "\"unterminated",
      "\"ends in backslash\\",
      // Long strings crossing the 8-byte scan in every position.
      "\"" + std::string(64, 'x') + "\\n" + std::string(7, 'y') + "\"",
      "\"" + std::string(13, 'x') + "\xc3\xa9" + std::string(9, 'y') + "\"",
      "\"" + std::string(15, 'x') + "\"" + std::string(3, ' '),
  };
}

std::vector<std::string> StructureInputs() {
  return {
      // Structure errors.
      "",           " ",
      "{",          "[",
      "}",          "]",
      "{\"a\"}",    "{\"a\":}",
      "{\"a\":1,}", "[1,]",
      "[1 2]",      "{\"a\":1 \"b\":2}",
      "{a:1}",      "{'a':1}",
      "[1]]",       "{}{}",
      "[] x",       "tru",
      "nul",        "falsey",
      "[tru]",      "{\"a\":1}/",
      "/* c */ {}", "{\"a\":1, \"a\":2}",
      "[[[[[]]]]]", R"({"k":{"k":{"k":[{"k":[]},{}]}}})",
  };
}

TEST(JsonParseTest, AgreesWithNlohmannOnEveryInput) {
  std::vector<std::string> inputs = ValueInputs();
  for (auto more : {StringInputs(), StructureInputs()}) {
    inputs.insert(inputs.end(), more.begin(), more.end());
  }
  for (const std::string& text : inputs) {
    SCOPED_TRACE(text);
    ExpectAgreesWithNlohmann<Json>(text);
    ExpectAgreesWithNlohmann<OrderedJson>(text);
  }
}

// Random documents and their truncations, byte by byte: accepted and rejected alike.
TEST(JsonParseTest, AgreesWithNlohmannOnRandomDocumentsAndEveryPrefix) {
  std::mt19937 rng(7);
  const std::vector<std::string> atoms = {"1",    "-2.5e3", "\"s\"", "\"\\u00e9\\n\"",  "true",
                                          "null", "{}",     "[]",    "\"\xe6\x97\xa5\""};
  for (int doc = 0; doc < 40; ++doc) {
    std::string text;
    std::function<void(int)> emit = [&](int depth) {
      const int kind = depth > 3 ? 2 : static_cast<int>(rng() % 3);
      if (kind == 2) {
        text += atoms[rng() % atoms.size()];
      } else {
        const bool object = kind == 0;
        text += object ? "{" : "[";
        const int n = static_cast<int>(rng() % 4);
        for (int i = 0; i < n; ++i) {
          if (i > 0) text += rng() % 2 ? "," : " , ";
          if (object) text += "\"k" + std::to_string(rng() % 3) + "\":";
          emit(depth + 1);
        }
        text += object ? "}" : "]";
      }
    };
    emit(0);
    for (size_t cut = 0; cut <= text.size(); ++cut) {
      ExpectAgreesWithNlohmann<OrderedJson>(text.substr(0, cut));
    }
  }
}

struct ErrorCase {
  std::string text;
  ErrorCode code;
  std::string message;
};

TEST(JsonParseTest, ErrorsNameTheProblemAndTheByte) {
  const std::vector<ErrorCase> cases = {
      {"{\"a\":1,}", ErrorCode::kParse,
       "unexpected '}'; expected an object key (a string) at byte 7"},
      {"[1 2]", ErrorCode::kParse, "unexpected '2'; expected ',' or ']' at byte 3"},
      {"{\"a\":", ErrorCode::kParse, "unexpected end of input; expected a value at byte 5"},
      {"\"abc", ErrorCode::kParse, "unterminated string at byte 0"},
      {"\"a\x01\"", ErrorCode::kParse,
       "control character byte 0x01 in a string (escape it) at byte 2"},
      {"[\"\xff\"]", ErrorCode::kParse, "invalid UTF-8 in a string at byte 2"},
      {"\"\\ud800\"", ErrorCode::kParse, "high surrogate without a low one after it at byte 1"},
      {"{} x", ErrorCode::kParse, "unexpected 'x' after the end of the value at byte 3"},
      {"[1e999]", ErrorCode::kInvalidArgument, "number 1e999 at byte 1 is beyond the range"},
  };
  for (const ErrorCase& c : cases) {
    const Expected<Json> result = ParseJson<Json>(c.text);
    ASSERT_FALSE(result.ok()) << c.text;
    EXPECT_EQ(result.error().code(), c.code) << c.text;
    EXPECT_NE(result.error().message().find(c.message), std::string::npos)
        << c.text << " → " << result.error().message();
  }
}

TEST(JsonParseTest, LimitsHoldAtAnyDepthAndWidth) {
  const JsonParseLimits limits{.max_depth = 128, .max_object_members = 1024};
  const std::string deep_ok = std::string(128, '[') + std::string(128, ']');
  EXPECT_TRUE((ParseJson<OrderedJson>(deep_ok, limits)).ok());
  // A million open brackets: refused at the limit, in one pass, without recursion.
  const std::string deep = std::string(1'000'000, '[');
  const Expected<OrderedJson> too_deep = ParseJson<OrderedJson>(deep, limits);
  ASSERT_FALSE(too_deep.ok());
  EXPECT_EQ(too_deep.error().code(), ErrorCode::kLimit);
  EXPECT_EQ(too_deep.error().message(), "nests deeper than 128 levels");

  std::string wide = "{";
  for (int i = 0; i < 1025; ++i)
    wide += (i ? ",\"k" : "\"k") + std::to_string(i) + "\":0";
  wide += "}";
  const Expected<OrderedJson> too_wide = ParseJson<OrderedJson>(wide, limits);
  ASSERT_FALSE(too_wide.ok());
  EXPECT_EQ(too_wide.error().message(), "has an object with more than 1024 members");
  // Arrays have no member limit.
  std::string long_array = "[" + std::string(3999, '0') + "]";
  for (size_t i = 2; i < long_array.size() - 1; i += 2)
    long_array[i] = ',';
  EXPECT_TRUE((ParseJson<OrderedJson>(long_array, limits)).ok());
}

// nlohmann reads "{}\0junk" as {} (it takes NUL for the end of the input); a NUL byte is
// refused anywhere here.
TEST(JsonParseTest, ANulByteIsAnErrorEvenAfterTheValue) {
  for (const std::string& text :
       {std::string("{}\0junk", 7), std::string("[1,\0]", 6), std::string("\0", 1)}) {
    EXPECT_FALSE((ParseJson<Json>(text)).ok()) << text.size();
  }
}

TEST(JsonParseTest, ARepeatedKeyKeepsTheLastValueInTheFirstPlace) {
  const Expected<OrderedJson> parsed = ParseJson<OrderedJson>(R"({"a":1,"b":2,"a":3})");
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed->dump(), R"({"a":3,"b":2})");
}

// Ordered objects grow as members arrive (moving the values already parsed): every size
// through several growths keeps each member, in order, with its nested value; a key repeated
// after a growth still keeps its first place.
TEST(JsonParseTest, WideOrderedObjectsKeepEveryMemberInOrder) {
  for (int members = 1; members <= 40; ++members) {
    std::string text = "{";
    for (int i = 0; i < members; ++i) {
      if (i > 0) text += ",";
      text += "\"k" + std::to_string(i) + "\":[{\"text\":\"" + std::string(40, 'a' + i % 26) +
              "\"}," + std::to_string(i) + "]";
    }
    text += members > 2 ? ",\"k1\":\"again\"}" : "}";
    SCOPED_TRACE(text);
    ExpectAgreesWithNlohmann<OrderedJson>(text);
  }
}

}  // namespace
}  // namespace crux::text
