#include "crux/parse/chain.h"

#include <gtest/gtest.h>

#include "crux/parse/reasoning/registry.h"
#include "crux/parse/tools/registry.h"

namespace crux::parse {
namespace {

TEST(FindChannelFormat, EitherNameSelectsTheFormat) {
  ASSERT_NE(FindChannelFormat("harmony", ""), nullptr);
  EXPECT_EQ(FindChannelFormat("harmony", "")->name, "harmony");
  EXPECT_EQ(FindChannelFormat("gpt-oss", "")->name, "harmony");
  EXPECT_EQ(FindChannelFormat("", "gpt_oss")->name, "harmony");
  EXPECT_EQ(FindChannelFormat("atem", "")->name, "muse_glimmer");
  EXPECT_EQ(FindChannelFormat("qwen3", "muse")->name, "muse_glimmer");
  EXPECT_EQ(FindChannelFormat("harmony", "auto")->name, "harmony");
  EXPECT_EQ(FindChannelFormat("harmony", "muse_glimmer")->name, "muse_glimmer");  // tool name wins
}

// Every reasoning row of a channel format names a tool row flagged `channel`, and every such
// tool row can be chosen from the reasoning flag too.
TEST(FindChannelFormat, RegistriesAgreeOnChannelFormats) {
  for (const ReasoningParserInfo& info : ReasoningParsers()) {
    if (info.channel_parser.empty()) continue;
    const ToolParserInfo* tools = FindParserInfo(ToolParsers(), info.channel_parser);
    ASSERT_NE(tools, nullptr) << info.name;
    EXPECT_TRUE(tools->channel) << info.name;
  }
  for (const ToolParserInfo& info : ToolParsers()) {
    if (!info.channel) continue;
    const ReasoningParserInfo* reasoning = FindParserInfo(ReasoningParsers(), info.name);
    ASSERT_NE(reasoning, nullptr) << info.name;
    EXPECT_EQ(reasoning->channel_parser, info.name);
  }
}

TEST(FindChannelFormat, SplitFamiliesAndUnknownNamesSelectNothing) {
  EXPECT_EQ(FindChannelFormat("", ""), nullptr);
  EXPECT_EQ(FindChannelFormat("qwen3", "hermes"), nullptr);
  EXPECT_EQ(FindChannelFormat("gemma4", "gemma4"), nullptr);
  EXPECT_EQ(FindChannelFormat("nope", "nope"), nullptr);
}

// The raw framing of a gpt-oss tool call, which a reasoning parser alone used to leave in
// content.
constexpr const char* kCall =
    "<|channel|>commentary to=functions.search<|constrain|>json<|message|>{\"q\":\"x\"}<|call|>";

TEST(CreateOutputParser, AChannelFormatRunsAloneWhicheverNameChoseIt) {
  for (const auto& [reasoning, tools] : std::vector<std::pair<std::string, std::string>>{
           {"harmony", ""}, {"", "harmony"}, {"gpt_oss", "harmony"}, {"harmony", "hermes"}}) {
    ParserChainOptions options{reasoning, tools, {}, {}};
    auto parser = CreateOutputParser(options);
    ASSERT_TRUE(parser.ok()) << parser.error().message();
    EXPECT_FALSE((*parser)->has_reasoning_parser()) << reasoning << " + " << tools;
    const ParseResult result = ParseComplete(**parser, kCall);
    EXPECT_FALSE(result.content.has_value()) << reasoning << " + " << tools;
    ASSERT_EQ(result.tool_calls.size(), 1u) << reasoning << " + " << tools;
    EXPECT_EQ(result.tool_calls[0].name, "search");
  }
}

TEST(CreateOutputParser, SplitFamiliesKeepBothStages) {
  auto parser = CreateOutputParser({"qwen3", "hermes", {}, {}});
  ASSERT_TRUE(parser.ok());
  EXPECT_TRUE((*parser)->has_reasoning_parser());
  EXPECT_TRUE((*parser)->has_tool_parser());
  auto none = CreateOutputParser({});
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(ParseComplete(**none, "a <think>b").content, "a <think>b");
}

TEST(CreateOutputParser, UnknownNamesAreErrorsEvenBesideAChannelFormat) {
  auto bad_tools = CreateOutputParser({"harmony", "nope", {}, {}});
  ASSERT_FALSE(bad_tools.ok());
  EXPECT_EQ(bad_tools.error().code(), ErrorCode::kNotFound);
  EXPECT_NE(bad_tools.error().message().find("unknown tool-call parser 'nope'"), std::string::npos);
  auto bad_reasoning = CreateOutputParser({"qwen9", "harmony", {}, {}});
  ASSERT_FALSE(bad_reasoning.ok());
  EXPECT_NE(bad_reasoning.error().message().find("unknown reasoning parser 'qwen9'"),
            std::string::npos);
}

// A channel format's reasoning row, used on its own, still keeps the framing out of content.
TEST(ChannelReasoningRows, EmitTheFormatsCalls) {
  for (const char* name : {"harmony", "gpt_oss", "openai_harmony"}) {
    auto parser = CreateReasoningParser(name);
    ASSERT_TRUE(parser.ok()) << name;
    const ParseResult result = ParseComplete(**parser, kCall);
    EXPECT_FALSE(result.content.has_value()) << name;
    EXPECT_EQ(result.tool_calls.size(), 1u) << name;
  }
  auto muse = CreateReasoningParser("muse_glimmer");
  ASSERT_TRUE(muse.ok());
  const ParseResult result = ParseComplete(
      **muse, " to=self<|message|>Plan.<|eom|><|start|>assistant to=user<|message|>Hi.<|eot|>");
  EXPECT_EQ(result.reasoning, "Plan.");
  EXPECT_EQ(result.content, "Hi.");
}

}  // namespace
}  // namespace crux::parse
