#include <gtest/gtest.h>

#include "unit/protocol/decoder_test_util.h"

namespace crux::protocol {
namespace {

using testutil::BadRequest;
using testutil::ExpectRejected;
using testutil::MustDecode;

constexpr char kFull[] = R"json({
  "model": "claude-like",
  "max_tokens": 1024,
  "system": [
    {"type": "text", "text": "x-anthropic-billing-header: cc_version=1"},
    {"type": "text", "text": "You are Claude Code.", "cache_control": {"type": "ephemeral"}},
    {"type": "text", "text": "Be careful."}
  ],
  "messages": [
    {"role": "user", "content": "List files."},
    {"role": "assistant", "content": [
      {"type": "thinking", "thinking": "Use ls.", "signature": "sig"},
      {"type": "redacted_thinking", "data": "opaque"},
      {"type": "text", "text": "Running ls."},
      {"type": "tool_use", "id": "toolu_1", "name": "bash", "input": {"cmd": "ls"}}
    ]},
    {"role": "user", "content": [
      {"type": "tool_result", "tool_use_id": "toolu_1", "content": "a.txt\nb.txt"},
      {"type": "text", "text": "Now count them."}
    ]},
    {"role": "assistant", "content": [
      {"type": "tool_use", "id": "toolu_2", "name": "bash", "input": {"cmd": "ls | wc -l"}}]},
    {"role": "user", "content": [
      {"type": "tool_result", "tool_use_id": "toolu_2", "is_error": true,
       "content": [{"type": "text", "text": "2"}, {"type": "text", "text": "(done)"}]}]}
  ],
  "tools": [
    {"name": "bash", "description": "Run a command",
     "input_schema": {"type": "object", "properties": {"cmd": {"type": "string"}}}},
    {"type": "custom", "name": "edit", "input_schema": {"type": "object"}},
    {"type": "web_search_20250305", "name": "web_search", "max_uses": 3}
  ],
  "tool_choice": {"type": "tool", "name": "bash", "disable_parallel_tool_use": true},
  "stop_sequences": ["</answer>"],
  "temperature": 0.5, "top_p": 0.8, "top_k": 20,
  "stream": true,
  "metadata": {"user_id": "user-7"},
  "thinking": {"type": "enabled", "budget_tokens": 2048},
  "service_tier": "auto"
})json";

TEST(AnthropicDecoder, ReadsEveryField) {
  ChatRequest r = MustDecode(Api::kAnthropicMessages, kFull);
  EXPECT_EQ(r.api, Api::kAnthropicMessages);
  EXPECT_EQ(r.model, "claude-like");
  EXPECT_EQ(r.max_tokens, 1024);
  ASSERT_EQ(r.messages.size(), 7u);
  EXPECT_EQ(r.messages[0].role, Role::kSystem);
  EXPECT_EQ(r.messages[0].content, "You are Claude Code.\nBe careful.");
  EXPECT_EQ(r.messages[1].role, Role::kUser);
  EXPECT_EQ(r.messages[1].content, "List files.");
  const Message& a = r.messages[2];
  EXPECT_EQ(a.role, Role::kAssistant);
  EXPECT_EQ(a.reasoning, "Use ls.");
  EXPECT_EQ(a.content, "Running ls.");
  ASSERT_EQ(a.tool_calls.size(), 1u);
  EXPECT_EQ(a.tool_calls[0].id, "toolu_1");
  EXPECT_EQ(a.tool_calls[0].name, "bash");
  EXPECT_EQ(a.tool_calls[0].arguments, R"({"cmd":"ls"})");
  EXPECT_EQ(r.messages[3].role, Role::kTool);
  EXPECT_EQ(r.messages[3].tool_call_id, "toolu_1");
  EXPECT_EQ(r.messages[3].name, "bash");
  EXPECT_EQ(r.messages[3].content, "a.txt\nb.txt");
  EXPECT_EQ(r.messages[4].role, Role::kUser);
  EXPECT_EQ(r.messages[4].content, "Now count them.");
  EXPECT_EQ(r.messages[5].tool_calls.at(0).arguments, R"({"cmd":"ls | wc -l"})");
  EXPECT_EQ(r.messages[6].role, Role::kTool);
  EXPECT_EQ(r.messages[6].content, "2\n(done)");
  ASSERT_EQ(r.tools.size(), 2u);
  EXPECT_EQ(r.tools[0].name, "bash");
  EXPECT_EQ(r.tools[0].description, "Run a command");
  EXPECT_EQ(r.tools[1].name, "edit");
  EXPECT_EQ(r.tool_choice.mode, ToolChoiceMode::kNamed);
  EXPECT_EQ(r.tool_choice.name, "bash");
  EXPECT_FALSE(r.parallel_tool_calls);
  EXPECT_EQ(r.stop, std::vector<std::string>{"</answer>"});
  EXPECT_EQ(r.temperature, 0.5);
  EXPECT_EQ(r.top_p, 0.8);
  EXPECT_EQ(r.top_k, 20);
  EXPECT_TRUE(r.stream);
  EXPECT_EQ(r.user, "user-7");
  EXPECT_EQ(r.enable_thinking, true);
  EXPECT_EQ(r.thinking_budget_tokens, 2048);
}

