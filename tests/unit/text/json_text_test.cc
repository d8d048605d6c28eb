// The iterative JSON toolset: the serializer agrees with nlohmann's dump() byte for byte and
// takes any depth and width; the text tools (type, compaction, tokens) build no tree.
#include "crux/text/json_text.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "crux/base/utf8.h"
#include "crux/text/json_dump.h"

namespace crux::text {
namespace {

using Json = nlohmann::json;
using OrderedJson = nlohmann::ordered_json;

template <class J>
std::string Reference(const J& value) {
  return value.dump(-1, ' ', false, J::error_handler_t::replace);
}

// Strings that exercise the escaper: every control character, DEL, quotes and backslashes,
// multi-byte characters, and ill-formed UTF-8 of every kind (stray continuation, truncated
// sequences mid-string and at the end, overlongs, surrogates, > U+10FFFF, invalid leads).
std::vector<std::string> TrickyStrings() {
  std::vector<std::string> out = {"",
                                  "plain",
                                  "quote \" backslash \\ slash /",
                                  "\b\f\n\r\t",
                                  std::string("nul\0x", 5),
                                  "\x01\x1f\x7f",
                                  "caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x8c\x8d",
                                  "\x80",
                                  "a\xc3",
                                  "a\xc3z",
                                  "\xe2\x82",
                                  "\xe2\x82z",
                                  "\xf0\x9f\x8c",
                                  "\xf0\x9f\x8cz",
                                  "\xc0\xaf",
                                  "\xe0\x80\xaf",
                                  "\xed\xa0\x80",
                                  "\xf4\x90\x80\x80",
                                  "\xf5\xff\xfe",
                                  "\xe0\xa0",
                                  "ok\xf0\x90\x80"};
  for (int c = 0; c < 0x20; ++c)
    out.push_back(std::string(1, static_cast<char>(c)) + "x");
  return out;
}

TEST(JsonDump, EqualsNlohmannDumpOnAVarietyOfValues) {
  std::vector<OrderedJson> values = {
      nullptr,
      true,
      false,
      0,
      -1,
      42,
      std::numeric_limits<int64_t>::min(),
      std::numeric_limits<uint64_t>::max(),
      0.1,
      -0.0,
      1e300,
      3.0,
      1.5e-7,
      std::numeric_limits<double>::quiet_NaN(),
      std::numeric_limits<double>::infinity(),
      OrderedJson::array(),
      OrderedJson::object(),
      OrderedJson::parse(R"({"z": 1, "a": [1, 2.5, "x", null, {}], "m": {"k": [[], [{}]]}})"),
      OrderedJson::parse(R"([[[[["deep"]]]], {"a": {"b": {"c": true}}}])")};
  for (const std::string& s : TrickyStrings()) {
    values.emplace_back(s);
    values.push_back(OrderedJson{{s, s}, {"k", OrderedJson::array({s, 1})}});
  }
  for (const OrderedJson& value : values) {
    EXPECT_EQ(JsonDump(value), Reference(value));
    const Json unordered = Json::parse(Reference(value), nullptr, false);
    if (!unordered.is_discarded()) {
      EXPECT_EQ(JsonDump(unordered), Reference(unordered));
    }
  }
}

// Random trees with random strings (biased towards bytes ≥ 0x80 and control characters).
OrderedJson RandomValue(std::mt19937& rng, int depth) {
  auto random_string = [&rng] {
    std::string s;
    const int length = static_cast<int>(rng() % 8);
    for (int i = 0; i < length; ++i) {
      const unsigned r = rng() % 4;
      s.push_back(static_cast<char>(r == 0   ? rng() % 0x20
                                    : r == 1 ? 0x80 + rng() % 0x80
                                             : 'a' + rng() % 26));
    }
    return s;
  };
  switch (depth >= 4 ? rng() % 4 : rng() % 6) {
    case 0:
      return random_string();
    case 1:
      return static_cast<int64_t>(rng()) - (1ll << 31);
    case 2:
      return static_cast<double>(rng()) / 7.0;
    case 3:
      return rng() % 2 == 0 ? OrderedJson(nullptr) : OrderedJson(rng() % 2 == 0);
    case 4: {
      OrderedJson array = OrderedJson::array();
      for (unsigned i = rng() % 4; i > 0; --i)
        array.push_back(RandomValue(rng, depth + 1));
      return array;
    }
    default: {
      OrderedJson object = OrderedJson::object();
      for (unsigned i = rng() % 4; i > 0; --i)
        object[random_string()] = RandomValue(rng, depth + 1);
      return object;
    }
  }
}

TEST(JsonDump, EqualsNlohmannDumpOnRandomValues) {
  std::mt19937 rng(7);
  for (int i = 0; i < 3000; ++i) {
    const OrderedJson value = RandomValue(rng, 0);
    ASSERT_EQ(JsonDump(value), Reference(value));
  }
}

// Nested one level per step, built in place (nlohmann's destructor is iterative; only
// dump(), copies and comparisons would recurse).
template <class J>
J Nest(size_t depth, bool objects) {
  J root = objects ? J::object() : J::array();
  J* inner = &root;
  for (size_t i = 1; i < depth; ++i) {
    if (objects) {
      inner = &((*inner)["a"] = J::object());
    } else {
      inner->push_back(J::array());
      inner = &inner->back();
    }
  }
  return root;
}

constexpr size_t kMillion = 1'000'000;

TEST(JsonDump, TakesAMillionLevelsOfArrays) {
  EXPECT_EQ(JsonDump(Nest<OrderedJson>(kMillion, false)),
            std::string(kMillion, '[') + std::string(kMillion, ']'));
}

TEST(JsonDump, TakesAMillionLevelsOfObjects) {
  std::string expected;
  for (size_t i = 1; i < kMillion; ++i)
    expected += R"({"a":)";
  expected += "{}" + std::string(kMillion - 1, '}');
  EXPECT_EQ(JsonDump(Nest<OrderedJson>(kMillion, true)), expected);
}

TEST(JsonDump, TakesTwoHundredThousandMembers) {
  OrderedJson wide = OrderedJson::object();
  std::string expected = "{";
  auto& members = wide.get_ref<OrderedJson::object_t&>();
  for (int i = 0; i < 200'000; ++i) {
    std::string key(1, 'k');  // not "k" + ...: gcc 12's false -Wrestrict
    key += std::to_string(i);
    members.emplace_back(key, i);  // the vector's own emplace_back: no linear key lookup
    if (i > 0) expected += ',';
    expected += '"' + key + "\":" + std::to_string(i);
  }
  expected += '}';
  EXPECT_EQ(JsonDump(wide), expected);
}

TEST(JsonStringLikeDump, EqualsNlohmannOnRandomBytes) {
  for (const std::string& s : TrickyStrings()) {
    std::string out;
    AppendJsonStringLikeDump(out, s);
    EXPECT_EQ(out, Reference(Json(s)))
        << Json(s).dump(-1, ' ', true, Json::error_handler_t::replace);
  }
  std::mt19937 rng(11);
  for (int i = 0; i < 20000; ++i) {
    std::string s;
    for (unsigned n = rng() % 12; n > 0; --n)
      s.push_back(static_cast<char>(rng() % 3 == 0 ? rng() % 0x80 : 0x80 + rng() % 0x80));
    std::string out;
    AppendJsonStringLikeDump(out, s);
    ASSERT_EQ(out, Reference(Json(s)));
    // Repairing alone is the same as the string's contents when nothing needs escaping.
    std::string repaired;
    utf8::AppendRepaired(repaired, s);
    const bool plain = std::none_of(s.begin(), s.end(), [](char c) {
      return static_cast<unsigned char>(c) < 0x20 || c == '"' || c == '\\';
    });
    if (plain) {
      ASSERT_EQ('"' + repaired + '"', out);
    }
    ASSERT_TRUE(utf8::IsValid(repaired));
  }
}

TEST(JsonTextType, ValidAndInvalidText) {
  struct Case {
    std::string text;
    std::optional<JsonType> type;
  };
  const std::vector<Case> cases = {
      {R"({"a": [1, 2]})", JsonType::kObject},
      {" \n\t{}\r\n ", JsonType::kObject},
      {"[]", JsonType::kArray},
      {R"("s\u00e9")", JsonType::kString},
      {"-1.5e3", JsonType::kNumber},
      {"0", JsonType::kNumber},
      {"true", JsonType::kBoolean},
      {"null", JsonType::kNull},
      {"", std::nullopt},
      {"   ", std::nullopt},
      {"{not json", std::nullopt},
      {R"({"a": 1})"
       " x",
       std::nullopt},
      {"[1] [2]", std::nullopt},
      {R"({"a": 1,})", std::nullopt},
      {"01", std::nullopt},
      {R"({"a" 1})", std::nullopt},
      {"[1, 2", std::nullopt},
      {"\"unterminated", std::nullopt},
      {"nul", std::nullopt},
      {"\v{}", std::nullopt},  // not JSON whitespace
  };
  for (const Case& c : cases) {
    EXPECT_EQ(JsonTextType(c.text), c.type) << c.text;
    EXPECT_EQ(c.type.has_value(), Json::accept(c.text)) << c.text;
  }
  const std::string deep = std::string(1'000'000, '[') + std::string(1'000'000, ']');
  EXPECT_EQ(JsonTextType(deep), JsonType::kArray);
  EXPECT_EQ(JsonTextType(deep.substr(1)), std::nullopt);
  EXPECT_EQ(JsonTextType(deep.substr(0, deep.size() - 1)), std::nullopt);
}

TEST(CompactJson, DropsWhitespaceKeepsTokensRepairsStrings) {
  std::string out = "prefix:";
  EXPECT_EQ(AppendCompactJson(out, " {\"a b\" : [ 1.50 , \"\\u00e9 \\\" x\" ,\n{ } ] } "),
            JsonType::kObject);
  EXPECT_EQ(out, R"(prefix:{"a b":[1.50,"\u00e9 \" x",{}]})");
  out.clear();
  EXPECT_EQ(AppendCompactJson(out, "\"caf\xc3\""), JsonType::kString);
  EXPECT_EQ(out, "\"caf\xef\xbf\xbd\"");
  out = "kept";
  EXPECT_EQ(AppendCompactJson(out, "{not json"), std::nullopt);
  EXPECT_EQ(out, "kept");
  const std::string deep = std::string(500'000, '[') + " " + std::string(500'000, ']');
  out.clear();
  EXPECT_EQ(AppendCompactJson(out, deep), JsonType::kArray);
  EXPECT_EQ(out.size(), deep.size() - 1);
}

TEST(JsonTokenReader, ReadsTokensAndWholeValues) {
  using Kind = JsonTokenReader::Kind;
  JsonTokenReader reader(R"( {"a": [1, "x", {"b": null}], "c": true, "d": -2e5} )");
  std::vector<std::pair<Kind, std::string>> tokens;
  for (auto t = reader.Next(); t.kind != Kind::kEnd; t = reader.Next())
    tokens.emplace_back(t.kind, std::string(t.raw));
  const std::vector<std::pair<Kind, std::string>> expected = {
      {Kind::kObjectBegin, "{"}, {Kind::kKey, "\"a\""},    {Kind::kArrayBegin, "["},
      {Kind::kNumber, "1"},      {Kind::kString, "\"x\""}, {Kind::kObjectBegin, "{"},
      {Kind::kKey, "\"b\""},     {Kind::kNull, "null"},    {Kind::kObjectEnd, "}"},
      {Kind::kArrayEnd, "]"},    {Kind::kKey, "\"c\""},    {Kind::kTrue, "true"},
      {Kind::kKey, "\"d\""},     {Kind::kNumber, "-2e5"},  {Kind::kObjectEnd, "}"}};
  EXPECT_EQ(tokens, expected);

  JsonTokenReader members(R"({"a": [1, {"b": [2]}], "c": "s"})");
  EXPECT_EQ(members.Next().kind, Kind::kObjectBegin);
  EXPECT_EQ(members.Next().raw, "\"a\"");
  JsonTokenReader::Token first;
  EXPECT_EQ(members.NextValue(&first), R"([1, {"b": [2]}])");
  EXPECT_EQ(first.kind, Kind::kArrayBegin);
  EXPECT_EQ(members.Next().kind, Kind::kKey);
  EXPECT_EQ(members.NextValue(), "\"s\"");
  EXPECT_EQ(members.Next().kind, Kind::kObjectEnd);
  EXPECT_EQ(members.Next().kind, Kind::kEnd);
  EXPECT_EQ(members.NextValue(), "");

  const std::string deep = std::string(1'000'000, '[') + std::string(1'000'000, ']');
  JsonTokenReader deep_reader(deep);
  EXPECT_EQ(deep_reader.NextValue(), deep);
  EXPECT_EQ(deep_reader.depth(), 0u);
}

}  // namespace
}  // namespace crux::text
