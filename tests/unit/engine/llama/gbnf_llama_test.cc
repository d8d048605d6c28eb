// The GBNF crux writes (crux/constrain/gbnf.h, crux/logits/gbnf_tools.h), read by llama.cpp's
// own grammar parser and matcher (src/llama-grammar.h, with no vocabulary, as llama.cpp's
// tests/test-grammar-integration.cpp does): each grammar must parse, accept the texts it is
// meant for — JSON values of a schema, text up to a marker, call blocks that the families'
// renderer writes — and reject malformed ones.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "crux/constrain/gbnf.h"
#include "crux/constrain/schema_ir.h"
#include "crux/logits/gbnf_tools.h"
#include "crux/parse/call_grammar.h"
#include "crux/parse/registry.h"
#include "crux/parse/tools/registry.h"
#include "llama-grammar.h"
#include "llama.h"

namespace crux::engine {
namespace {

using constrain::GbnfOptions;
using constrain::GbnfWriter;

struct GrammarDeleter {
  void operator()(llama_grammar* grammar) const { llama_grammar_free_impl(grammar); }
};
using GrammarPtr = std::unique_ptr<llama_grammar, GrammarDeleter>;

// llama.cpp reports grammar errors through its log; a test that expects none prints nothing.
void Quiet() {
  llama_log_set([](ggml_log_level, const char*, void*) {}, nullptr);
}

GrammarPtr Parse(const std::string& text) {
  Quiet();
  return GrammarPtr(
      llama_grammar_init_impl(nullptr, text.c_str(), "root", false, nullptr, 0, nullptr, 0));
}

// True when the grammar matches all of `input`.
bool Matches(const std::string& grammar_text, const std::string& input) {
  GrammarPtr grammar = Parse(grammar_text);
  if (grammar == nullptr) {
    ADD_FAILURE() << "llama.cpp does not parse the grammar:\n" << grammar_text;
    return false;
  }
  try {
    llama_grammar_accept_str(*grammar, input);
  } catch (const std::runtime_error&) {
    return false;  // no way on
  }
  for (const auto& stack : llama_grammar_get_stacks(grammar.get())) {
    if (stack.empty()) return true;
  }
  return false;
}

// Checks every text of `good` is matched and none of `bad`.
void ExpectLanguage(const std::string& grammar, const std::vector<std::string>& good,
                    const std::vector<std::string>& bad) {
  ASSERT_NE(Parse(grammar), nullptr) << grammar;
  for (const std::string& text : good)
    EXPECT_TRUE(Matches(grammar, text)) << "should match: " << text << "\n" << grammar;
  for (const std::string& text : bad)
    EXPECT_FALSE(Matches(grammar, text)) << "should not match: " << text << "\n" << grammar;
}

std::string SchemaGrammar(std::string_view schema, const GbnfOptions& options = {},
                          std::vector<std::string>* loosened = nullptr) {
  auto ir = constrain::CompileSchema(schema);
  if (!ir) {
    ADD_FAILURE() << ir.error().message();
    return "";
  }
  GbnfWriter writer("j-");
  const std::string root = writer.AddSchema(*ir, options);
  if (loosened != nullptr) *loosened = writer.loosened();
  return writer.Text(root);
}

TEST(GbnfLlamaTest, NestedObjectWithEveryOptionalSubset) {
  const std::string grammar = SchemaGrammar(R"({
    "type": "object",
    "properties": {
      "a": {"type": "integer"},
      "b": {"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"],
            "additionalProperties": false},
      "c": {"type": "boolean"},
      "d": {"type": "null"}
    },
    "required": ["b"],
    "additionalProperties": false
  })");
  const std::vector<std::pair<std::string, std::string>> members = {
      {"a", "-12"}, {"b", R"({"x": "y"})"}, {"c", "true"}, {"d", "null"}};
  for (int subset = 0; subset < 16; ++subset) {
    std::string text = "{";
    bool first = true;
    for (int i = 0; i < 4; ++i) {
      if ((subset & (1 << i)) == 0) continue;
      if (!first) text += ", ";
      first = false;
      text += "\"" + members[i].first + "\": " + members[i].second;
    }
    text += "}";
    const bool has_b = (subset & 2) != 0;
    EXPECT_EQ(Matches(grammar, text), has_b) << text;
  }
  ExpectLanguage(grammar,
                 {R"({"b":{"x":""}})", "{\n  \"b\": {\"x\": \"\\u00e9\"},\n  \"c\": false\n}"},
                 {R"({"b": {"x": "y"},})", R"({, "b": {"x": "y"}})", R"({"b": {}})",
                  R"({"b": {"x": "y"}, "e": 1})", R"({"c": true, "b": {"x": "y"}})",
                  R"( {"b": {"x": "y"}})", R"({"b": {"x": "y"}} )", R"({"b": {"x": 1}})"});
}

