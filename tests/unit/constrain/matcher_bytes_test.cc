// The grammar at byte level: which JSON texts a compiled schema accepts (no vocabulary).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "crux/constrain/matcher.h"
#include "crux/constrain/schema_ir.h"
#include "crux/constrain/validate.h"

namespace crux::constrain {
namespace {

std::shared_ptr<const CompiledGrammar> Grammar(const std::string& schema,
                                               GrammarOptions options = {}) {
  options.max_whitespace = kUnboundedWhitespace;
  auto ir = CompileSchema(schema);
  EXPECT_TRUE(ir.ok()) << schema << ": " << (ir.ok() ? "" : ir.error().message());
  auto grammar = CompiledGrammar::Compile(*ir, nullptr, options);
  EXPECT_TRUE(grammar.ok()) << schema << ": " << (grammar.ok() ? "" : grammar.error().message());
  return *grammar;
}

// True when `text` is a complete document of the grammar.
bool Accepts(const std::shared_ptr<const CompiledGrammar>& grammar, const std::string& text) {
  Matcher matcher(grammar);
  return matcher.AcceptBytes(text) && matcher.CanEnd();
}

struct Case {
  const char* schema;
  std::vector<const char*> accepted;
  std::vector<const char*> rejected;
};

void Check(const std::vector<Case>& cases, GrammarOptions options = {}) {
  for (const Case& c : cases) {
    auto grammar = Grammar(c.schema, options);
    if (grammar == nullptr) continue;
    for (const char* text : c.accepted)
      EXPECT_TRUE(Accepts(grammar, text)) << c.schema << " " << text;
    for (const char* text : c.rejected)
      EXPECT_FALSE(Accepts(grammar, text)) << c.schema << " " << text;
  }
}

// A value embedded between markers: no blank before or after it, blanks inside as usual.
TEST(GrammarBytes, NoDocumentWhitespace) {
  GrammarOptions options;
  options.document_whitespace = false;
  Check({{R"({"type": "object"})", {"{}", R"({ "a" : [1, 2] })"}, {" {}", "{} ", "{}\n", "\n{}"}},
         {R"({"type": "integer"})", {"12"}, {"12 ", " 12"}}},
        options);
  Check({{R"({"type": "object"})", {" {}", "{}\n"}, {}}});
}

// Values in Python call syntax: True, False and None for true, false and null, at any depth
// and in enum and const values; the rest is JSON.
TEST(GrammarBytes, PythonLiterals) {
  GrammarOptions options;
  options.python_literals = true;
  Check({{"{}",
          {"True", "None", R"([False, {"a": None}])", R"("true")", "1.5"},
          {"true", "null", "[false]", R"({"a": null})", "Nonee"}},
         {R"({"type": "boolean"})", {"True", "False"}, {"true", "None"}},
         {R"({"enum": [true, "null", null, {"k": [false]}]})",
          {"True", R"("null")", "None", R"({"k": [False]})", R"({"k":[False]})"},
          {"true", "null", R"({"k": [false]})", "False"}},
         {R"({"const": null})", {"None"}, {"null"}}},
        options);
}

TEST(GrammarBytes, GenericJson) {
  Check({{"{}",
          {"1", "-0", "0.5e-3", "\"a\\u00e9\\ud83d\\ude00\"", "[1, [2, {}], {\"a\": null}]",
           " true ", "{\"a\":{\"b\":[false]}}", "\"\xc3\xa9\""},
          {"01", "1.", "-", "\"\\ud83d\"", "\"\\x\"", "[1,]", "{\"a\"}", "\"\x01\"", "tru",
           "\"\xc0\xaf\"", "\"\xed\xa0\x80\"", "[1 2]", ""}}});
}

// A pattern that matches nothing leaves no string of its alternative to write; the others
// still serve (and a mask over such a grammar is filled without reading its automaton).
TEST(GrammarBytes, PatternThatMatchesNothing) {
  Check({{R"({"anyOf":[{"type":"string","pattern":"!^[a-z]+$"},{"enum":[1,"x",null]}]})",
          {"1", "\"x\"", "null"},
          {"\"abc\"", "\"!\"", "\"\""}}});
}

TEST(GrammarBytes, Types) {
  Check({{R"({"type":"integer"})", {"0", "-12", "3.0"}, {"1.5", "1e2", "\"1\""}},
         {R"({"type":["string","null"]})", {"\"x\"", "null"}, {"1", "{}"}},
         {R"({"type":"boolean"})", {"true", "false"}, {"null", "1"}}});
}

TEST(GrammarBytes, NumberBounds) {
  Check({{R"({"type":"integer","minimum":1,"maximum":1000})",
          {"1", "999", "1000"},
          {"0", "1001", "-1", "10000"}},
         {R"({"type":"number","exclusiveMinimum":0,"maximum":1.5})",
          {"0.1", "1.5", "1"},
          {"0", "-0.5", "1.51", "2"}},
         {R"({"type":"number","minimum":-10,"maximum":-5})",
          {"-5", "-10", "-7.25"},
          {"-4", "-11", "5"}}});
}

TEST(GrammarBytes, Strings) {
  Check({{R"({"type":"string","minLength":2,"maxLength":3})",
          {"\"ab\"", "\"abc\"", "\"\\u00e9\\n\""},
          {"\"a\"", "\"abcd\""}},
         {R"({"enum":["red","green",1,null]})",
          {"\"red\"", "1", "null"},
          {"\"re\"", "2", "\"blue\""}},
         {R"({"const":{"a":1}})", {"{\"a\":1}"}, {"{}", "{\"a\":2}"}}});
}

TEST(GrammarBytes, EnumNumbersByValue) {
  Check(
      {{R"({"enum":["red",1,null]})",
        {"\"red\"", "1", "1.0", "null"},
        {"1.5", "10", "-1", "\"re\""}},
       {R"({"const":2.5})", {"2.5", "2.50"}, {"2", "25", "2.51"}},
       {R"({"enum":[-3,100],"minimum":0})", {"100", "100.0"}, {"-3", "10", "1000"}},
       {R"({"const":{"a":[1,2]}})", {"{\"a\":[1,2]}", "{ \"a\" : [ 1 , 2 ] }"}, {"{\"a\":[1]}"}}});
}

TEST(GrammarBytes, BoundedNumbersWithExponents) {
  Check({{R"({"type":"number","minimum":0})",
          {"1e-06", "2.5E+3", "0e5", "0.1e-99"},
          {"-1e-06", "-2E3"}},
         {R"({"type":"number","maximum":1,"exclusiveMinimum":0})",
          {"1e0", "5e-1", "0.01E+2"},
          {"2e0", "0e5", "1.1e0", "1e1", "-5e-1"}},
         {R"({"type":"number","minimum":100,"maximum":200})",
          {"1e2", "1.5e2", "2E+2"},
          {"2.01e2", "1e1", "9.9e1"}},
         {R"({"enum":[1000, 0.5]})", {"1e3", "1E+3", "5e-1", "0.5"}, {"1e2", "5e-2"}}});
}

TEST(GrammarBytes, StructuredEnumsByValue) {
  Check({{R"({"const":{"a":0.0,"b":[1,{"c":null}]}})",
          {"{\"b\":[1,{\"c\":null}],\"a\":0}", "{\"a\":0.0,\"b\":[1.0,{\"c\":null}]}",
           "{ \"a\" : 0 , \"b\" : [ 1 , { \"c\" : null } ] }"},
          {"{\"a\":0}", "{\"a\":0,\"b\":[1,{\"c\":null}],\"x\":1}",
           "{\"a\":0,\"b\":[1,{\"c\":null},2]}"}},
         {R"({"enum":[[1,2],"x",{"k":"v"}]})",
          {"[1,2]", "\"x\"", "{\"k\":\"v\"}"},
          {"[1]", "[2,1]", "{\"k\":\"w\"}", "{}"}},
         {R"({"allOf":[{"enum":[{"a":1},{"a":2}]},{"enum":[{"a":2},{"a":3}]}]})",
          {"{\"a\":2}"},
          {"{\"a\":1}", "{\"a\":3}"}}});
}

TEST(GrammarBytes, Objects) {
  Check(
      {{R"({"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"string"}},"required":["a"],"additionalProperties":false})",
        {"{\"a\":1}", "{\"b\":\"x\",\"a\":2}", "{ \"a\" : 1 , \"b\" : \"\" }"},
        {"{}", "{\"b\":\"x\"}", "{\"a\":1,\"c\":2}", "{\"a\":1,\"a\":2}", "{\"a\":\"1\"}"}},
       {R"({"properties":{"a":{"type":"integer"}},"required":["a"]})",
        {"{\"a\":1,\"b\":2}", "{\"x\":[],\"a\":0}"},
        {"{\"b\":2}", "{\"a\":true}"}},
       {R"({"type":"object","minProperties":1,"maxProperties":2})",
        {"{\"a\":1}", "{\"a\":1,\"b\":2}"},
        {"{}", "{\"a\":1,\"b\":2,\"c\":3}"}},
       {R"({"required":["id"],"additionalProperties":{"type":"string"}})",
        {"{\"id\":\"1\"}"},
        {"{\"id\":1}", "{}"}}});
}

