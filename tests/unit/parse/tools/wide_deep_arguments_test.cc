// Every tool-call family carries arguments of any depth and width intact: calls with
// 100,000-level arrays and objects and 30,000 members are written in the family's own syntax
// (its renderer: JSON, Python or Gemma literals, XML parameters, nested XML), parsed back
// complete and in chunks, and the arguments come out equal. Families that re-encode
// arguments are compared after compaction; everything is compared as text, since a tree of
// that depth cannot be compared or dumped by nlohmann without recursing.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "crux/parse/output_parser.h"
#include "crux/parse/tools/registry.h"
#include "crux/text/json_text.h"
#include "support/stream_check.h"

namespace crux::parse {
namespace {

constexpr int kDepth = 100'000;
constexpr int kWidth = 30'000;

std::string DeepArray() {
  return R"({"a": )" + std::string(kDepth, '[') + "1" + std::string(kDepth, ']') + "}";
}

std::string DeepObject() {
  std::string args = R"({"a": )";
  for (int i = 0; i < kDepth; ++i)
    args += R"({"k": )";
  args += R"({"x": 1})";
  return args + std::string(kDepth + 1, '}');
}

std::string WideObject() {
  std::string args = "{";
  for (int i = 0; i < kWidth; ++i) {
    if (i > 0) args += ", ";
    args += "\"k" + std::to_string(i) + "\": \"v" + std::to_string(i) + "\"";
  }
  return args + "}";
}

std::string Compact(const std::string& json) {
  std::string out;
  EXPECT_TRUE(text::AppendCompactJson(out, json)) << json.substr(0, 200);
  return out;
}

// `a` typed by the schema, so that families keeping untyped values as text (qwen3_xml)
// decode it as JSON.
ToolParserOptions Options(const char* a_type) {
  ToolParserOptions options;
  options.tools = {*MakeToolSpec(
      "f", "", std::string(R"({"type":"object","properties":{"a":{"type":")") + a_type + "\"}}}")};
  options.id_seed = 5;
  return options;
}

// Renders one call with `args` in the family's syntax and parses it back.
void ExpectRoundTrip(std::string_view family, const std::string& args,
                     const ToolParserOptions& options, bool chunked) {
  const ToolParserInfo* info = FindParserInfo(ToolParsers(), family);
  ASSERT_NE(info, nullptr);
  ASSERT_NE(info->grammar, nullptr);
  const std::string text = RenderToolCalls(*info->grammar, {ToolCall{"", "f", args, true}});
  auto parser = std::move(*CreateToolParser(family, options));
  const ParseResult complete = ParseComplete(*parser, text);
  ASSERT_EQ(complete.tool_calls.size(), 1u) << family << ": " << text.substr(0, 300);
  EXPECT_EQ(complete.tool_calls[0].name, "f");
  EXPECT_TRUE(Compact(complete.tool_calls[0].arguments) == Compact(args))
      << family << " changed the arguments: " << complete.tool_calls[0].arguments.substr(0, 200);
  if (!chunked) return;
  std::vector<std::string> chunks;
  for (size_t pos = 0; pos < text.size(); pos += 8191)
    chunks.push_back(text.substr(pos, 8191));
  const auto streamed = testing::RunChunked(*parser, chunks, {}, true);
  EXPECT_EQ(testing::CompareResults(streamed.result, complete), "") << family;
}

std::vector<std::string> FamiliesWithRenderers() {
  std::vector<std::string> names;
  for (const ToolParserInfo& info : ToolParsers()) {
    if (info.grammar != nullptr) names.emplace_back(info.name);
  }
  return names;
}

class WideDeepArguments : public ::testing::TestWithParam<std::string> {};

TEST_P(WideDeepArguments, DeepArrays) {
  ExpectRoundTrip(GetParam(), DeepArray(), Options("array"), /*chunked=*/true);
}

TEST_P(WideDeepArguments, DeepObjects) {
  ExpectRoundTrip(GetParam(), DeepObject(), Options("object"), /*chunked=*/false);
}

TEST_P(WideDeepArguments, WideObjects) {
  ExpectRoundTrip(GetParam(), WideObject(), Options("string"), /*chunked=*/false);
}

INSTANTIATE_TEST_SUITE_P(EveryFamily, WideDeepArguments,
                         ::testing::ValuesIn(FamiliesWithRenderers()),
                         [](const auto& param_info) { return param_info.param; });

TEST(WideDeepArguments, AutoHandsDeepCallsToTheFamily) {
  const std::string args = DeepArray();
  const std::string text =
      RenderToolCalls(*FindParserInfo(ToolParsers(), "hermes")->grammar, {{"", "f", args}});
  auto parser = std::move(*CreateToolParser("auto", Options("array")));
  const ParseResult result = ParseComplete(*parser, text);
  ASSERT_EQ(result.tool_calls.size(), 1u);
  EXPECT_TRUE(result.tool_calls[0].arguments == args);
}

TEST(WideDeepArguments, EveryFamilyIsCovered) {
  // Only `auto` has no syntax of its own (it delegates, as tested above).
  EXPECT_EQ(FamiliesWithRenderers().size() + 1, ToolParsers().size());
}

}  // namespace
}  // namespace crux::parse