TEST(AnthropicDecoder, ToolChoiceAndThinkingVariants) {
  const std::string base =
      R"({"model":"m","max_tokens":5,"messages":[{"role":"user","content":"x"}],"tools":[{"name":"t","input_schema":{"type":"object"}}])";
  EXPECT_EQ(MustDecode(Api::kAnthropicMessages, base + R"(,"tool_choice":{"type":"any"}})")
                .tool_choice.mode,
            ToolChoiceMode::kRequired);
  EXPECT_EQ(MustDecode(Api::kAnthropicMessages, base + R"(,"tool_choice":{"type":"none"}})")
                .tool_choice.mode,
            ToolChoiceMode::kNone);
  ChatRequest r =
      MustDecode(Api::kAnthropicMessages,
                 base + R"(,"tool_choice":{"type":"auto"},"thinking":{"type":"disabled"}})");
  EXPECT_EQ(r.tool_choice.mode, ToolChoiceMode::kAuto);
  EXPECT_TRUE(r.parallel_tool_calls);
  EXPECT_EQ(r.enable_thinking, false);
  r = MustDecode(
      Api::kAnthropicMessages,
      base +
          R"(,"thinking":{"type":"adaptive"},"chat_template_kwargs":{"enable_thinking":false}})");
  EXPECT_EQ(r.enable_thinking, false);  // the explicit template switch wins
  r = MustDecode(Api::kAnthropicMessages,
                 R"({"model":"m","max_tokens":5,"messages":[{"role":"assistant","content":[]}]})");
  ASSERT_EQ(r.messages.size(), 1u);
  EXPECT_EQ(r.messages[0].role, Role::kAssistant);
}