TEST(GrammarBytes, SchemaOrder) {
  GrammarOptions options;
  options.any_property_order = false;
  Check({{R"({"properties":{"a":{},"b":{}}})",
          {"{\"a\":1,\"b\":2}", "{\"b\":2}"},
          {"{\"b\":1,\"a\":2}"}}},
        options);
}

TEST(GrammarBytes, Arrays) {
  Check({{R"({"type":"array","items":{"type":"integer"},"minItems":1,"maxItems":2})",
          {"[1]", "[1,2]"},
          {"[]", "[1,2,3]", "[\"a\"]"}},
         {R"({"prefixItems":[{"type":"string"},{"type":"integer"}],"items":false})",
          {"[]", "[\"a\"]", "[\"a\",1]"},
          {"[1]", "[\"a\",1,2]"}}});
}

TEST(GrammarBytes, Combinators) {
  Check(
      {{R"({"anyOf":[{"type":"string"},{"type":"object","properties":{"k":{"const":1}},"required":["k"]}]})",
        {"\"s\"", "{\"k\":1}"},
        {"{\"k\":2}", "1"}},
       {R"({"allOf":[{"type":"integer","minimum":0},{"maximum":5}]})", {"0", "5"}, {"6", "-1"}},
       {R"({"$defs":{"node":{"type":"object","properties":{"children":{"type":"array","items":{"$ref":"#/$defs/node"}}},"additionalProperties":false}},"$ref":"#/$defs/node"})",
        {"{}", "{\"children\":[{\"children\":[]},{}]}"},
        {"{\"children\":[1]}", "{\"x\":1}"}}});
}

