#include "crux/parse/reasoning/registry.h"

#include <gtest/gtest.h>

#include "crux/parse/output_parser.h"

namespace crux::parse {
namespace {

TEST(ReasoningRegistry, EveryNameAndAliasCreatesAParser) {
  for (const ReasoningParserInfo& info : ReasoningParsers()) {
    EXPECT_TRUE(CreateReasoningParser(info.name).ok()) << info.name;
    for (std::string_view alias : info.aliases) {
      EXPECT_TRUE(CreateReasoningParser(alias).ok()) << alias;
    }
  }
}

TEST(ReasoningRegistry, RequiredNamesExist) {
  for (const char* name : {"think", "qwen3", "deepseek_r1", "glm4", "gemma4", "mistral",
                           "poolside_v1", "harmony", "gpt_oss", "step3p5"}) {
    EXPECT_TRUE(CreateReasoningParser(name).ok()) << name;
  }
}

TEST(ReasoningRegistry, UnknownNameListsAvailableParsers) {
  auto r = CreateReasoningParser("qwen9");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code(), ErrorCode::kNotFound);
  EXPECT_NE(r.error().message().find("unknown reasoning parser 'qwen9'"), std::string::npos);
  EXPECT_NE(r.error().message().find("deepseek_r1"), std::string::npos);
  EXPECT_NE(r.error().message().find("gpt_oss"), std::string::npos);
}

// The start markers (what a prompt ends with when its template opened the reasoning block)
// are the family's own: each one opens reasoning in the family's parser.
TEST(ReasoningRegistry, StartMarkersOpenTheFamilysReasoning) {
  for (const ReasoningParserInfo& info : ReasoningParsers()) {
    for (std::string_view marker : info.start_markers) {
      auto parser = std::move(*CreateReasoningParser(info.name));
      ParseResult r = ParseComplete(*parser, std::string(marker) + "\nplan");
      EXPECT_EQ(r.reasoning, "plan") << info.name << " " << marker;
      EXPECT_FALSE(r.content.has_value()) << info.name << " " << marker;
    }
  }
  auto markers = [](std::string_view name) {
    return FindParserInfo(ReasoningParsers(), name)->start_markers;
  };
  using Markers = std::vector<std::string_view>;
  EXPECT_EQ(markers("qwen3"), Markers{"<think>"});
  EXPECT_EQ(markers("deepseek_r1"), Markers{"<think>"});
  EXPECT_EQ(markers("magistral"), Markers{"[THINK]"});
  EXPECT_EQ(markers("gemma4"), Markers{"<|channel>thought"});
  EXPECT_EQ(markers("command_r7b"), Markers{"<|START_THINKING|>"});
  EXPECT_EQ(markers("apertus"), Markers{"<|inner_prefix|>"});
  EXPECT_TRUE(markers("gpt_oss").empty());  // Harmony output names its channel itself
}

TEST(ReasoningParser, ReusableAfterReset) {
  auto parser = std::move(*CreateReasoningParser("qwen3"));
  ParseResult first = ParseComplete(*parser, "<think>a</think>b");
  EventSink sink;
  parser->Feed("<think>unfinished", sink);  // leave it mid-block
  ParseResult second = ParseComplete(*parser, "<think>a</think>b");
  EXPECT_EQ(first, second);
  EXPECT_EQ(second.reasoning, "a");
  EXPECT_EQ(second.content, "b");
}

TEST(ReasoningParser, FinishFlushesHeldBackText) {
  auto parser = std::move(*CreateReasoningParser("qwen3"));
  EventSink sink;
  parser->Feed("Answer <thi", sink);
  ResultBuilder builder;
  builder.AddAll(sink.events());
  EXPECT_EQ(builder.result().content, "Answer");
  sink.Clear();
  parser->Finish(sink);
  builder.AddAll(sink.events());
  EXPECT_EQ(builder.Take().content, "Answer <thi");
}

TEST(DeltaAdapter, SeedSignature) {
  auto parser = std::move(*CreateReasoningParser("qwen3"));
  DeltaAdapter adapter(*parser);
  adapter.Reset();
  EXPECT_FALSE(adapter.ExtractStreaming("", "<think>", "<think>").has_value());
  auto msg = adapter.ExtractStreaming("<think>", "<think>reasoning", "reasoning");
  ASSERT_TRUE(msg.has_value());
  EXPECT_EQ(msg->reasoning, "reasoning");
  EXPECT_FALSE(msg->content.has_value());
  msg = adapter.ExtractStreaming("<think>reasoning", "<think>reasoning more</think>content here",
                                 " more</think>content here");
  ASSERT_TRUE(msg.has_value());
  EXPECT_EQ(msg->reasoning, " more");
  EXPECT_EQ(msg->content, "content here");
  EXPECT_FALSE(adapter.Finalize().has_value());
}

}  // namespace
}  // namespace crux::parse