TEST(GbnfLlamaTest, OpenAndStrictObjects) {
  const std::string schema =
      R"({"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]})";
  const std::string open = SchemaGrammar(schema);
  ExpectLanguage(open, {R"({"a": 1})", R"({"a": 1, "zz": [1, {"k": null}]})"},
                 {R"({"zz": 1})", R"({"a": "x"})"});
  GbnfOptions strict;
  strict.strict_objects = true;
  ExpectLanguage(SchemaGrammar(schema, strict), {R"({"a": 1})"}, {R"({"a": 1, "zz": 1})"});
  const std::string extra = SchemaGrammar(
      R"({"type": "object", "properties": {"a": {"type": "integer"}},
          "additionalProperties": {"type": "string"}})");
  ExpectLanguage(extra, {"{}", R"({"q": "x"})", R"({"a": 1, "q": "x", "r": ""})"},
                 {R"({"q": 1})", R"({"q": "x", "a": 1})"});
}

TEST(GbnfLlamaTest, ArraysWithBounds) {
  ExpectLanguage(SchemaGrammar(R"({"type": "array", "items": {"type": "integer"}, "minItems": 2,
                        "maxItems": 4})"),
                 {"[1, 2]", "[1,2,3]", "[ 1 , 2 , 3 , 4 ]"},
                 {"[]", "[1]", "[1, 2, 3, 4, 5]", "[1, 2,]"});
  ExpectLanguage(SchemaGrammar(R"({"type": "array", "prefixItems": [{"type": "string"},
                                   {"type": "boolean"}], "items": false, "minItems": 1})"),
                 {R"(["a"])", R"(["a", true])"}, {"[]", "[1]", R"(["a", true, 1])", R"([true])"});
  ExpectLanguage(SchemaGrammar(R"({"type": "array", "prefixItems": [{"type": "string"}],
                                   "items": {"type": "integer"}, "maxItems": 3})"),
                 {"[]", R"(["a"])", R"(["a", 1, 2])"},
                 {R"([1])", R"(["a", "b"])", R"(["a", 1, 2, 3])"});
  ExpectLanguage(SchemaGrammar(R"({"type": "array", "maxItems": 0})"), {"[]", "[ ]"}, {"[1]"});
}

TEST(GbnfLlamaTest, EnumsConstsAndTypes) {
  ExpectLanguage(SchemaGrammar(R"({"enum": ["a", 1, null, {"k": [1, 2]}, "é\"\\"]})"),
                 {R"("a")", "1", "null", R"({"k":[1,2]})", R"("é\"\\")"},
                 {R"("b")", "2", R"({"k": [1, 2]})", "true"});
  ExpectLanguage(SchemaGrammar(R"({"type": "string", "enum": ["a", 1], "maxLength": 3})"),
                 {R"("a")"}, {"1"});
  ExpectLanguage(SchemaGrammar(R"({"const": "x"})"), {R"("x")"}, {R"("y")"});
  ExpectLanguage(SchemaGrammar(R"({"type": ["integer", "null"]})"), {"0", "-7", "null"},
                 {"1.5", "01", "\"1\"", "-"});
  ExpectLanguage(SchemaGrammar(R"({"type": "number", "minimum": 0})"),
                 {"0", "1.5", "2e10", "0.25E-3"}, {"-1", ".5", "1.", "+1"});
  ExpectLanguage(SchemaGrammar(R"({"type": "integer", "exclusiveMinimum": 0})"), {"1", "30"},
                 {"0", "-1"});
}

// Every integer of a window around the bounds: matched exactly when within them.
void ExpectIntegers(std::string_view schema, int64_t low, int64_t high, int64_t from, int64_t to) {
  const std::string grammar = SchemaGrammar(schema);
  ASSERT_NE(Parse(grammar), nullptr) << grammar;
  for (int64_t value = from; value <= to; ++value) {
    EXPECT_EQ(Matches(grammar, std::to_string(value)), value >= low && value <= high)
        << value << " in " << schema << "\n"
        << grammar;
  }
}