// A property whose value no JSON text can satisfy (an enum with no value of the allowed
// type) is refused at its name's closing quote, so that no prefix leads to a dead end.
TEST(GrammarBytes, NameWithoutPossibleValueRefusedAtItsQuote) {
  auto grammar = Grammar(
      R"({"type":"object","properties":{"name":{"const":"x","type":"array"},"n":{"enum":[1,"a"],"type":"string"}}})");
  ASSERT_NE(grammar, nullptr);
  EXPECT_FALSE(Matcher(grammar).AcceptBytes("{\"name\""));
  EXPECT_TRUE(Matcher(grammar).AcceptBytes("{\"nam"));
  EXPECT_TRUE(Accepts(grammar, "{\"n\":\"a\"}"));
  EXPECT_FALSE(Accepts(grammar, "{\"n\":1}"));
}

// Emptiness is found below the top level too: a value whose required member, first items,
// number range or pattern no JSON text meets is never opened, so every accepted prefix can
// still be finished, and a top-level value made of such parts refuses its first byte.
TEST(GrammarBytes, ValuesNoTextMeetsAreNeverOpened) {
  auto grammar = Grammar(R"({"type":"object","properties":{
      "a":{"type":"object","properties":{"x":false},"required":["x"]},
      "b":{"type":"array","items":false,"minItems":1},
      "c":{"type":"integer","minimum":1.5,"maximum":1.7},
      "d":{"type":"string","pattern":"^abc$","maxLength":2},
      "e":{"type":"array","prefixItems":[true,{"enum":[]}],"minItems":2},
      "f":{"anyOf":[{"type":"array","items":{"$ref":"#/properties/c"},"minItems":1},{"type":"null"}]},
      "g":{"type":"object","properties":{"y":{"$ref":"#/properties/g"}},"required":["y"]},
      "h":{"type":"array","items":false},
      "i":{"type":"object","additionalProperties":false,"minProperties":1}}})");
  ASSERT_NE(grammar, nullptr);
  for (const char* name : {"a", "b", "c", "d", "e", "g", "i"}) {
    EXPECT_FALSE(Matcher(grammar).AcceptBytes(std::string("{\"") + name + "\"")) << name;
  }
  EXPECT_TRUE(Accepts(grammar, R"({"f":null})"));
  EXPECT_FALSE(Matcher(grammar).AcceptBytes(R"({"f":[)"));
  EXPECT_TRUE(Accepts(grammar, R"({"h":[]})"));
  EXPECT_FALSE(Matcher(grammar).AcceptBytes(R"({"h":[1)"));
  EXPECT_TRUE(Accepts(grammar, "{}"));

  for (const char* schema :
       {R"({"type":"array","items":false,"minItems":1})",
        R"({"type":"object","properties":{"x":false},"required":["x"]})",
        R"({"type":"object","properties":{"x":{"$ref":"#"}},"required":["x"]})"}) {
    auto empty = Grammar(schema);
    ASSERT_NE(empty, nullptr);
    for (int byte = 0x21; byte < 0x7F; ++byte)
      EXPECT_FALSE(Matcher(empty).AcceptBytes(std::string(1, static_cast<char>(byte)))) << schema;
  }
  // A chain of definitions each requiring the one before, named in order from the top: each
  // part is numbered before its user, and the chain is settled either way.
  for (const std::string first : {R"({"type":"integer"})", "false"}) {
    std::string branches;
    std::string defs =
        R"("d0":{"type":"object","properties":{"x":)" + first + R"(},"required":["x"]})";
    for (int k = 0; k < 200; ++k) {
      if (k > 0) branches += ",";
      branches += R"({"$ref":"#/$defs/d)" + std::to_string(k) + R"("})";
      if (k > 0) {
        defs += R"(,"d)" + std::to_string(k) +
                R"(":{"type":"object","properties":{"x":{"$ref":"#/$defs/d)" +
                std::to_string(k - 1) + R"("}},"required":["x"]})";
      }
    }
    auto chain = Grammar(R"({"anyOf":[)" + branches + R"(],"$defs":{)" + defs + "}}");
    ASSERT_NE(chain, nullptr);
    const bool ends = first != "false";
    EXPECT_EQ(Accepts(chain, R"({"x":{"x":{"x":7}}})"), ends);
    EXPECT_EQ(Matcher(chain).AcceptBytes("{"), ends);
  }
  // Recursion that can end is kept: a list whose tail may be null.
  EXPECT_TRUE(Accepts(
      Grammar(
          R"({"type":"object","properties":{"next":{"anyOf":[{"$ref":"#"},{"type":"null"}]}},"required":["next"]})"),
      R"({"next":{"next":null}})"));
}

