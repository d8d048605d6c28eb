// OutputParser: what it reports for metrics (lone reasoning end markers, promoted tool calls)
// and when promotion runs. The text it produces is covered by the fixtures
// (tests/fixtures/reasoning/*.json, tests/fixtures/tools/promotion.json).
#include "crux/parse/output_parser.h"

#include <gtest/gtest.h>

#include <string>

#include "crux/parse/reasoning/registry.h"
#include "crux/parse/tools/registry.h"

namespace crux::parse {
namespace {

constexpr const char* kCallInReasoning =
    "<think>Checking.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {}}\n"
    "</tool_call>\n</think>\nDone.";

std::unique_ptr<OutputParser> Make(const std::string& reasoning, const std::string& tools,
                                   bool promote = true) {
  std::unique_ptr<ReasoningParser> r;
  if (!reasoning.empty()) r = std::move(*CreateReasoningParser(reasoning));
  std::unique_ptr<ToolParser> t;
  std::vector<ToolCallBlock> blocks;
  if (!tools.empty()) {
    t = std::move(*CreateToolParser(tools));
    if (promote) blocks = FindParserInfo(ToolParsers(), tools)->promoted_blocks;
  }
  return std::make_unique<OutputParser>(std::move(r), std::move(t), blocks);
}

TEST(OutputParserStats, CountsLoneEndMarkers) {
  for (const char* family : {"qwen3", "think", "mistral", "gemma4"}) {
    auto parser = Make(family, "");
    const std::string end = std::string(family) == "mistral"  ? "[/THINK]"
                            : std::string(family) == "gemma4" ? "<channel|>"
                                                              : "</think>";
    const ParseResult result = ParseComplete(*parser, "Checked." + end + "It is 3." + end);
    EXPECT_EQ(result.content, "Checked." + end + "It is 3." + end) << family;
    EXPECT_EQ(parser->stats().lone_end_markers, 2) << family;
  }
}

TEST(OutputParserStats, RepeatedCloseIsNotLone) {
  auto parser = Make("qwen3", "");
  ParseComplete(*parser, "<think>r</think></think>c");
  EXPECT_EQ(parser->stats().lone_end_markers, 0);
}

TEST(OutputParserStats, ResetClearsTheCounts) {
  auto parser = Make("qwen3", "hermes");
  ParseComplete(*parser, std::string("x</think>") + kCallInReasoning);
  EXPECT_EQ(parser->stats().lone_end_markers, 1);
  EXPECT_EQ(parser->stats().promoted_tool_calls, 1);
  parser->Reset();
  EXPECT_EQ(parser->stats().lone_end_markers, 0);
  EXPECT_EQ(parser->stats().promoted_tool_calls, 0);
}

TEST(OutputParserPromotion, CountsPromotedBlocks) {
  auto parser = Make("qwen3", "hermes");
  EXPECT_TRUE(parser->promotes_tool_calls());
  const ParseResult result = ParseComplete(*parser, kCallInReasoning);
  ASSERT_EQ(result.tool_calls.size(), 1u);
  EXPECT_EQ(result.reasoning, "Checking.");
  EXPECT_EQ(parser->stats().promoted_tool_calls, 1);
}

// Holding back is limited to what could still be a call: prose after the marker streams.
TEST(OutputParserPromotion, ProseAfterTheMarkerIsNotHeld) {
  auto parser = Make("qwen3", "hermes");
  EventSink sink;
  parser->Feed("<think>I should use <tool_call> to invoke the tool", sink);
  ASSERT_EQ(sink.events().size(), 1u);
  EXPECT_EQ(sink.events()[0].text, "I should use <tool_call> to invoke the tool");
  sink.Clear();
  parser->Feed(" now. <tool_call>\n{\"name\"", sink);
  ASSERT_EQ(sink.events().size(), 1u);
  EXPECT_EQ(sink.events()[0].text, " now.");  // the call's start is held until it closes
}

TEST(OutputParserPromotion, OffWithoutBlocks) {
  auto parser = Make("qwen3", "hermes", /*promote=*/false);
  EXPECT_FALSE(parser->promotes_tool_calls());
  const ParseResult result = ParseComplete(*parser, kCallInReasoning);
  EXPECT_TRUE(result.tool_calls.empty());
  EXPECT_NE(result.reasoning->find("<tool_call>"), std::string::npos);
  EXPECT_EQ(parser->stats().promoted_tool_calls, 0);
}

TEST(OutputParserPromotion, NeedsBothParsers) {
  EXPECT_FALSE(Make("", "hermes")->promotes_tool_calls());
  EXPECT_FALSE(Make("qwen3", "")->promotes_tool_calls());
}

// The families whose models write calls inside reasoning list their block; others none.
TEST(OutputParserPromotion, RegistryRows) {
  for (const char* name : {"hermes", "qwen", "qwen3_xml", "nemotron", "step3p5"}) {
    const ToolParserInfo* info = FindParserInfo(ToolParsers(), name);
    ASSERT_NE(info, nullptr) << name;
    ASSERT_EQ(info->promoted_blocks.size(), 1u) << name;
    EXPECT_EQ(info->promoted_blocks[0].open, "<tool_call>") << name;
    EXPECT_EQ(info->promoted_blocks[0].close, "</tool_call>") << name;
  }
  const ToolParserInfo* minimax = FindParserInfo(ToolParsers(), "minimax");
  ASSERT_NE(minimax, nullptr);
  ASSERT_EQ(minimax->promoted_blocks.size(), 1u);
  EXPECT_EQ(minimax->promoted_blocks[0].open, "<minimax:tool_call>");
  EXPECT_TRUE(FindParserInfo(ToolParsers(), "glm47")->promoted_blocks.empty());
}

}  // namespace
}  // namespace crux::parse