TEST(AnthropicDecoder, RejectsBadRequestsNamingTheField) {
  const std::string head = R"({"model":"m","max_tokens":16,)";
  const std::string msgs = R"("messages":[{"role":"user","content":"hi"}])";
  const std::string base = head + msgs;
  const std::vector<BadRequest> cases = {
      {"{", ErrorCode::kParse, "not valid JSON", ""},
      {R"({"model":"m",)" + msgs + "}", ErrorCode::kInvalidArgument, "max_tokens: Field required",
       ""},
      {R"({"model":"m","max_tokens":0,)" + msgs + "}", ErrorCode::kInvalidArgument,
       "max_tokens must be an integer between 1 and 2147483647 (got 0)", ""},
      {R"({"max_tokens":5,)" + msgs + "}", ErrorCode::kInvalidArgument, "model is required", ""},
      {head + R"("messages":[]})", ErrorCode::kInvalidArgument,
       "messages must be a non-empty array", ""},
      {head + R"("messages":[{"role":"system","content":"x"}]})", ErrorCode::kInvalidArgument,
       "messages.0: use the top-level 'system' parameter for the initial system prompt", ""},
      {head + R"("messages":[{"role":"tool","content":"x"}]})", ErrorCode::kInvalidArgument,
       "messages.0.role: Input should be 'user', 'assistant' or 'system'", ""},
      {head +
           R"("messages":[{"role":"user","content":[{"type":"text","text":"a"},{"type":"image","source":{}}]}]})",
       ErrorCode::kUnsupported, "messages[0].content[1] is image content, which is not supported",
       ""},
      {head + R"("messages":[{"role":"user","content":[{"type":"document","source":{}}]}]})",
       ErrorCode::kUnsupported, "messages[0].content[0] is document content", ""},
      {head + R"("messages":[{"role":"user","content":7}]})", ErrorCode::kInvalidArgument,
       "messages[0].content must be a string or an array of content blocks", ""},
      {head +
           R"("messages":[{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"f","input":"x"}]}]})",
       ErrorCode::kInvalidArgument, "messages[0].content[0].input must be an object", ""},
      {head + R"("messages":[{"role":"user","content":[{"type":"tool_result","content":"x"}]}]})",
       ErrorCode::kInvalidArgument, "messages[0].content[0].tool_use_id must be a string", ""},
      {head +
           R"("messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"image","source":{}}]}]}]})",
       ErrorCode::kUnsupported, "messages[0].content[0].content[0] is image content", ""},
      {base + R"(,"system":5})", ErrorCode::kInvalidArgument,
       "system must be a string or an array of text blocks", ""},
      {base + R"(,"system":[{"type":"text"}]})", ErrorCode::kInvalidArgument,
       "system[0] must be a text block", ""},
      {base + R"(,"tools":[{"description":"no name"}]})", ErrorCode::kInvalidArgument,
       "tools[0].name must be a non-empty string", ""},
      {base + R"(,"tools":[{"name":"f","input_schema":[]}]})", ErrorCode::kInvalidArgument,
       "tools[0].input_schema must be an object", ""},
      {base + R"(,"tool_choice":"auto"})", ErrorCode::kInvalidArgument,
       "tool_choice must be an object", ""},
      {base + R"(,"tool_choice":{"type":"tool"}})", ErrorCode::kInvalidArgument,
       "tool_choice.name must be a non-empty string", ""},
      {base + R"(,"tools":[{"name":"f"}],"tool_choice":{"type":"tool","name":"g"}})",
       ErrorCode::kInvalidArgument,
       "tool_choice names tool 'g', which is not declared (declared tools: f)", ""},
      {base + R"(,"tool_choice":{"type":"any"}})", ErrorCode::kInvalidArgument,
       "tool_choice is 'any' but no tools are declared", ""},
      {base + R"(,"tool_choice":{"type":"sometimes"}})", ErrorCode::kInvalidArgument,
       "tool_choice.type must be one of auto, any, tool, none", ""},
      {base + R"(,"thinking":{"type":"enabled"}})", ErrorCode::kInvalidArgument,
       "thinking.budget_tokens is required", ""},
      {base + R"(,"thinking":{"type":"enabled","budget_tokens":0}})", ErrorCode::kInvalidArgument,
       "thinking.budget_tokens must be an integer between 1 and 2147483647 (got 0)", ""},
      {base + R"(,"thinking":{"type":"maybe"}})", ErrorCode::kInvalidArgument,
       "thinking.type must be one of", ""},
      {base + R"(,"temperature":1.5})", ErrorCode::kInvalidArgument,
       "temperature must be a number between 0 and 1 (got 1.5)", ""},
      {base + R"(,"top_k":"x"})", ErrorCode::kInvalidArgument, "top_k must be an integer", ""},
      {base + R"(,"stop_sequences":[1]})", ErrorCode::kInvalidArgument,
       "stop_sequences[0] must be a string", ""},
      {base + R"(,"metadata":{"user_id":5}})", ErrorCode::kInvalidArgument,
       "metadata.user_id must be a string", ""},
  };
  for (const BadRequest& bad : cases)
    ExpectRejected(Api::kAnthropicMessages, bad);
}

TEST(AnthropicDecoder, ErrorBodiesUseTheAnthropicShape) {
  auto r = DecodeAnthropicMessages(R"({"model":"m","messages":[]})");
  ASSERT_FALSE(r.ok());
  HttpError http = EncodeError(Api::kAnthropicMessages, r.error());
  EXPECT_EQ(http.status, 400);
  EXPECT_EQ(
      http.body,
      R"({"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: Field required"}})");
}

}  // namespace
}  // namespace crux::protocol

