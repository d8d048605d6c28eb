// AddToolCallBlock's rules and errors: one call alternative per tool (its name beside its own
// arguments), the forced tool alone, the call index, the value spellings of key-value formats,
// and what it loosens, naming the tool. Texts matched and refused by llama.cpp's parser are
// in tests/unit/engine/llama/gbnf_llama_test.cc.
#include "crux/logits/gbnf_tools.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "crux/parse/registry.h"
#include "crux/parse/tools/registry.h"

namespace crux::logits {
namespace {

const parse::CallGrammar& Family(std::string_view name) {
  const parse::ToolParserInfo* info = parse::FindParserInfo(parse::ToolParsers(), name);
  EXPECT_TRUE(info != nullptr && info->grammar != nullptr) << name;
  return *info->grammar;
}

parse::ToolSpec Tool(std::string name, std::string schema) {
  auto spec = parse::MakeToolSpec(std::move(name), "", std::move(schema));
  EXPECT_TRUE(spec) << (spec ? "" : spec.error().message());
  return *std::move(spec);
}

std::vector<parse::ToolSpec> Tools() {
  return {Tool("get_weather", R"({"type": "object", "properties": {"city": {"type": "string"},
                  "metric": {"type": "boolean"}}, "required": ["city"]})"),
          Tool("count", R"({"type": "object", "properties": {"n": {"type": "integer"}}})")};
}

struct Block {
  std::string text;
  std::vector<std::string> loosened;
};

Block Write(std::string_view family, const std::vector<parse::ToolSpec>& tools,
            const ToolCallGbnfOptions& options = {}) {
  constrain::GbnfWriter writer;
  auto block = AddToolCallBlock(writer, Family(family), tools, options);
  EXPECT_TRUE(block) << (block ? "" : block.error().message());
  if (!block) return {};
  return {writer.Text(*block), writer.loosened()};
}

// The body of rule `name` in a grammar text.
std::string Body(const std::string& text, const std::string& name) {
  const size_t at = text.find("\n" + name + " ::= ");
  if (at == std::string::npos) return "";
  const size_t start = at + name.size() + 6;
  return text.substr(start, text.find('\n', start) - start);
}