// A \u escape is refused as soon as no code point its digits can still spell is taken, by
// the automaton of a pattern or by a declared name: the whole code point decides, not its
// first UTF-8 byte (U+00E1 and U+00F0..U+00FF share the lead byte C3).
TEST(GrammarBytes, EscapePrefixesCanBeCompleted) {
  auto pattern = Grammar(R"({"type":"string","pattern":"^\u00e1(\ud83d\ude00)?$"})");
  ASSERT_NE(pattern, nullptr);
  EXPECT_TRUE(Matcher(pattern).AcceptBytes("\"\\u00e"));
  EXPECT_FALSE(Matcher(pattern).AcceptBytes("\"\\u00f"));
  EXPECT_FALSE(Matcher(pattern).AcceptBytes("\"\\u00e2"));
  EXPECT_TRUE(Accepts(pattern, "\"\\u00e1\""));
  EXPECT_TRUE(Accepts(pattern, "\"\\u00E1\\ud83d\\ude00\""));
  EXPECT_TRUE(Matcher(pattern).AcceptBytes("\"\xc3\xa1\\ud83d\\ude0"));
  EXPECT_FALSE(Matcher(pattern).AcceptBytes("\"\xc3\xa1\\ud83d\\ude1"));  // U+1F610..1F61F
  EXPECT_FALSE(Matcher(pattern).AcceptBytes("\"\xc3\xa1\\ud83e"));        // U+1F800..1FBFF
  auto names = Grammar(
      R"({"type":"object","properties":{"\u00e1":{},"\u4e2d":{}},"additionalProperties":false})");
  ASSERT_NE(names, nullptr);
  EXPECT_TRUE(Matcher(names).AcceptBytes("{\"\\u00e"));
  EXPECT_FALSE(Matcher(names).AcceptBytes("{\"\\u00f"));
  EXPECT_TRUE(Matcher(names).AcceptBytes("{\"\\u4e"));
  EXPECT_FALSE(Matcher(names).AcceptBytes("{\"\\u4f"));  // U+4F00..4FFF share E4 with U+4E2D
  EXPECT_TRUE(Accepts(names, "{\"\\u4e2d\":1}"));
  auto keys = Grammar(
      R"({"type":"object","patternProperties":{"^\u00e1+$":{}},"additionalProperties":false})");
  ASSERT_NE(keys, nullptr);
  EXPECT_FALSE(Matcher(keys).AcceptBytes("{\"\\u00f"));
  EXPECT_TRUE(Accepts(keys, "{\"\\u00e1\xc3\xa1\":1}"));
}