TEST(GbnfLlamaTest, IntegerRangesAreExact) {
  ExpectIntegers(R"({"type": "integer", "minimum": -15, "maximum": 130})", -15, 130, -250, 300);
  ExpectIntegers(R"({"type": "integer", "minimum": 95})", 95, INT64_MAX, -20, 1200);
  ExpectIntegers(R"({"type": "integer", "maximum": -5})", INT64_MIN, -5, -1200, 20);
  ExpectIntegers(R"({"type": "integer", "exclusiveMinimum": -1.5, "exclusiveMaximum": 1000})", -1,
                 999, -30, 1030);
  ExpectIntegers(R"({"type": "integer", "minimum": 1000, "maximum": 1000})", 1000, 1000, 900, 1100);
  ExpectIntegers(R"({"type": "integer", "minimum": 123456789012, "maximum": 123456790099})",
                 123456789012, 123456790099, 123456788990, 123456790120);
  const std::string grammar =
      SchemaGrammar(R"({"type": "integer", "minimum": -15, "maximum": 130})");
  ExpectLanguage(grammar, {"0", "-9", "99"}, {"-0", "007", "+5", "1.0", "1e1", "-", ""});
  ExpectLanguage(SchemaGrammar(R"({"type": "integer", "minimum": 7})"),
                 {"7", "1000000000000000000000000"}, {"6", "-1000000000000000000000000"});
  ExpectLanguage(SchemaGrammar(R"({"type": "integer", "minimum": 9223372036854775807})"),
                 {"9223372036854775807", "19223372036854775807"}, {"9223372036854775806"});
}

TEST(GbnfLlamaTest, StringsEscapesAndLengths) {
  ExpectLanguage(SchemaGrammar(R"({"type": "string"})"),
                 {R"("")", R"("a\"b\\c\/\n\t\u00e9")", R"("😀")", R"("\ud83d\ude00")"},
                 {"\"a\nb\"", R"("\x")", R"("\ud83d")", R"("\ud83dx")", R"("abc)"});
  ExpectLanguage(SchemaGrammar(R"({"type": "string", "minLength": 2, "maxLength": 3})"),
                 {R"("ab")", R"("abc")", R"("éé")", R"("\u00e9\n")", R"("😀😀😀")"},
                 {R"("a")", R"("abcd")", R"("é")"});
}

TEST(GbnfLlamaTest, AnyOfAndRecursiveRef) {
  ExpectLanguage(SchemaGrammar(R"({"anyOf": [{"type": "string", "maxLength": 3},
                                             {"type": "integer", "minimum": 0}]})"),
                 {R"("abc")", "5", "0"}, {R"("abcd")", "-1", "1.5", "null"});
  const std::string tree = SchemaGrammar(R"({
    "$defs": {"node": {"type": "object", "properties": {
      "value": {"type": "integer"},
      "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}},
      "required": ["value"], "additionalProperties": false}},
    "$ref": "#/$defs/node"
  })");
  ExpectLanguage(tree,
                 {R"({"value": 1})", R"({"value": 1, "children": []})",
                  R"({"value": 1, "children": [{"value": 2, "children": [{"value": 3}]}]})"},
                 {R"({"value": 1, "children": [{}]})",
                  R"({"value": 1, "children": [{"value": "x"}]})", R"({"children": []})"});
}

TEST(GbnfLlamaTest, WhitespaceIsBounded) {
  GbnfOptions options;
  options.max_whitespace = 2;
  const std::string grammar = SchemaGrammar(R"({"type": "object"})", options);
  ExpectLanguage(grammar, {"{}", "{ }", "{\n \"a\" :\t[ 1 ,2 ] }", R"({"a":{"b":[]}})"},
                 {"{   }", " {}", "{} ", "{\"a\":   1}"});
  options.max_whitespace = 0;
  ExpectLanguage(SchemaGrammar(R"({"type": "array"})", options), {"[1,2]"}, {"[1, 2]"});
}

TEST(GbnfLlamaTest, LoosenedKeywordsAdmitASuperset) {
  std::vector<std::string> loosened;
  const std::string grammar = SchemaGrammar(
      R"({"type": "object", "properties": {"a": {"type": "string", "pattern": "^x+$"}},
          "required": ["a"], "additionalProperties": false})",
      {}, &loosened);
  EXPECT_EQ(loosened, std::vector<std::string>{"pattern at /properties/a"});
  ExpectLanguage(grammar, {R"({"a": "xx"})", R"({"a": "yy"})"}, {R"({"a": 1})"});
}

