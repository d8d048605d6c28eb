#include "crux/pipeline/pipeline.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "crux/engine/mock_engine.h"
#include "crux/protocol/response_store.h"

namespace crux::pipeline {
namespace {

class PipelineTest : public ::testing::Test {
 protected:
  PipelineTest() {
    engine::MockEngineOptions options;
    options.scripts.push_back({"m", {"x"}});
    engine_ = engine::MakeMockEngine(options);
  }
  ~PipelineTest() override { engine_->Shutdown(); }

  static PipelineConfig Parsers(std::string reasoning, std::string tools) {
    PipelineConfig config;
    config.reasoning_parser = std::move(reasoning);
    config.tool_parser = std::move(tools);
    return config;
  }

  std::unique_ptr<RequestPipeline> Make(const std::string& body, PipelineConfig config = {}) {
    auto request = protocol::DecodeChatCompletions(body);
    EXPECT_TRUE(request.ok()) << request.error().message();
    auto created = RequestPipeline::Create(*request, config, {"id", 1, "m"}, *engine_);
    EXPECT_TRUE(created.ok()) << created.error().message();
    return created.ok() ? std::move(*created) : nullptr;
  }

  // Feeds `text` as mock tokens, then finishes with `reason`.
  static std::string Run(RequestPipeline& p, const std::string& text,
                         engine::StopReason reason = engine::StopReason::kEndOfGeneration) {
    std::string out;
    p.Begin(out);
    engine::GenerationUpdate u;
    u.prompt_tokens = 7;
    for (std::string_view piece : engine::MockTokens(text)) {
      u.text = std::string(piece);
      u.tokens = 1;
      p.OnUpdate(u, out);
    }
    u.text.clear();
    u.tokens = 0;
    u.finished = true;
    u.reason = reason;
    p.OnUpdate(u, out);
    return out;
  }

  // A Chat Completions request whose tools named in `mcp` are MCP tools the server runs.
  std::unique_ptr<RequestPipeline> MakeLoop(const std::string& body, std::vector<std::string> mcp,
                                            PipelineConfig config) {
    auto request = protocol::DecodeChatCompletions(body);
    EXPECT_TRUE(request.ok()) << request.error().message();
    request->mcp_tool_names = std::move(mcp);
    auto created = RequestPipeline::Create(*request, config, {"id", 1, "m"}, *engine_);
    EXPECT_TRUE(created.ok()) << created.error().message();
    return created.ok() ? std::move(*created) : nullptr;
  }

  std::unique_ptr<RequestPipeline> MakeResponses(const std::string& body,
                                                 const PipelineConfig& config,
                                                 const std::string& id) {
    auto request = protocol::DecodeResponses(body, config.response_store.get());
    EXPECT_TRUE(request.ok()) << request.error().message();
    auto created = RequestPipeline::Create(*request, config, {id, 1, "m"}, *engine_);
    EXPECT_TRUE(created.ok()) << created.error().message();
    return created.ok() ? std::move(*created) : nullptr;
  }