// Every prefix of a \u escape is taken exactly when one of its next digits is: over all
// one-, two- and three-digit prefixes, of a plain code unit and of the low surrogate after a
// high one, under a class of scattered ranges (the four-digit escapes are decided by the
// code point itself).
TEST(GrammarBytes, EscapePrefixesAgreeWithTheirCompletions) {
  auto grammar = Grammar(
      R"({"type":"string","pattern":"^[\u00e1\u0100-\u017f\u4e2d\uff10-\uff19\ud83d\ude00-\ud83d\ude4f]$"})");
  ASSERT_NE(grammar, nullptr);
  const char* hex = "0123456789abcdef";
  for (const std::string head : {"\"\\u", "\"\\ud83d\\u"}) {
    std::vector<std::vector<bool>> by_length;
    for (int digits = 1; digits <= 4; ++digits) {
      std::vector<bool> level(size_t{1} << (4 * digits));
      Matcher after_head(grammar);
      ASSERT_TRUE(after_head.AcceptBytes(head));
      for (size_t value = 0; value < level.size(); ++value) {
        std::string text;
        for (int d = digits - 1; d >= 0; --d)
          text.push_back(hex[(value >> (4 * d)) & 15]);
        level[value] = after_head.Fork().AcceptBytes(text);
      }
      by_length.push_back(std::move(level));
    }
    size_t taken_count = 0;
    for (size_t digits = 1; digits < 4; ++digits) {
      const std::vector<bool>& level = by_length[digits - 1];
      const std::vector<bool>& next = by_length[digits];
      for (size_t value = 0; value < level.size(); ++value) {
        bool any = false;
        for (size_t d = 0; d < 16; ++d)
          any = any || next[value * 16 + d];
        EXPECT_EQ(level[value], any)
            << head << " prefix " << std::hex << value << " of " << digits << " digits";
        taken_count += level[value] ? 1 : 0;
      }
    }
    EXPECT_GT(taken_count, 0u) << head;
  }
  EXPECT_TRUE(Accepts(grammar, "\"\\u4e2d\""));
  EXPECT_TRUE(Accepts(grammar, "\"\\ud83d\\ude4f\""));
  EXPECT_FALSE(Accepts(grammar, "\"\\ud83d\\ude50\""));
}

