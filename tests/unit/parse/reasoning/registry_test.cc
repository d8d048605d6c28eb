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

// Every reasoning-parser name of vLLM's registry (vllm/frontend/processing/reasoning, late 2026,
// plus solar_open2 of the earlier vllm/reasoning table) and of SGLang's DetectorMap resolves, so
// a deployment moved to crux keeps its --reasoning-parser flag.
TEST(ReasoningRegistry, EveryVllmAndSglangNameResolves) {
  const char* vllm[] = {"deepseek_r1",     "deepseek_v3",
                        "deepseek_v4",     "poolside_v1",
                        "cohere_command3", "cohere_command4",
                        "ernie45",         "gemma4",
                        "glm45",           "glm47",
                        "ling3",           "openai_gptoss",
                        "granite",         "holo2",
                        "hunyuan_a13b",    "hy_v3",
                        "hy_v4",           "kimi_k2",
                        "kimi_k3",         "mimo",
                        "minimax_m2",      "minimax_m2_append_think",
                        "minimax_m3",      "mistral",
                        "nemotron_v3",     "olmo3",
                        "muse_glimmer",    "qwen3",
                        "seed_oss",        "step3",
                        "step3p5",         "inkling",
                        "solar_open2"};
  const char* sglang[] = {
      "apertus2509",     "deepseek-r1",    "deepseek-v3", "deepseek-v4",
      "glm45",           "hunyuan",        "gpt-oss",     "kimi",
      "kimi_k2",         "kimi_k3",        "mimo",        "poolside_v1",
      "qwen3",           "qwen3-thinking", "minimax",     "minimax-append-think",
      "minimax-m3",      "step3",          "step3p5",     "mistral",
      "nemotron_3",      "interns1",       "gemma4",      "inkling",
      "cohere_command4", "telechat4"};
  for (const char* name : vllm)
    EXPECT_TRUE(CreateReasoningParser(name).ok()) << "vLLM " << name;
  for (const char* name : sglang)
    EXPECT_TRUE(CreateReasoningParser(name).ok()) << "SGLang " << name;
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