TEST(GbnfLlamaTest, TextUntilMarker) {
  GbnfWriter writer("t-");
  const std::string until = writer.AddTextUntil("aab");
  ExpectLanguage(writer.Text(until), {"aab", "aaab", "aaaab", "xaab", "abaab", "ba\naab"},
                 {"", "aa", "aaba", "aabaab", "aabx", "ab"});
  const std::string periodic = writer.AddTextUntil("abab");
  ExpectLanguage(writer.Text(periodic), {"abab", "aabab", "abaabab", "bbabab"},
                 {"ababab", "abababab", "aba", "ababa"});
  const std::string without = writer.AddTextWithout("aab");
  ExpectLanguage(writer.Text(without), {"", "a", "aa", "aaa", "aba", "ba", "b\"]\\"},
                 {"aab", "xaab", "aabx", "aaab"});
  const std::string deepseek = writer.AddTextUntil("<｜tool▁calls▁begin｜>");
  ExpectLanguage(writer.Text(deepseek),
                 {"<｜tool▁calls▁begin｜>", "Sure <｜tool▁<｜tool▁calls▁begin｜>",
                  "é😀<<｜tool▁calls▁begin｜>"},
                 {"", "<｜tool▁calls▁begin｜>x", "<｜tool▁calls▁end｜>",
                  "<｜tool▁calls▁begin｜><｜tool▁calls▁begin｜>"});
  // A raw value before "\n</p>": trimmed, never holding the marker, ending where the end's
  // marker is.
  const std::string value =
      writer.AddText({.marker = "</p>", .end = "\n</p>\n", .excluded = "", .trimmed = true});
  ExpectLanguage(writer.Text(value), {"\n</p>\n", "x\n</p>\n", "a b\nc\n</p>\n", "<\n</p>\n"},
                 {" x\n</p>\n", "x \n</p>\n", "x\n\n</p>\n", "a</p>\n</p>\n", "x</p>\n"});
}

// The tools of the family tests: a closed object with bounds, an open one, and one without
// parameters.
std::vector<parse::ToolSpec> Tools() {
  std::vector<parse::ToolSpec> tools;
  tools.push_back(*parse::MakeToolSpec("get_weather", "", R"({
    "type": "object",
    "properties": {
      "city": {"type": "string"},
      "unit": {"enum": ["celsius", "fahrenheit"]},
      "days": {"type": "integer", "minimum": 1}
    },
    "required": ["city"],
    "additionalProperties": false})"));
  tools.push_back(*parse::MakeToolSpec("search", "", R"({
    "type": "object",
    "properties": {"query": {"type": "string"}, "tags": {"type": "array",
                   "items": {"type": "string"}}},
    "required": ["query"]})"));
  tools.push_back(*parse::MakeToolSpec(
      "ping", "", R"({"type": "object", "properties": {}, "additionalProperties": false})"));
  return tools;
}

const parse::CallGrammar& Family(std::string_view name) {
  const parse::ToolParserInfo* info = parse::FindParserInfo(parse::ToolParsers(), name);
  if (info == nullptr || info->grammar == nullptr) throw std::runtime_error("no family");
  return *info->grammar;
}

std::string BlockGrammar(const parse::CallGrammar& family,
                         const logits::ToolCallGbnfOptions& options = {}) {
  GbnfWriter writer("tc-");
  auto block = logits::AddToolCallBlock(writer, family, Tools(), options);
  if (!block) {
    ADD_FAILURE() << block.error().message();
    return "";
  }
  return writer.Text(*block);
}

const std::vector<parse::ToolCall> kWeatherCall = {
    {"", "get_weather", R"({"city": "Paris", "unit": "celsius", "days": 3})"}};
const std::vector<parse::ToolCall> kTwoCalls = {
    {"", "search", R"({"query": "crux <tags> & more", "tags": ["a", "b"]})"},
    {"", "get_weather", R"({"city": "Oslo"})"}};
const std::vector<parse::ToolCall> kPing = {{"", "ping", "{}"}};