// Once the names still required fill every place `maxProperties` leaves, a name is refused
// as soon as it can no longer spell one of them, not at its closing quote.
TEST(GrammarBytes, NamesNoLongerFittingMaxPropertiesRefusedEarly) {
  auto grammar = Grammar(
      R"({"type":"object","patternProperties":{"^[a-e]$":true},"properties":{"bb":{}},"additionalProperties":false,"required":["a","bb"],"maxProperties":3})");
  ASSERT_NE(grammar, nullptr);
  EXPECT_TRUE(Matcher(grammar).AcceptBytes("{\"c"));           // a place is left for any name
  EXPECT_FALSE(Matcher(grammar).AcceptBytes("{\"e\":1,\"c"));  // none is: a or bb only
  EXPECT_TRUE(Matcher(grammar).AcceptBytes("{\"e\":1,\"b"));
  EXPECT_FALSE(Matcher(grammar).AcceptBytes("{\"e\":1,\"\\u0065"));
  EXPECT_FALSE(Matcher(grammar).AcceptBytes("{\"e\":1,\"\\u007"));
  EXPECT_TRUE(Matcher(grammar).AcceptBytes("{\"e\":1,\"\\u006"));  // U+0060..6F: a, b
  EXPECT_TRUE(Accepts(grammar, "{\"e\":1,\"bb\":2,\"a\":3}"));
  EXPECT_TRUE(Accepts(grammar, "{\"bb\":1,\"c\":1,\"a\":2}"));
  EXPECT_FALSE(Matcher(grammar).AcceptBytes("{\"bb\":1,\"c\":1,\"b"));
  EXPECT_TRUE(Matcher(grammar).AcceptBytes("{\"bb\":1,\"c\":1,\"a"));
}

