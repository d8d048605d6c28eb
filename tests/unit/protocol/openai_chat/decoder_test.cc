#include <gtest/gtest.h>

#include "unit/protocol/decoder_test_util.h"

namespace crux::protocol {
namespace {

using testutil::BadRequest;
using testutil::ExpectRejected;
using testutil::MustDecode;

constexpr char kFull[] = R"json({
  "model": "qwen",
  "messages": [
    {"role": "system", "content": "You are terse."},
    {"role": "user", "content": [{"type": "text", "text": "Weather"}, {"type": "text", "text": "in Paris?"}]},
    {"role": "assistant", "content": null, "reasoning_content": "Use the tool.",
     "tool_calls": [{"id": "call_1", "type": "function",
                     "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}}]},
    {"role": "tool", "tool_call_id": "call_1", "content": "sunny"},
    {"role": "developer", "content": "Answer in French."}
  ],
  "tools": [
    {"type": "function", "function": {"name": "get_weather", "description": "Weather",
      "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}},
    {"type": "custom", "custom": {"name": "shell"}},
    {"type": "web_search"}
  ],
  "tool_choice": {"type": "function", "function": {"name": "get_weather"}},
  "parallel_tool_calls": false,
  "max_tokens": 50, "max_completion_tokens": 100,
  "stop": "END", "temperature": 0.2, "top_p": 0.9, "top_k": 40, "seed": 7,
  "stream": true, "stream_options": {"include_usage": true},
  "response_format": {"type": "json_schema", "json_schema": {"name": "w", "strict": true,
    "schema": {"type": "object", "properties": {"t": {"type": "number"}}}}},
  "reasoning_effort": "low",
  "chat_template_kwargs": {"enable_thinking": false, "custom": 1},
  "thinking_token_budget": 256,
  "user": "u1", "metadata": {"k": "v"}, "store": false,
  "frobnicate": {"ignored": true}
})json";

TEST(ChatDecoder, ReadsEveryField) {
  ChatRequest r = MustDecode(Api::kChatCompletions, kFull);
  EXPECT_EQ(r.api, Api::kChatCompletions);
  EXPECT_EQ(r.model, "qwen");
  ASSERT_EQ(r.messages.size(), 4u);
  EXPECT_EQ(r.messages[0].role, Role::kSystem);
  EXPECT_EQ(r.messages[0].content, "You are terse.\n\nAnswer in French.");
  EXPECT_EQ(r.messages[1].role, Role::kUser);
  EXPECT_EQ(r.messages[1].content, "Weather\nin Paris?");
  EXPECT_EQ(r.messages[2].role, Role::kAssistant);
  EXPECT_EQ(r.messages[2].content, "");
  EXPECT_EQ(r.messages[2].reasoning, "Use the tool.");
  ASSERT_EQ(r.messages[2].tool_calls.size(), 1u);
  EXPECT_EQ(r.messages[2].tool_calls[0].id, "call_1");
  EXPECT_EQ(r.messages[2].tool_calls[0].name, "get_weather");
  EXPECT_EQ(r.messages[2].tool_calls[0].arguments, R"({"city":"Paris"})");
  EXPECT_EQ(r.messages[3].role, Role::kTool);
  EXPECT_EQ(r.messages[3].tool_call_id, "call_1");
  EXPECT_EQ(r.messages[3].name, "get_weather");
  EXPECT_EQ(r.messages[3].content, "sunny");
  ASSERT_EQ(r.tools.size(), 1u);
  EXPECT_EQ(r.tools[0].name, "get_weather");
  EXPECT_EQ(r.tools[0].description, "Weather");
  EXPECT_EQ(r.tools[0].TypeOf("city"), parse::ParamType::kString);
  EXPECT_EQ(r.tool_choice.mode, ToolChoiceMode::kNamed);
  EXPECT_EQ(r.tool_choice.name, "get_weather");
  EXPECT_FALSE(r.parallel_tool_calls);
  EXPECT_EQ(r.max_tokens, 100);
  EXPECT_EQ(r.stop, std::vector<std::string>{"END"});
  EXPECT_EQ(r.temperature, 0.2);
  EXPECT_EQ(r.top_p, 0.9);
  EXPECT_EQ(r.top_k, 40);
  EXPECT_EQ(r.seed, 7u);
  EXPECT_TRUE(r.stream);
  EXPECT_TRUE(r.include_usage);
  EXPECT_EQ(r.response_format.kind, ResponseFormatKind::kJsonSchema);
  EXPECT_EQ(r.response_format.name, "w");
  EXPECT_TRUE(r.response_format.strict);
  EXPECT_EQ(r.response_format.schema_json,
            R"({"type":"object","properties":{"t":{"type":"number"}}})");
  EXPECT_EQ(r.reasoning_effort, "low");
  EXPECT_EQ(r.enable_thinking, false);
  EXPECT_EQ(r.chat_template_kwargs_json, R"({"enable_thinking":false,"custom":1})");
  EXPECT_EQ(r.thinking_budget_tokens, 256);
  EXPECT_EQ(r.user, "u1");
  EXPECT_EQ(r.metadata_json, R"({"k":"v"})");
  EXPECT_FALSE(r.store);
}

TEST(ChatDecoder, DefaultsAndNulls) {
  ChatRequest r = MustDecode(Api::kChatCompletions, R"({"model":"m","messages":[
      {"role":"user","content":"hi"}],"tools":null,"stop":null,"max_tokens":null,
      "temperature":null,"tool_choice":null,"top_k":-1})");
  EXPECT_TRUE(r.tools.empty());
  EXPECT_TRUE(r.stop.empty());
  EXPECT_FALSE(r.max_tokens.has_value());
  EXPECT_FALSE(r.temperature.has_value());
  EXPECT_FALSE(r.top_k.has_value());
  EXPECT_EQ(r.tool_choice.mode, ToolChoiceMode::kAuto);
  EXPECT_TRUE(r.parallel_tool_calls);
  EXPECT_FALSE(r.stream);
  EXPECT_FALSE(r.include_usage);
  EXPECT_EQ(r.response_format.kind, ResponseFormatKind::kText);
  EXPECT_EQ(r.chat_template_kwargs_json, "{}");
  ASSERT_EQ(r.messages.size(), 1u);
  EXPECT_EQ(r.messages[0].role, Role::kUser);
}

TEST(ChatDecoder, ToolChoiceModesAndStopArrays) {
  const std::string tools =
      R"("tools":[{"type":"function","function":{"name":"f"}}],"messages":[{"role":"user","content":"x"}],"model":"m")";
  EXPECT_EQ(
      MustDecode(Api::kChatCompletions, "{" + tools + R"(,"tool_choice":"none"})").tool_choice.mode,
      ToolChoiceMode::kNone);
  EXPECT_EQ(MustDecode(Api::kChatCompletions, "{" + tools + R"(,"tool_choice":"required"})")
                .tool_choice.mode,
            ToolChoiceMode::kRequired);
  ChatRequest r =
      MustDecode(Api::kChatCompletions, "{" + tools + R"(,"stop":["a","","b"],"max_tokens":9})");
  EXPECT_EQ(r.stop, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(r.max_tokens, 9);
  EXPECT_EQ(r.tools[0].parameters_json, R"({"type":"object","properties":{}})");
  r = MustDecode(Api::kChatCompletions,
                 "{" + tools + R"(,"response_format":{"type":"json_object"},"max_tokens":8.0})");
  EXPECT_EQ(r.response_format.kind, ResponseFormatKind::kJsonObject);
  EXPECT_EQ(r.max_tokens, 8);
}

TEST(ChatDecoder, RejectsBadRequestsNamingTheField) {
  const std::string m = R"("model":"m")";
  const std::string msgs = R"("messages":[{"role":"user","content":"hi"}])";
  const std::string base = "{" + m + "," + msgs;
  const std::vector<BadRequest> cases = {
      {"{\"model\":", ErrorCode::kParse, "not valid JSON", ""},
      {"[1]", ErrorCode::kInvalidArgument, "must be a JSON object", ""},
      {"{" + m + "," + msgs + R"(,"temperature":1e999})", ErrorCode::kInvalidArgument,
       "beyond the range of a double", ""},
      {"{" + msgs + "}", ErrorCode::kInvalidArgument, "model is required", "model"},
      {R"({"model":5,)" + msgs + "}", ErrorCode::kInvalidArgument,
       "model must be a non-empty string", "model"},
      {"{" + m + "}", ErrorCode::kInvalidArgument, "messages is required", "messages"},
      {"{" + m + R"(,"messages":"hi"})", ErrorCode::kInvalidArgument, "messages must be an array",
       "messages"},
      {"{" + m + R"(,"messages":[]})", ErrorCode::kInvalidArgument,
       "messages must be a non-empty array", "messages"},
      {"{" + m + R"(,"messages":[{"role":"user","content":5}]})", ErrorCode::kInvalidArgument,
       "messages[0].content must be a string or an array of content parts", "messages[0].content"},
      {"{" + m + R"(,"messages":[{"role":"wizard","content":"x"}]})", ErrorCode::kInvalidArgument,
       "messages[0].role must be one of", "messages[0].role"},
      {"{" + m + R"(,"messages":[{"content":"x"}]})", ErrorCode::kInvalidArgument,
       "messages[0].role must be", "messages[0].role"},
      {"{" + m +
           R"(,"messages":[{"role":"user","content":[{"type":"text","text":"a"},{"type":"image_url","image_url":{"url":"x"}}]}]})",
       ErrorCode::kUnsupported, "messages[0].content[1] is image_url content",
       "messages[0].content[1]"},
      {"{" + m + R"(,"messages":[{"role":"user","content":[{"type":"text","text":7}]}]})",
       ErrorCode::kInvalidArgument, "messages[0].content[0].text must be a string",
       "messages[0].content[0].text"},
      {"{" + m + R"(,"messages":[{"role":"tool","content":"x"}]})", ErrorCode::kInvalidArgument,
       "messages[0].tool_call_id must be", "messages[0].tool_call_id"},
      {"{" + m +
           R"(,"messages":[{"role":"assistant","tool_calls":[{"id":"c","function":{"name":"f","arguments":"{bad"}}]}]})",
       ErrorCode::kInvalidArgument,
       "messages[0].tool_calls[0].function.arguments must be a string holding a JSON object",
       "messages[0].tool_calls[0].function.arguments"},
      {"{" + m + R"(,"messages":[{"role":"assistant","tool_calls":[{"id":"c","function":{}}]}]})",
       ErrorCode::kInvalidArgument, "messages[0].tool_calls[0].function.name",
       "messages[0].tool_calls[0].function.name"},
      {base + R"(,"tools":[{"type":"function","function":{"description":"d"}}]})",
       ErrorCode::kInvalidArgument, "tools[0].function.name must be a non-empty string",
       "tools[0].function.name"},
      {base + R"(,"tools":[{"type":"function","function":{"name":"f","parameters":5}}]})",
       ErrorCode::kInvalidArgument, "tools[0].function.parameters must be an object",
       "tools[0].function.parameters"},
      {base + R"(,"tools":{"a":1}})", ErrorCode::kInvalidArgument, "tools must be an array",
       "tools"},
      {base + R"(,"max_tokens":0})", ErrorCode::kInvalidArgument,
       "max_tokens must be an integer between 1 and 2147483647 (got 0)", "max_tokens"},
      {base + R"(,"max_tokens":99999999999})", ErrorCode::kInvalidArgument,
       "max_tokens must be an integer between 1 and 2147483647 (got 99999999999)", "max_tokens"},
      {base + R"(,"max_tokens":"10"})", ErrorCode::kInvalidArgument,
       "max_tokens must be an integer between 1 and 2147483647 (got a string)", "max_tokens"},
      {base + R"(,"max_tokens":1.5})", ErrorCode::kInvalidArgument,
       "max_tokens must be an integer between 1 and 2147483647 (got 1.5)", "max_tokens"},
      {base + R"(,"max_completion_tokens":-5})", ErrorCode::kInvalidArgument,
       "max_completion_tokens must be an integer between 1 and 2147483647 (got -5)",
       "max_completion_tokens"},
      {base + R"(,"temperature":3})", ErrorCode::kInvalidArgument,
       "temperature must be a number between 0 and 2 (got 3)", "temperature"},
      {base + R"(,"top_p":"high"})", ErrorCode::kInvalidArgument, "top_p must be a number",
       "top_p"},
      {base + R"(,"stop":5})", ErrorCode::kInvalidArgument,
       "stop must be a string or an array of strings", "stop"},
      {base + R"(,"stop":["a",1]})", ErrorCode::kInvalidArgument, "stop[1] must be a string",
       "stop[1]"},
      {base +
           R"(,"tools":[{"type":"function","function":{"name":"get_weather"}}],"tool_choice":{"type":"function","function":{"name":"nope"}}})",
       ErrorCode::kInvalidArgument,
       "tool_choice names tool 'nope', which is not declared (declared tools: get_weather)",
       "tool_choice"},
      {base + R"(,"tool_choice":{"type":"function","function":{"name":"nope"}}})",
       ErrorCode::kInvalidArgument, "(no tools are declared)", "tool_choice"},
      {base + R"(,"tool_choice":"required"})", ErrorCode::kInvalidArgument,
       "tool_choice is 'required' but no tools are declared", "tool_choice"},
      {base + R"(,"tool_choice":"sometimes"})", ErrorCode::kInvalidArgument, "tool_choice must be",
       "tool_choice"},
      {base + R"(,"tool_choice":{"type":"function","function":{}}})", ErrorCode::kInvalidArgument,
       "tool_choice.function.name", "tool_choice.function.name"},
      {base + R"(,"response_format":{"type":"xml"}})", ErrorCode::kInvalidArgument,
       "response_format.type must be one of", "response_format.type"},
      {base + R"(,"response_format":{"type":"json_schema"}})", ErrorCode::kInvalidArgument,
       "response_format.json_schema must be an object", "response_format.json_schema"},
      {base + R"(,"chat_template_kwargs":"x"})", ErrorCode::kInvalidArgument,
       "chat_template_kwargs must be an object", "chat_template_kwargs"},
      {base + R"(,"chat_template_kwargs":{"enable_thinking":"yes"}})", ErrorCode::kInvalidArgument,
       "chat_template_kwargs.enable_thinking must be a boolean",
       "chat_template_kwargs.enable_thinking"},
      {base + R"(,"thinking_token_budget":-1})", ErrorCode::kInvalidArgument,
       "thinking_token_budget must be an integer between 0 and 2147483647 (got -1)",
       "thinking_token_budget"},
      {base + R"(,"n":2})", ErrorCode::kUnsupported, "n must be 1", "n"},
      {base + R"(,"stream":"yes"})", ErrorCode::kInvalidArgument, "stream must be a boolean",
       "stream"},
      {base + R"(,"stream_options":{"include_usage":1}})", ErrorCode::kInvalidArgument,
       "stream_options.include_usage must be a boolean", "stream_options.include_usage"},
      {base + R"(,"metadata":[1]})", ErrorCode::kInvalidArgument, "metadata must be an object",
       "metadata"},
      {base + ",\"x\":" + std::string(200, '[') + std::string(200, ']') + "}",
       ErrorCode::kInvalidArgument, "nests deeper than", ""},
  };
  for (const BadRequest& bad : cases)
    ExpectRejected(Api::kChatCompletions, bad);
}

TEST(ChatDecoder, InvalidUtf8InTheBodyIsAParseError) {
  auto r = DecodeChatCompletions(
      "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"\xff\"}]}");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code(), ErrorCode::kParse);
  EXPECT_FALSE(r.error().message().empty());
}

}  // namespace
}  // namespace crux::protocol