namespace crux::protocol {
namespace {

// Claude Code's mid-conversation system messages (beta mid-conversation-system-2026-04-07):
// kept in their place in the conversation where the beta allows them.
TEST(AnthropicDecoder, SystemMessagesInsideMessagesKeepTheirPlace) {
  ChatRequest r = testutil::MustDecode(Api::kAnthropicMessages, R"({
    "model":"m","max_tokens":16,"system":[{"type":"text","text":"You are an agent."}],
    "messages":[
      {"role":"user","content":[{"type":"text","text":"Say hi"}]},
      {"role":"system","content":[{"type":"text","text":"# Environment"},{"type":"text","text":"cwd: /tmp","cache_control":{"type":"ephemeral"}}]},
      {"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"ls"}}]},
      {"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"a.txt"}]},
      {"role":"system","content":"Be brief."}]})");
  ASSERT_EQ(r.messages.size(), 6u);
  EXPECT_EQ(r.messages[0].role, Role::kSystem);
  EXPECT_EQ(r.messages[0].content, "You are an agent.");
  EXPECT_EQ(r.messages[1].role, Role::kUser);
  EXPECT_EQ(r.messages[2].role, Role::kSystem);
  EXPECT_EQ(r.messages[2].content, "# Environment\ncwd: /tmp");
  EXPECT_EQ(r.messages[3].role, Role::kAssistant);
  EXPECT_EQ(r.messages[4].role, Role::kTool);
  EXPECT_EQ(r.messages[4].name, "Bash");
  // The trailing system message follows the tool result (a user turn on the wire).
  EXPECT_EQ(r.messages[5].role, Role::kSystem);
  EXPECT_EQ(r.messages[5].content, "Be brief.");
}

TEST(AnthropicDecoder, MisplacedSystemMessagesNameTheBetaSoClientsFallBack) {
  const std::string head = R"({"model":"m","max_tokens":16,"messages":)";
  const std::string beta = "anthropic-beta mid-conversation-system-2026-04-07";
  const std::vector<testutil::BadRequest> cases = {
      // Two system messages in a row.
      {head +
           R"([{"role":"user","content":"a"},{"role":"system","content":"b"},{"role":"system","content":"c"}]})",
       ErrorCode::kInvalidArgument, "messages.1: a system message must follow a user message", ""},
      // Followed by a user message.
      {head +
           R"([{"role":"user","content":"a"},{"role":"system","content":"b"},{"role":"user","content":"c"}]})",
       ErrorCode::kInvalidArgument, beta, ""},
      // After an assistant turn.
      {head +
           R"([{"role":"user","content":"a"},{"role":"assistant","content":"b"},{"role":"system","content":"c"}]})",
       ErrorCode::kInvalidArgument, beta, ""},
      {head + R"([{"role":"user","content":"a"},{"role":"system"}]})", ErrorCode::kInvalidArgument,
       "messages.1.content: Field required", ""},
      {head +
           R"([{"role":"user","content":"a"},{"role":"system","content":[{"type":"image","source":{}}]}]})",
       ErrorCode::kUnsupported, "is image content", ""},
  };
  for (const testutil::BadRequest& bad : cases)
    testutil::ExpectRejected(Api::kAnthropicMessages, bad);
  // The wording Claude Code looks for before it retries without the beta: both the header
  // name and the beta's name.
  auto r = DecodeAnthropicMessages(cases[1].body);
  ASSERT_FALSE(r.ok());
  const HttpError http = EncodeError(Api::kAnthropicMessages, r.error());
  EXPECT_EQ(http.status, 400);
  EXPECT_NE(http.body.find("anthropic-beta"), std::string::npos);
  EXPECT_NE(http.body.find("mid-conversation-system-2026-04-07"), std::string::npos);
  EXPECT_NE(http.body.find("\"type\":\"invalid_request_error\""), std::string::npos);
}

// A thinking block sent back by a client is accepted as it was given, signature included.
TEST(AnthropicDecoder, ThinkingBlocksComeBackWithTheirSignature) {
  ChatRequest r = testutil::MustDecode(Api::kAnthropicMessages, R"({
    "model":"m","max_tokens":16,"messages":[
      {"role":"user","content":"Weather?"},
      {"role":"assistant","content":[
        {"type":"thinking","thinking":"Call the tool.","signature":"crux-0123456789abcdef"},
        {"type":"redacted_thinking","data":"opaque"},
        {"type":"text","text":"Let me check."}]},
      {"role":"user","content":"Thanks"}]})");
  ASSERT_EQ(r.messages.size(), 3u);
  EXPECT_EQ(r.messages[1].reasoning, "Call the tool.");
  EXPECT_EQ(r.messages[1].content, "Let me check.");
}

}  // namespace
}  // namespace crux::protocol