// A definition named from many places through nodes of their own (`{"$ref": …}`, an
// `allOf` of it) is one value: the grammar holds it once, so its size does not grow with the
// places (an audit-log schema names one 230-field record from 150 places).
TEST(GrammarBytes, DefinitionNamedFromManyPlacesHeldOnce) {
  std::string fields;
  for (int i = 0; i < 100; ++i)
    fields +=
        std::string(i == 0 ? "" : ",") + "\"field" + std::to_string(i) + "\":{\"type\":\"string\"}";
  auto schema_with = [&](int places) {
    std::string properties;
    for (int i = 0; i < places; ++i) {
      properties += std::string(i == 0 ? "" : ",") + "\"place" + std::to_string(i) + "\":" +
                    (i % 2 == 0 ? R"({"$ref":"#/$defs/record"})"
                                : R"({"allOf":[{"$ref":"#/$defs/record"}]})");
    }
    return R"({"$defs":{"record":{"type":"object","properties":{)" + fields +
           R"(},"additionalProperties":false}},"type":"object","properties":{)" + properties + "}}";
  };
  auto one = Grammar(schema_with(1));
  auto many = Grammar(schema_with(150));
  ASSERT_NE(one, nullptr);
  ASSERT_NE(many, nullptr);
  EXPECT_LT(many->memory_bytes(), 2 * one->memory_bytes());
  EXPECT_TRUE(Accepts(many, R"({"place7":{"field3":"x"},"place8":{"field99":"y"}})"));
  EXPECT_FALSE(Accepts(many, R"({"place7":{"field100":"x"}})"));
}

// A name the patterns take that is also a declared name already written cannot be written
// again: it is refused as soon as the patterns can only end on it, not at its closing quote.
TEST(GrammarBytes, DeclaredNamesThePatternAlsoTakesNotWrittenTwice) {
  auto grammar = Grammar(
      R"({"type":"object","patternProperties":{"^[a-e]$":{"type":"integer"},"^a[0-9]$":{}},"properties":{"a":{"type":"integer"},"c":{"type":"integer"}},"additionalProperties":false})");
  ASSERT_NE(grammar, nullptr);
  EXPECT_TRUE(Matcher(grammar).AcceptBytes("{\"a\":1,\"b"));
  EXPECT_FALSE(Matcher(grammar).AcceptBytes("{\"c\":1,\"c"));
  EXPECT_TRUE(Matcher(grammar).AcceptBytes("{\"a\":1,\"a"));  // a0..a9 are still open
  EXPECT_FALSE(Accepts(grammar, "{\"a\":1,\"a\":2}"));
  EXPECT_TRUE(Accepts(grammar, "{\"a\":1,\"a7\":2,\"c\":3}"));
  // A hundred declared names (two words of ranks), two of them written.
  std::string properties;
  for (int i = 0; i < 100; ++i)
    properties +=
        std::string(i == 0 ? "" : ",") + "\"a" + (i < 10 ? "0" : "") + std::to_string(i) + "\":{}";
  auto many =
      Grammar(R"({"type":"object","patternProperties":{"^a[0-9][0-9]$":{}},"properties":{)" +
              properties + R"(},"additionalProperties":false})");
  ASSERT_NE(many, nullptr);
  EXPECT_FALSE(Matcher(many).AcceptBytes("{\"a95\":1,\"a05\":2,\"a95"));
  EXPECT_FALSE(Matcher(many).AcceptBytes("{\"a95\":1,\"a05\":2,\"a05"));
  EXPECT_TRUE(Matcher(many).AcceptBytes("{\"a95\":1,\"a05\":2,\"a94"));
  EXPECT_TRUE(Matcher(many).AcceptBytes("{\"a95\":1,\"a05\":2,\"a0"));
}

TEST(GrammarBytes, CompactWhitespace) {
  GrammarOptions options;
  options.flexible_whitespace = false;
  Check({{R"({})", {"{\"a\":[1,2]}"}, {"{ \"a\":1}", "[1, 2]"}}}, options);
}

TEST(GrammarBytes, RollbackAndFork) {
  auto grammar = Grammar(R"({"type":"array","items":{"type":"integer"}})");
  Matcher matcher(grammar);
  ASSERT_TRUE(matcher.AcceptBytes("[1"));
  ASSERT_TRUE(matcher.AcceptBytes(",2"));
  Matcher fork = matcher.Fork();
  EXPECT_FALSE(matcher.AcceptBytes("\"x\""));
  EXPECT_TRUE(matcher.Rollback(1));
  EXPECT_TRUE(matcher.AcceptBytes("]"));
  EXPECT_TRUE(matcher.CanEnd());
  EXPECT_TRUE(fork.AcceptBytes(",3]"));
  EXPECT_TRUE(fork.CanEnd());
  EXPECT_FALSE(matcher.Rollback(5));
}

TEST(GrammarBytes, ForcedBytes) {
  auto grammar = Grammar(
      R"({"type":"object","properties":{"name":{"type":"string"}},"required":["name"],"additionalProperties":false})",
      GrammarOptions{false, 0, true, false});
  Matcher matcher(grammar);
  EXPECT_EQ(matcher.ForcedBytes(), "{\"name\":\"");
}

}  // namespace
}  // namespace crux::constrain