// Blocks the renderer writes are matched; blocks a model must not write are not.
void ExpectFamily(std::string_view name, const std::vector<std::string>& bad) {
  const parse::CallGrammar& family = Family(name);
  const std::string grammar = BlockGrammar(family);
  ExpectLanguage(grammar,
                 {parse::RenderToolCalls(family, kWeatherCall),
                  parse::RenderToolCalls(family, kTwoCalls), parse::RenderToolCalls(family, kPing)},
                 bad);
  // Unknown tools, another tool's arguments, a missing required argument, no call at all.
  ExpectLanguage(grammar, {},
                 {parse::RenderToolCalls(family, {{"", "get_time", R"({"city": "Paris"})"}}),
                  parse::RenderToolCalls(family, {{"", "ping", R"({"city": "Paris"})"}}),
                  parse::RenderToolCalls(family, {{"", "get_weather", R"({"unit": "celsius"})"}}),
                  parse::RenderToolCalls(family, {}), ""});
  logits::ToolCallGbnfOptions single;
  single.parallel = false;
  single.forced_tool = "get_weather";
  ExpectLanguage(
      BlockGrammar(family, single), {parse::RenderToolCalls(family, kWeatherCall)},
      {parse::RenderToolCalls(family, kTwoCalls), parse::RenderToolCalls(family, kPing)});
}

TEST(GbnfLlamaTest, HermesBlocks) {
  ExpectFamily(
      "hermes",
      {"<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": 1}}\n</tool_call>",
       "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"P\", "
       "\"unit\": \"kelvin\"}}\n</tool_call>",
       "<tool_call>\n{\"name\": \"ping\", \"arguments\": {}}\n</tool_call>\n"});
}

TEST(GbnfLlamaTest, MistralBlocks) {
  ExpectFamily("mistral", {"[TOOL_CALLS]get_weather[ARGS]{\"city\": \"P\", \"days\": 0}",
                           "[TOOL_CALLS]get_weather{\"city\": \"P\"}", "[TOOL_CALLS]ping[ARGS]"});
}

TEST(GbnfLlamaTest, Qwen3CoderKeyValueBlocks) {
  const std::string head = "<tool_call>\n<function=get_weather>\n";
  const std::string tail = "</function>\n</tool_call>";
  ExpectFamily(
      "qwen3_coder",
      {head + "<parameter=city>\n Paris\n</parameter>\n" + tail,
       head + "<parameter=city>\nParis \n</parameter>\n" + tail,
       head + "<parameter=city>\nParis\n</parameter>\n<parameter=days>\nthree\n</parameter>\n" +
           tail,
       head + "<parameter=city>\nParis\n</parameter>\n<parameter=wind>\n1\n</parameter>\n" + tail,
       head + "<parameter=city>\nP</parameter>aris\n</parameter>\n" + tail});
  ExpectLanguage(BlockGrammar(Family("qwen3_coder")),
                 {head + "<parameter=city>\nLine 1\n\nLine <2> & </param\n</parameter>\n" + tail,
                  head + "<parameter=city>\n\n</parameter>\n" + tail},
                 {});
}

TEST(GbnfLlamaTest, DeepSeekBlocks) {
  ExpectFamily("deepseek", {"<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>"
                            "get_weather\n```json\n{\"city\": \"P\"}\n```<｜tool▁call▁end｜>"});
}

// Every family whose arguments a grammar follows: what its renderer writes is matched, and a
// block cut short is not.
TEST(GbnfLlamaTest, EveryFamilyMatchesItsRenderedBlocks) {
  int families = 0;
  for (const parse::ToolParserInfo& info : parse::ToolParsers()) {
    if (info.grammar == nullptr) continue;
    const parse::CallGrammar& family = *info.grammar;
    GbnfWriter writer("f-");
    auto block = logits::AddToolCallBlock(writer, family, Tools());
    if (family.args == parse::CallGrammar::Args::kPythonKeywords ||
        family.args == parse::CallGrammar::Args::kCustom) {
      ASSERT_FALSE(block) << info.name;
      EXPECT_EQ(block.error().code(), ErrorCode::kUnsupported) << info.name;
      continue;
    }
    ASSERT_TRUE(block) << info.name << ": " << block.error().message();
    ++families;
    const std::string grammar = writer.Text(*block);
    for (const auto* calls : {&kWeatherCall, &kTwoCalls, &kPing}) {
      const std::string text = parse::RenderToolCalls(family, *calls);
      EXPECT_TRUE(Matches(grammar, text)) << info.name << " should match:\n"
                                          << text << "\n"
                                          << grammar;
      EXPECT_FALSE(Matches(grammar, text.substr(0, text.size() - 1))) << info.name << ": " << text;
    }
  }
  EXPECT_GT(families, 30);
}

}  // namespace
}  // namespace crux::engine