  std::unique_ptr<engine::Engine> engine_;
};

constexpr const char* kTools =
    R"("tools":[{"type":"function","function":{"name":"get_weather","parameters":{"type":"object"}}}])";
constexpr const char* kCall =
    "<think>plan</think>Sure.<tool_call>{\"name\": \"get_weather\", \"arguments\": {\"city\": "
    "\"Oslo\"}}</tool_call>";

TEST_F(PipelineTest, SplitsReasoningAndToolCalls) {
  PipelineConfig config{"qwen3", "hermes", {}, 5, nullptr};
  auto p = Make(
      std::string(R"({"model":"m","messages":[{"role":"user","content":"x"}],)") + kTools + "}",
      config);
  Run(*p, kCall);
  ASSERT_TRUE(p->finished());
  EXPECT_EQ(p->result().reasoning, "plan");
  EXPECT_EQ(p->result().content, "Sure.");
  ASSERT_EQ(p->result().tool_calls.size(), 1u);
  EXPECT_EQ(p->completion().reason, parse::FinishReason::kToolCalls);
  EXPECT_EQ(p->completion().usage.prompt_tokens, 7);
  EXPECT_GT(p->completion().usage.reasoning_tokens, 0);
  EXPECT_NE(p->Body().find("\"finish_reason\":\"tool_calls\""), std::string::npos);
}

// A call written inside reasoning reaches the client as a call unless promotion is off.
TEST_F(PipelineTest, ToolCallsInsideReasoningArePromotedUnlessTurnedOff) {
  const std::string body =
      std::string(R"({"model":"m","messages":[{"role":"user","content":"x"}],)") + kTools + "}";
  const char* text =
      "<think>plan\n<tool_call>{\"name\": \"get_weather\", \"arguments\": {}}</tool_call>"
      "</think>Sure.";
  PipelineConfig config{"qwen3", "hermes", {}, 5, nullptr};
  auto on = Make(body, config);
  Run(*on, text);
  ASSERT_EQ(on->result().tool_calls.size(), 1u);
  EXPECT_EQ(on->result().reasoning, "plan");
  EXPECT_EQ(on->completion().reason, parse::FinishReason::kToolCalls);
  EXPECT_EQ(on->parse_stats().promoted_tool_calls, 1);
  config.tool_call_promotion = false;
  auto off = Make(body, config);
  Run(*off, text);
  EXPECT_TRUE(off->result().tool_calls.empty());
  EXPECT_NE(off->result().reasoning->find("<tool_call>"), std::string::npos);
  EXPECT_EQ(off->parse_stats().promoted_tool_calls, 0);
}

TEST_F(PipelineTest, LoneReasoningEndMarkersAreReported) {
  PipelineConfig config{"qwen3", "", {}, 5, nullptr};
  auto p = Make(R"({"model":"m","messages":[{"role":"user","content":"x"}]})", config);
  Run(*p, "Checked the docs first.</think>It is 3.");
  EXPECT_EQ(p->result().content, "Checked the docs first.</think>It is 3.");
  EXPECT_EQ(p->parse_stats().lone_end_markers, 1);
}

TEST_F(PipelineTest, ToolChoiceNoneAndRequestsWithoutToolsAreNotParsed) {
  PipelineConfig config{"", "hermes", {}, 5, nullptr};
  auto none =
      Make(std::string(
               R"({"model":"m","tool_choice":"none","messages":[{"role":"user","content":"x"}],)") +
               kTools + "}",
           config);
  Run(*none, "<tool_call>{\"name\": \"get_weather\", \"arguments\": {}}</tool_call>");
  EXPECT_TRUE(none->result().tool_calls.empty());
  EXPECT_NE(none->result().content->find("<tool_call>"), std::string::npos);
  auto no_tools = Make(R"({"model":"m","messages":[{"role":"user","content":"x"}]})", config);
  Run(*no_tools, "{\"name\": \"get_weather\", \"arguments\": {}}");
  EXPECT_TRUE(no_tools->result().tool_calls.empty());
}

TEST_F(PipelineTest, ThinkingDisabledSkipsTheReasoningParser) {
  PipelineConfig config{"qwen3", "", {}, 0, nullptr};
  auto p = Make(
      R"({"model":"m","chat_template_kwargs":{"enable_thinking":false},"messages":[{"role":"user","content":"x"}]})",
      config);
  Run(*p, "<think>a</think>b");
  EXPECT_FALSE(p->result().reasoning.has_value());
  EXPECT_EQ(p->result().content, "<think>a</think>b");
}

TEST_F(PipelineTest, TerminalFramesAreSentWhenTheParserSwallowedTheLastDelta) {
  PipelineConfig config{"qwen3", "", {}, 0, nullptr};
  auto p =
      Make(R"({"model":"m","stream":true,"messages":[{"role":"user","content":"x"}]})", config);
  const std::string out = Run(*p, "answer <thi");  // held back until the end of the stream
  EXPECT_NE(out.find("\"finish_reason\":\"stop\""), std::string::npos);
  EXPECT_NE(out.find("\"content\":\" <thi\""), std::string::npos);  // flushed at the end
  EXPECT_EQ(out.substr(out.size() - 14), "data: [DONE]\n\n");
}

TEST_F(PipelineTest, LengthAndStopSequencesMapToFinishReasons) {
  auto p = Make(R"({"model":"m","messages":[{"role":"user","content":"x"}]})");
  Run(*p, "abc", engine::StopReason::kMaxTokens);
  EXPECT_EQ(p->completion().reason, parse::FinishReason::kLength);
  auto q = Make(R"({"model":"m","stop":["END"],"messages":[{"role":"user","content":"x"}]})");
  EXPECT_EQ(q->generate_request().stop, std::vector<std::string>{"END"});
  Run(*q, "abc", engine::StopReason::kStopString);
  EXPECT_EQ(q->completion().reason, parse::FinishReason::kStopSequence);
}

TEST_F(PipelineTest, BadParserNamesAndUndeclaredToolChoiceAreRequestErrors) {
  auto request = protocol::DecodeChatCompletions(
      R"({"model":"m","reasoning_parser":"nope","messages":[{"role":"user","content":"x"}]})");
  ASSERT_TRUE(request.ok());
  auto created = RequestPipeline::Create(*request, {}, {"id", 1, "m"}, *engine_);
  ASSERT_FALSE(created.ok());
  EXPECT_EQ(created.error().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(created.error().message().find("unknown reasoning parser 'nope'"), std::string::npos);
}

TEST_F(PipelineTest, AnInvalidResponseSchemaIsARequestErrorBeforeAnyToken) {
  auto request = protocol::DecodeChatCompletions(
      R"({"model":"m","messages":[{"role":"user","content":"x"}],"response_format":{"type":)"
      R"("json_schema","json_schema":{"name":"r","schema":{"type":"object","properties":)"
      R"({"n":{"type":"integer","minimum":"one"}}}}}})");
  ASSERT_TRUE(request.ok()) << request.error().message();
  auto created = RequestPipeline::Create(*request, {}, {"id", 1, "m"}, *engine_);
  ASSERT_FALSE(created.ok());
  EXPECT_EQ(created.error().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(created.error().message().find("response_format.json_schema.schema"),
            std::string::npos);
  EXPECT_NE(created.error().message().find("minimum"), std::string::npos)
      << created.error().message();
  // A valid schema goes through.
  auto valid = protocol::DecodeChatCompletions(
      R"({"model":"m","messages":[{"role":"user","content":"x"}],"response_format":{"type":)"
      R"("json_schema","json_schema":{"name":"r","schema":{"type":"object"}}}})");
  ASSERT_TRUE(valid.ok());
  EXPECT_TRUE(RequestPipeline::Create(*valid, {}, {"id", 1, "m"}, *engine_).ok());
}

TEST_F(PipelineTest, AResponseSchemaThatAdmitsNoValueIsARequestError) {
  for (const std::string schema :
       {R"({"enum":[]})", R"({"type":"integer","minimum":5,"maximum":3})",
        R"({"type":"string","pattern":"x^"})", R"({"allOf":[{"type":"string"},{"type":"null"}]})",
        R"({"type":"array","items":false,"minItems":1})",
        R"({"type":"object","properties":{"a":{"type":"object","properties":{"b":false},)"
        R"("required":["b"]}},"required":["a"]})"}) {
    auto request = protocol::DecodeChatCompletions(
        R"({"model":"m","messages":[{"role":"user","content":"x"}],"response_format":{"type":)"
        R"("json_schema","json_schema":{"name":"r","schema":)" +
        schema + "}}}");
    ASSERT_TRUE(request.ok()) << request.error().message();
    auto created = RequestPipeline::Create(*request, {}, {"id", 1, "m"}, *engine_);
    ASSERT_FALSE(created.ok()) << schema;
    EXPECT_EQ(created.error().code(), ErrorCode::kInvalidArgument);
    EXPECT_NE(created.error().message().find("admits no JSON value"), std::string::npos)
        << created.error().message();
  }
  // One value is enough.
  auto one = protocol::DecodeChatCompletions(
      R"({"model":"m","messages":[{"role":"user","content":"x"}],"response_format":{"type":)"
      R"("json_schema","json_schema":{"name":"r","schema":{"enum":[7]}}}})");
  ASSERT_TRUE(one.ok());
  EXPECT_TRUE(RequestPipeline::Create(*one, {}, {"id", 1, "m"}, *engine_).ok());
}

// The final answer of a json_schema request is checked: a fenced value is cleaned to the value
// alone; an answer without a valid value is reported (422 for a body, an error event for a
// stream), never returned as valid.
TEST_F(PipelineTest, TheFinalAnswerIsCheckedAgainstTheResponseFormat) {
  const std::string body =
      R"({"model":"m","messages":[{"role":"user","content":"x"}],"response_format":{"type":)"
      R"("json_schema","json_schema":{"name":"r","schema":{"type":"object","properties":)"
      R"({"days":{"type":"integer"}},"required":["days"]}}})";
  auto good = Make(body + "}");
  ASSERT_NE(good, nullptr);
  Run(*good, "```json\n{\"days\": 3}\n```");
  EXPECT_FALSE(good->output_error());
  EXPECT_EQ(nlohmann::json::parse(good->Body())["choices"][0]["message"]["content"],
            "{\"days\": 3}");

  auto bad = Make(body + "}");
  ASSERT_NE(bad, nullptr);
  Run(*bad, "{\"days\": \"three\"}");
  ASSERT_TRUE(bad->output_error());
  EXPECT_NE(bad->output_error()->find("invalid_response_format_output"), std::string::npos);
  EXPECT_NE(bad->output_error()->find("/days"), std::string::npos) << *bad->output_error();

  auto streamed = Make(body + R"(,"stream":true})");
  ASSERT_NE(streamed, nullptr);
  const std::string frames = Run(*streamed, "Sorry, no.");
  ASSERT_TRUE(streamed->output_error());
  EXPECT_NE(frames.find("no JSON value in the answer"), std::string::npos) << frames;

  // json_object: the root must be an object; tool calls are not checked.
  auto object = Make(R"({"model":"m","messages":[{"role":"user","content":"x"}],)"
                     R"("response_format":{"type":"json_object"}})");
  ASSERT_NE(object, nullptr);
  Run(*object, "[1, 2]");
  ASSERT_TRUE(object->output_error());
  EXPECT_NE(object->output_error()->find("not an object"), std::string::npos);
}

// The request's own parsers replace the server's; "" turns reasoning parsing off.
TEST_F(PipelineTest, RequestParserFieldsOverrideTheServersParsers) {
  const std::string tools =
      R"("tools":[{"type":"function","function":{"name":"f","parameters":{}}}])";
  auto p = Make(R"({"model":"m","reasoning_parser":"mistral","tool_call_parser":"mistral",)" +
                    tools + R"(,"messages":[{"role":"user","content":"x"}]})",
                Parsers("qwen3", "hermes"));
  Run(*p, "[THINK]a[/THINK]b[TOOL_CALLS]f[ARGS]{\"x\": 1}");
  EXPECT_EQ(p->result().reasoning, "a");
  EXPECT_EQ(p->result().content, "b");
  ASSERT_EQ(p->result().tool_calls.size(), 1u);
  EXPECT_EQ(p->result().tool_calls[0].name, "f");

  auto off =
      Make(R"({"model":"m","reasoning_parser":"","messages":[{"role":"user","content":"x"}]})",
           Parsers("qwen3", ""));
  Run(*off, "<think>a</think>b");
  EXPECT_EQ(off->result().content, "<think>a</think>b");
}

// An idle stream's keep-alive is the protocol's own frame: an SSE comment for the OpenAI
// APIs, Anthropic's documented ping event.
TEST_F(PipelineTest, KeepAliveIsEachProtocolsOwnFrame) {
  const std::string user = R"("messages":[{"role":"user","content":"x"}])";
  auto request = protocol::DecodeChatCompletions(R"({"model":"m","stream":true,)" + user + "}");
  ASSERT_TRUE(request.ok());
  auto chat = RequestPipeline::Create(*request, {}, {"id", 1, "m"}, *engine_);
  ASSERT_TRUE(chat.ok());
  std::string out;
  (*chat)->KeepAlive(out);
  EXPECT_EQ(out, ": keep-alive\n\n");

  request = protocol::DecodeAnthropicMessages(R"({"model":"m","max_tokens":5,"stream":true,)" +
                                              user + "}");
  ASSERT_TRUE(request.ok());
  auto anthropic = RequestPipeline::Create(*request, {}, {"id", 1, "m"}, *engine_);
  ASSERT_TRUE(anthropic.ok());
  out.clear();
  (*anthropic)->KeepAlive(out);
  EXPECT_EQ(out, "event: ping\ndata: {\"type\":\"ping\"}\n\n");

  request = protocol::DecodeResponses(R"({"model":"m","stream":true,"input":"x"})");
  ASSERT_TRUE(request.ok());
  auto responses = RequestPipeline::Create(*request, {}, {"id", 1, "m"}, *engine_);
  ASSERT_TRUE(responses.ok());
  out.clear();
  (*responses)->KeepAlive(out);
  EXPECT_EQ(out, ": keep-alive\n\n");
}

// The mock engine picks its scripted turn from the rendered prompt alone.
TEST_F(PipelineTest, PromptCountsAssistantTurnsForTheMockEngine) {
  auto p = Make(
      R"({"model":"m","messages":[{"role":"user","content":"x"},{"role":"assistant","content":"y"},{"role":"user","content":"z"}]})");
  EXPECT_EQ(engine::PriorAssistantTurns(p->generate_request().prompt,
                                        engine::MockEngineOptions().assistant_turn_marker),
            1);
  EXPECT_NE(p->generate_request().prompt.find("<|im_start|>assistant\ny<|im_end|>"),
            std::string::npos);
  EXPECT_EQ(p->generate_request().prompt.substr(p->generate_request().prompt.size() - 22),
            "<|im_start|>assistant\n");
}

}  // namespace
}  // namespace crux::pipeline

namespace crux::pipeline {
namespace {

// A finished Responses request is stored with the items the client saw, streamed or not, and
// the next turn continues it; a failed one is not stored.
TEST_F(PipelineTest, ResponsesAreStoredAsTheClientSawThem) {
  PipelineConfig config{"qwen3", "", {}, 5, std::make_shared<protocol::ResponseStore>()};
  auto first = MakeResponses(R"({"model":"m","input":"Capital of France?","stream":true})", config,
                             "resp_a");
  const std::string sse = Run(*first, "<think>Easy.</think>Paris.");
  auto stored = config.response_store->Get("resp_a");
  ASSERT_TRUE(stored.has_value());
  const auto response = nlohmann::json::parse(*stored);
  ASSERT_EQ(response["output"].size(), 2u);
  const std::string message_id = response["output"][1]["id"];
  EXPECT_NE(sse.find(message_id), std::string::npos) << "the stored ids are the streamed ones";
  EXPECT_EQ(response["store"], true);

  auto second = MakeResponses(
      R"({"model":"m","previous_response_id":"resp_a","input":"And Spain?"})", config, "resp_b");
  ASSERT_EQ(second->request().messages.size(), 3u);
  EXPECT_EQ(second->request().messages[1].content, "Paris.");
  EXPECT_EQ(second->request().messages[1].reasoning, "Easy.");
  Run(*second, "Madrid.");
  EXPECT_NE(second->Body().find("\"previous_response_id\":\"resp_a\""), std::string::npos);
  auto chain = config.response_store->Conversation("resp_b");
  ASSERT_TRUE(chain.has_value());
  EXPECT_EQ(chain->size(), 5u);  // input, reasoning, message; input, message

  auto failed = MakeResponses(R"({"model":"m","input":"x"})", config, "resp_c");
  Run(*failed, "partial", engine::StopReason::kError);
  EXPECT_FALSE(config.response_store->Get("resp_c").has_value());
  auto unstored = MakeResponses(R"({"model":"m","input":"x","store":false})", config, "resp_d");
  Run(*unstored, "y");
  EXPECT_FALSE(config.response_store->Get("resp_d").has_value());
  EXPECT_NE(unstored->Body().find("\"store\":false"), std::string::npos);
}

constexpr const char* kLoopTools =
    R"("tools":[{"type":"function","function":{"name":"fs__read","parameters":{"type":"object"}}},)"
    R"({"type":"function","function":{"name":"get_weather","parameters":{"type":"object"}}}])";

std::string LoopCall(const std::string& name) {
  return "<tool_call>{\"name\": \"" + name + "\", \"arguments\": {\"path\": \"a\"}}</tool_call>";
}

protocol::ExecutedToolCall Executed(const parse::ToolCall& call, std::string output) {
  return {call.id, "fs", "read", call.arguments, std::move(output), false};
}

// An MCP call stays out of the stream; the client's call after it is renumbered to index 0;
// the round ends with the executed call reported, then the client's call (tool_calls).
TEST_F(PipelineTest, TheToolLoopKeepsMcpCallsOutOfTheStream) {
  auto p = MakeLoop(
      std::string(R"({"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}],)") +
          kLoopTools + "}",
      {"fs__read"}, Parsers("", "hermes"));
  ASSERT_NE(p, nullptr);
  const std::string round = Run(*p, LoopCall("fs__read") + LoopCall("get_weather"));
  EXPECT_EQ(round.find("fs__read"), std::string::npos) << round;
  EXPECT_NE(round.find(R"("tool_calls":[{"index":0,"id":)"), std::string::npos) << round;
  EXPECT_NE(round.find("get_weather"), std::string::npos);
  ASSERT_TRUE(p->awaiting_tools());
  EXPECT_FALSE(p->finished());
  ASSERT_EQ(p->pending_tool_calls().size(), 1u);
  EXPECT_EQ(p->pending_tool_calls()[0].name, "fs__read");
  std::string out;
  ASSERT_TRUE(
      p->ContinueWithResults({Executed(p->pending_tool_calls()[0], "file text")}, out).ok());
  EXPECT_TRUE(p->finished());
  EXPECT_NE(out.find(R"({"mcp_call":{)"), std::string::npos) << out;
  EXPECT_NE(out.find(R"("output":"file text")"), std::string::npos);
  EXPECT_NE(out.find(R"("finish_reason":"tool_calls")"), std::string::npos) << out;
}

// Rounds continue while every call is an MCP call: the next prompt carries the result, and
// the body lists the executed calls before the answer.
TEST_F(PipelineTest, TheToolLoopContinuesWithTheResultsInTheConversation) {
  auto p = MakeLoop(std::string(R"({"model":"m","messages":[{"role":"user","content":"hi"}],)") +
                        kLoopTools + "}",
                    {"fs__read"}, Parsers("", "hermes"));
  ASSERT_NE(p, nullptr);
  Run(*p, "Looking." + LoopCall("fs__read"));
  ASSERT_TRUE(p->awaiting_tools());
  std::string out;
  ASSERT_TRUE(
      p->ContinueWithResults({Executed(p->pending_tool_calls()[0], "RESULT-42")}, out).ok());
  EXPECT_FALSE(p->finished());
  EXPECT_NE(p->generate_request().prompt.find("RESULT-42"), std::string::npos);
  Run(*p, "Done.");
  ASSERT_TRUE(p->finished());
  const auto body = nlohmann::json::parse(p->Body());
  const auto& message = body["choices"][0]["message"];
  EXPECT_EQ(message["content"], "Looking.\n\nDone.");
  EXPECT_EQ(message["mcp_calls"][0]["output"], "RESULT-42");
  EXPECT_EQ(body["choices"][0]["finish_reason"], "stop");
  EXPECT_EQ(body["usage"]["prompt_tokens"], 14) << "both rounds' prompts count";
}

// Past max_tool_rounds, an MCP call is returned to the client like any other.
TEST_F(PipelineTest, TheToolLoopStopsAtMaxToolRounds) {
  PipelineConfig config = Parsers("", "hermes");
  config.max_tool_rounds = 1;
  auto p = MakeLoop(std::string(R"({"model":"m","messages":[{"role":"user","content":"hi"}],)") +
                        kLoopTools + "}",
                    {"fs__read"}, config);
  ASSERT_NE(p, nullptr);
  Run(*p, LoopCall("fs__read"));
  std::string out;
  ASSERT_TRUE(p->ContinueWithResults({Executed(p->pending_tool_calls()[0], "x")}, out).ok());
  Run(*p, LoopCall("fs__read"));
  EXPECT_FALSE(p->awaiting_tools());
  ASSERT_TRUE(p->finished());
  const auto body = nlohmann::json::parse(p->Body());
  EXPECT_EQ(body["choices"][0]["finish_reason"], "tool_calls");
  EXPECT_EQ(body["choices"][0]["message"]["tool_calls"][0]["function"]["name"], "fs__read");
  EXPECT_EQ(body["choices"][0]["message"]["mcp_calls"].size(), 1u);
}

}  // namespace
}  // namespace crux::pipeline