namespace crux::constrain {
namespace {

// From a state the matcher accepted, a complete document within `depth` more bytes of
// `alphabet`, searched through the bytes the matcher accepts (at most `budget` states).
bool CompletesWithin(Matcher& matcher, const std::string& alphabet, int depth, int& budget) {
  if (matcher.CanEnd()) return true;
  if (depth == 0 || --budget < 0) return false;
  for (char c : alphabet) {
    if (!matcher.AcceptBytes(std::string(1, c))) continue;
    const bool done = CompletesWithin(matcher, alphabet, depth - 1, budget);
    matcher.Rollback(1);
    if (done) return true;
  }
  return false;
}

// Every prefix a bounded number's grammar accepts can still be completed, exponents included
// (the viability check decides each digit by the values the number can still reach); random
// prefixes over the number alphabet, each found completable within six more bytes. And every
// random text the validator accepts is accepted whole (but for the documented narrowings).
TEST(GrammarBytes, BoundedNumberPrefixesCanBeCompleted) {
  // Each schema with spellings of values it allows, exponents among them.
  const std::vector<std::pair<const char*, std::vector<const char*>>> schemas = {
      {R"({"type":"number","minimum":-127,"maximum":128})", {"50123e-3", "-1.27e2", "12.8E1"}},
      {R"({"type":"number","exclusiveMinimum":0.5,"exclusiveMaximum":0.75})",
       {"0.6", "6e-1", "74.99e-2"}},
      {R"({"type":"number","minimum":1000,"maximum":1001})", {"1000", "1.0005e3", "100050e-2"}},
      {R"({"type":"number","minimum":-2.5e-5,"maximum":-1e-5})", {"-2e-5", "-0.00001", "-25e-6"}},
      {R"({"type":"integer","minimum":100,"maximum":250})", {"100", "250", "199.00"}},
      {R"({"type":"integer","exclusiveMinimum":-50,"exclusiveMaximum":-3})", {"-49", "-4"}},
      {R"({"type":"integer","minimum":-9223372036854775808,"maximum":12})",
       {"-9223372036854775808", "12", "0"}},
      {R"({"type":"number","minimum":7,"maximum":7})", {"7", "7.000", "0.7e1", "70e-1"}},
      {R"({"type":"number","exclusiveMinimum":99.9})", {"99.91", "1e99", "9991e-2"}}};
  const std::string alphabet = "e-+.0123456789";
  uint32_t seed = 12345;
  auto next = [&] {
    seed = seed * 1664525u + 1013904223u;
    return seed >> 8;
  };
  for (const auto& [schema, spellings] : schemas) {
    auto grammar = Grammar(schema);
    if (grammar == nullptr) continue;
    for (const char* text : spellings)
      EXPECT_TRUE(Accepts(grammar, text)) << schema << " " << text;
    auto ir = CompileSchema(schema);
    ASSERT_TRUE(ir.ok());
    size_t accepted = 0;
    size_t valid = 0;
    for (int round = 0; round < 3000; ++round) {
      std::string prefix;
      const size_t length = 1 + next() % 9;
      for (size_t i = 0; i < length; ++i)
        prefix.push_back(alphabet[next() % alphabet.size()]);
      // The documented narrowings: at most two exponent digits, no exponent on an integer.
      const size_t e = prefix.find_first_of("eE");
      const bool narrowed = e != std::string::npos &&
                            (std::string_view(schema).find("integer") != std::string_view::npos ||
                             prefix.size() - prefix.find_first_not_of("+-", e + 1) > 2);
      if (!narrowed && Validate(*ir, prefix).valid()) {
        ++valid;
        EXPECT_TRUE(Accepts(grammar, prefix)) << schema << " " << prefix;
      }
      Matcher matcher(grammar);
      if (!matcher.AcceptBytes(prefix)) continue;
      ++accepted;
      int budget = 20000;
      EXPECT_TRUE(CompletesWithin(matcher, alphabet, 6, budget)) << schema << " " << prefix;
    }
    EXPECT_GT(accepted + valid, 20u) << schema;
  }
}

}  // namespace
}  // namespace crux::constrain