TEST(GbnfToolsTest, EachToolsNameComesWithItsOwnArguments) {
  const Block block = Write("hermes", Tools());
  EXPECT_EQ(Body(block.text, "tool-call"), "call-get-weather | call-count") << block.text;
  const std::string weather = Body(block.text, "call-get-weather");
  EXPECT_EQ(weather.rfind(R"("<tool_call>\n{\"name\": \"get_weather\", \"arguments\": ")", 0), 0u)
      << weather;
  EXPECT_NE(Body(block.text, "call-count").find(R"(\"count\")"), std::string::npos);
  EXPECT_EQ(Body(block.text, "tool-calls"), R"(tool-call ( "\n" tool-call )*)");
  ToolCallGbnfOptions forced;
  forced.forced_tool = "count";
  forced.parallel = false;
  const Block one = Write("hermes", Tools(), forced);
  EXPECT_EQ(Body(one.text, "tool-call"), "call-count");
  EXPECT_EQ(Body(one.text, "tool-calls"), "tool-call");
  EXPECT_EQ(one.text.find("get_weather"), std::string::npos);
}

TEST(GbnfToolsTest, CallIndexIsExactForOneCall) {
  const Block parallel = Write("kimi_k3", Tools());
  EXPECT_NE(std::find(parallel.loosened.begin(), parallel.loosened.end(), "call index: any digits"),
            parallel.loosened.end());
  EXPECT_NE(parallel.text.find("index=\\\"\" [0-9]+ \"\\\""), std::string::npos) << parallel.text;
  ToolCallGbnfOptions single;
  single.parallel = false;
  const Block one = Write("kimi_k3", Tools(), single);
  EXPECT_TRUE(one.loosened.empty()) << one.loosened.front();
  EXPECT_NE(one.text.find("index=\\\"1\\\""), std::string::npos) << one.text;
}

TEST(GbnfToolsTest, KeyValueValuesFollowTheirTypes) {
  // qwen3_coder writes scalars as Python does: True, False, None beside JSON's spellings.
  const Block qwen = Write("qwen3_coder", Tools());
  const std::string metric = Body(qwen.text, "arg-get-weather-metric");
  EXPECT_NE(metric.find(R"("True" | "False")"), std::string::npos) << metric;
  EXPECT_EQ(Body(qwen.text, "arg-count-n").find("True"), std::string::npos);
  // The string parameter is raw text up to "\n</parameter>\n".
  const std::string city = Body(qwen.text, "arg-get-weather-city");
  EXPECT_EQ(city.rfind(R"("<parameter=city>\n" text)", 0), 0u) << city;
  // kimi_k3 announces each value's type: one alternative per type word.
  const Block kimi = Write("kimi_k3", Tools());
  const std::string n = Body(kimi.text, "arg-count-n");
  EXPECT_NE(n.find(R"(type=\"integer\")"), std::string::npos) << n;
  EXPECT_NE(n.find(R"(type=\"number\")"), std::string::npos) << n;
  EXPECT_EQ(n.find(R"(type=\"string\")"), std::string::npos) << n;
  // deepseek_v32 says whether it is a string.
  const Block dsml = Write("deepseek_v32", Tools());
  EXPECT_NE(Body(dsml.text, "arg-get-weather-city").find(R"(string=\"true\")"), std::string::npos);
  EXPECT_NE(Body(dsml.text, "arg-count-n").find(R"(string=\"false\")"), std::string::npos);
}

TEST(GbnfToolsTest, LoosenedPartsNameTheTool) {
  const std::vector<parse::ToolSpec> tools = {
      Tool("lookup", R"({"type": "object", "properties": {"id": {"type": "string",
              "pattern": "^[0-9]+$", "maxLength": 10}}, "required": ["id"],
              "additionalProperties": false})")};
  EXPECT_EQ(Write("hermes", tools).loosened,
            std::vector<std::string>{"pattern at /properties/id (tool 'lookup')"});
  EXPECT_EQ(Write("qwen3_coder", tools).loosened,
            (std::vector<std::string>{"maxLength of parameter 'id' (tool 'lookup')",
                                      "pattern of parameter 'id' (tool 'lookup')"}));
  // minicpm5 writes Python literals for values that are not strings: raw text.
  const Block python = Write("minicpm5", Tools());
  EXPECT_NE(std::find(python.loosened.begin(), python.loosened.end(),
                      "Python literal value of parameter 'n' (tool 'count'): raw text"),
            python.loosened.end());
  EXPECT_NE(python.text.find(R"("<![CDATA[")"), std::string::npos);
}

TEST(GbnfToolsTest, Errors) {
  constrain::GbnfWriter writer;
  auto pythonic = AddToolCallBlock(writer, Family("pythonic"), Tools());
  ASSERT_FALSE(pythonic);
  EXPECT_EQ(pythonic.error().code(), ErrorCode::kUnsupported);
  auto none = AddToolCallBlock(writer, Family("hermes"), {});
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().code(), ErrorCode::kInvalidArgument);
  ToolCallGbnfOptions forced;
  forced.forced_tool = "nope";
  auto unknown = AddToolCallBlock(writer, Family("hermes"), Tools(), forced);
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(unknown.error().message().find("'nope'"), std::string::npos);
  parse::ToolSpec bad = Tool("bad", "{}");
  bad.parameters_json = R"({"type": "object", "properties": {"a": {"$ref": "#/nowhere"}}})";
  auto schema = AddToolCallBlock(writer, Family("hermes"), {bad});
  ASSERT_FALSE(schema);
  EXPECT_EQ(schema.error().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(schema.error().message().find("tool 'bad'"), std::string::npos)
      << schema.error().message();
  auto undeclared =
      AddToolCallBlock(writer, Family("qwen3_coder"),
                       {Tool("f", R"({"type": "object", "properties": {}, "required": ["x"]})")});
  ASSERT_FALSE(undeclared);
  EXPECT_EQ(undeclared.error().code(), ErrorCode::kUnsupported);
  parse::ToolSpec web = Tool("web", "{}");
  web.type = "web_search";
  EXPECT_FALSE(AddToolCallBlock(writer, Family("hermes"), {web}));
}

}  // namespace
}  // namespace crux::logits
