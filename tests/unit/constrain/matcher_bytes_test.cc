// The grammar at byte level: which JSON texts a compiled schema accepts (no vocabulary).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "crux/constrain/matcher.h"
#include "crux/constrain/schema_ir.h"

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

TEST(GrammarBytes, GenericJson) {
  Check({{"{}",
          {"1", "-0", "0.5e-3", "\"a\\u00e9\\ud83d\\ude00\"", "[1, [2, {}], {\"a\": null}]",
           " true ", "{\"a\":{\"b\":[false]}}", "\"\xc3\xa9\""},
          {"01", "1.", "-", "\"\\ud83d\"", "\"\\x\"", "[1,]", "{\"a\"}", "\"\x01\"", "tru",
           "\"\xc0\xaf\"", "\"\xed\xa0\x80\"", "[1 2]", ""}}});
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
