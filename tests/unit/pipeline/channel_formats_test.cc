// Channel formats (Harmony, Muse Glimmer) through a request pipeline: whichever parser flag
// names the format — reasoning, tool or both — the response carries the same reasoning,
// content and tool calls, streamed as the same frames, and no framing reaches content.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "crux/engine/mock_engine.h"
#include "crux/pipeline/pipeline.h"

namespace crux::pipeline {
namespace {

constexpr const char* kHarmony =
    "<|channel|>analysis<|message|>Need the weather.<|end|><|start|>assistant<|channel|>"
    "commentary to=functions.get_weather<|constrain|>json<|message|>{\"city\":\"Oslo\"}<|call|>"
    "<|start|>assistant<|channel|>final<|message|>Checking Oslo.<|return|>";
constexpr const char* kMuse =
    " to=self<|message|>Need weather.<|eom|><|start|>assistant to=get_weather<|message|>"
    "<atem:function_calls>\n<atem:invoke name=\"get_weather\">\n<atem:parameter name=\"days\">3"
    "</atem:parameter>\n</atem:invoke>\n</atem:function_calls><|eom|><|start|>assistant to=user"
    "<|message|>Checking.<|eot|>";
constexpr const char* kTools =
    R"("tools":[{"type":"function","function":{"name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer"}}}}}])";

struct Outcome {
  std::string frames;  // the streamed response, byte for byte
  parse::ParseResult result;
};

class ChannelFormatTest : public ::testing::Test {
 protected:
  ChannelFormatTest() {
    engine::MockEngineOptions options;
    options.scripts.push_back({"m", {"x"}});
    engine_ = engine::MakeMockEngine(options);
  }
  ~ChannelFormatTest() override { engine_->Shutdown(); }

  // Streams `output` through a pipeline with the given parser flags.
  Outcome Run(const std::string& reasoning_parser, const std::string& tool_parser,
              const std::string& output, const std::string& request_extra = kTools) {
    const std::string body =
        R"({"model":"m","stream":true,"messages":[{"role":"user","content":"x"}],)" +
        request_extra + "}";
    auto request = protocol::DecodeChatCompletions(body);
    EXPECT_TRUE(request.ok()) << request.error().message();
    PipelineConfig config{reasoning_parser, tool_parser, {}, 5, nullptr};
    auto created = RequestPipeline::Create(*request, config, {"id", 1, "m"}, *engine_);
    EXPECT_TRUE(created.ok()) << created.error().message();
    if (!created.ok()) return {};
    RequestPipeline& p = **created;
    Outcome outcome;
    p.Begin(outcome.frames);
    engine::GenerationUpdate u;
    for (std::string_view piece : engine::MockTokens(output)) {
      u.text = std::string(piece);
      u.tokens = 1;
      p.OnUpdate(u, outcome.frames);
    }
    u.text.clear();
    u.tokens = 0;
    u.finished = true;
    u.reason = engine::StopReason::kEndOfGeneration;
    p.OnUpdate(u, outcome.frames);
    outcome.result = p.result();
    return outcome;
  }

  std::unique_ptr<engine::Engine> engine_;
};

TEST_F(ChannelFormatTest, HarmonyGivesTheSameEventsWhicheverFlagNamesIt) {
  const Outcome reasoning_only = Run("harmony", "", kHarmony);
  EXPECT_EQ(reasoning_only.result.reasoning, "Need the weather.");
  EXPECT_EQ(reasoning_only.result.content, "Checking Oslo.");
  ASSERT_EQ(reasoning_only.result.tool_calls.size(), 1u);
  EXPECT_EQ(reasoning_only.result.tool_calls[0].name, "get_weather");
  EXPECT_EQ(reasoning_only.result.tool_calls[0].arguments, "{\"city\":\"Oslo\"}");
  EXPECT_EQ(reasoning_only.frames.find("<|"), std::string::npos) << reasoning_only.frames;
  EXPECT_NE(reasoning_only.frames.find("\"finish_reason\":\"tool_calls\""), std::string::npos);

  for (const auto& [reasoning, tools] : std::vector<std::pair<std::string, std::string>>{
           {"", "harmony"}, {"harmony", "harmony"}, {"gpt_oss", "gpt-oss"}, {"gpt_oss", ""}}) {
    const Outcome other = Run(reasoning, tools, kHarmony);
    EXPECT_EQ(other.result, reasoning_only.result) << reasoning << " + " << tools;
    EXPECT_EQ(other.frames, reasoning_only.frames) << reasoning << " + " << tools;
  }
}

TEST_F(ChannelFormatTest, MuseGlimmerGivesTheSameEventsWhicheverFlagNamesIt) {
  const Outcome tool_only = Run("", "muse_glimmer", kMuse);
  EXPECT_EQ(tool_only.result.reasoning, "Need weather.");
  EXPECT_EQ(tool_only.result.content, "Checking.");
  ASSERT_EQ(tool_only.result.tool_calls.size(), 1u);
  EXPECT_EQ(tool_only.result.tool_calls[0].arguments, "{\"days\": 3}");  // typed by the schema
  for (const auto& [reasoning, tools] : std::vector<std::pair<std::string, std::string>>{
           {"muse_glimmer", ""}, {"atem", "muse_glimmer"}, {"muse", "atem"}}) {
    const Outcome other = Run(reasoning, tools, kMuse);
    EXPECT_EQ(other.result, tool_only.result) << reasoning << " + " << tools;
    EXPECT_EQ(other.frames, tool_only.frames) << reasoning << " + " << tools;
  }
}

// The format's parser runs even where a split chain would skip the tool parser (no tools, or
// tool_choice "none") or the reasoning parser (thinking disabled): its framing is still there.
TEST_F(ChannelFormatTest, FramingIsReadWithoutToolsAndWithThinkingDisabled) {
  const std::vector<std::string> requests = {
      R"("tool_choice":"none",)" + std::string(kTools),
      R"("chat_template_kwargs":{"enable_thinking":false})",
      R"("temperature":0)",
  };
  for (const std::string& extra : requests) {
    for (const auto& [reasoning, tools] :
         std::vector<std::pair<std::string, std::string>>{{"harmony", ""}, {"", "harmony"}}) {
      const Outcome outcome = Run(reasoning, tools, kHarmony, extra);
      EXPECT_EQ(outcome.result.reasoning, "Need the weather.") << extra;
      EXPECT_EQ(outcome.result.content, "Checking Oslo.") << extra;
      EXPECT_EQ(outcome.result.tool_calls.size(), 1u) << extra;
      EXPECT_EQ(outcome.frames.find("<|"), std::string::npos) << extra;
    }
  }
}

TEST_F(ChannelFormatTest, AnUnknownSecondNameIsStillARequestError) {
  auto request = protocol::DecodeChatCompletions(
      std::string(R"({"model":"m","tool_call_parser":"nope","messages":[{"role":"user",)"
                  R"("content":"x"}],)") +
      kTools + "}");
  ASSERT_TRUE(request.ok());
  PipelineConfig config{"harmony", "", {}, 5, nullptr};
  auto created = RequestPipeline::Create(*request, config, {"id", 1, "m"}, *engine_);
  ASSERT_FALSE(created.ok());
  EXPECT_EQ(created.error().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(created.error().message().find("unknown tool-call parser 'nope'"), std::string::npos);
}

}  // namespace
}  // namespace crux::pipeline
