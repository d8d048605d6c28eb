#include <gtest/gtest.h>

#include "unit/protocol/decoder_test_util.h"

namespace crux::protocol {
namespace {

using testutil::BadRequest;
using testutil::ExpectRejected;
using testutil::MustDecode;

constexpr char kFull[] = R"json({
  "model": "gpt-like",
  "instructions": "You are Codex.",
  "input": [
    {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "Sandbox: read-only."}]},
    {"role": "user", "content": "Run echo"},
    {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "Use the shell."}],
     "encrypted_content": "opaque"},
    {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Running."}]},
    {"type": "function_call", "id": "fc_1", "call_id": "call_9", "name": "exec_command",
     "arguments": "{\"cmd\":\"echo hi\"}"},
    {"type": "function_call_output", "call_id": "call_9", "output": "hi\n"},
    {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Thanks"}, {"type": "input_text", "text": "Bye"}]}
  ],
  "tools": [
    {"type": "function", "name": "exec_command", "description": "Run a command", "strict": false,
     "parameters": {"type": "object", "properties": {"cmd": {"type": "string"}}, "required": ["cmd"]}},
    {"type": "web_search"},
    {"type": "namespace", "name": "multi_agent_v1", "tools": [{"type": "function", "name": "spawn"}]}
  ],
  "tool_choice": {"type": "function", "name": "exec_command"},
  "parallel_tool_calls": false,
  "max_output_tokens": 300,
  "temperature": 0.3, "top_p": 0.95,
  "stream": true, "store": false,
  "metadata": {"session": "s1"}, "user": "dev",
  "truncation": "auto",
  "text": {"format": {"type": "json_schema", "name": "out", "strict": true,
                      "schema": {"type": "object"}}, "verbosity": "low"},
  "reasoning": {"effort": "high", "summary": "auto"},
  "include": ["reasoning.encrypted_content"], "prompt_cache_key": "k"
})json";

TEST(ResponsesDecoder, ReadsEveryField) {
  ChatRequest r = MustDecode(Api::kResponses, kFull);
  EXPECT_EQ(r.api, Api::kResponses);
  EXPECT_EQ(r.model, "gpt-like");
  EXPECT_EQ(r.instructions, "You are Codex.");
  ASSERT_EQ(r.messages.size(), 5u);
  EXPECT_EQ(r.messages[0].role, Role::kSystem);
  EXPECT_EQ(r.messages[0].content, "You are Codex.\n\nSandbox: read-only.");
  EXPECT_EQ(r.messages[1].content, "Run echo");
  const Message& a = r.messages[2];
  EXPECT_EQ(a.role, Role::kAssistant);
  EXPECT_EQ(a.reasoning, "Use the shell.");
  EXPECT_EQ(a.content, "Running.");
  ASSERT_EQ(a.tool_calls.size(), 1u);
  EXPECT_EQ(a.tool_calls[0].id, "call_9");
  EXPECT_EQ(a.tool_calls[0].name, "exec_command");
  EXPECT_EQ(a.tool_calls[0].arguments, R"({"cmd":"echo hi"})");
  EXPECT_EQ(r.messages[3].role, Role::kTool);
  EXPECT_EQ(r.messages[3].tool_call_id, "call_9");
  EXPECT_EQ(r.messages[3].name, "exec_command");
  EXPECT_EQ(r.messages[3].content, "hi\n");
  EXPECT_EQ(r.messages[4].content, "Thanks\nBye");
  ASSERT_EQ(r.tools.size(), 1u);
  EXPECT_EQ(r.tools[0].name, "exec_command");
  EXPECT_EQ(r.tool_choice.mode, ToolChoiceMode::kNamed);
  EXPECT_EQ(r.tool_choice.name, "exec_command");
  EXPECT_FALSE(r.parallel_tool_calls);
  EXPECT_EQ(r.max_tokens, 300);
  EXPECT_EQ(r.temperature, 0.3);
  EXPECT_EQ(r.top_p, 0.95);
  EXPECT_TRUE(r.stream);
  EXPECT_FALSE(r.store);
  EXPECT_EQ(r.metadata_json, R"({"session":"s1"})");
  EXPECT_EQ(r.user, "dev");
  EXPECT_FALSE(r.previous_response_id.has_value());
  EXPECT_EQ(r.reasoning_summary, "auto");
  EXPECT_EQ(r.truncation, "auto");
  EXPECT_EQ(r.response_format.kind, ResponseFormatKind::kJsonSchema);
  EXPECT_EQ(r.response_format.name, "out");
  EXPECT_EQ(r.response_format.schema_json, R"({"type":"object"})");
  EXPECT_TRUE(r.response_format.strict);
  EXPECT_EQ(r.reasoning_effort, "high");
  EXPECT_EQ(r.text_format_json.substr(0, 10), R"({"format":)");
  EXPECT_EQ(r.tool_choice_json, R"({"type":"function","name":"exec_command"})");
  EXPECT_EQ(r.tools_json.find(R"({"type":"web_search"})") != std::string::npos, true);
}

TEST(ResponsesDecoder, StringInputAndDefaults) {
  ChatRequest r = MustDecode(Api::kResponses, R"({"model":"m","input":"Hello"})");
  ASSERT_EQ(r.messages.size(), 1u);
  EXPECT_EQ(r.messages[0].role, Role::kUser);
  EXPECT_EQ(r.messages[0].content, "Hello");
  EXPECT_FALSE(r.store) << "without a store nothing is stored, and the response says so";
  EXPECT_EQ(r.truncation, "disabled");
  EXPECT_EQ(r.tool_choice.mode, ToolChoiceMode::kAuto);
  EXPECT_EQ(r.input_items_json, "[]") << "nothing is kept for a store there is not";
  r = MustDecode(
      Api::kResponses,
      R"({"model":"m","input":"x","text":{"format":{"type":"json_object"}},"tools":[{"type":"function","name":"f"}],"tool_choice":"required"})");
  EXPECT_EQ(r.response_format.kind, ResponseFormatKind::kJsonObject);
  EXPECT_EQ(r.tool_choice.mode, ToolChoiceMode::kRequired);
}

// An mcp_call item (crux's tool loop reports executed MCP calls so) joins the conversation as
// the assistant's call to server__tool and its result; mcp_tools reads true, a list, or off.
TEST(ResponsesDecoder, McpCallItemsBecomeACallAndItsResult) {
  auto r = DecodeResponses(R"({"model":"m","mcp_tools":["fs"],"input":[
    {"type":"message","role":"user","content":"read it"},
    {"type":"mcp_call","id":"mcp_1","server_label":"fs","name":"read_text_file",
     "arguments":"{\"path\":\"/srv/a\"}","output":"hello","error":null,"status":"completed"},
    {"type":"mcp_call","id":"mcp_2","server_label":"fs","name":"read_text_file",
     "arguments":"{}","output":null,"error":"denied","status":"failed"},
    {"type":"message","role":"user","content":"thanks"}]})");
  ASSERT_TRUE(r.ok()) << r.error().message();
  // user, then per item the assistant's call and its result, then user.
  ASSERT_EQ(r->messages.size(), 6u);
  const Message& assistant = r->messages[1];
  EXPECT_EQ(assistant.role, Role::kAssistant);
  ASSERT_EQ(assistant.tool_calls.size(), 1u);
  EXPECT_EQ(assistant.tool_calls[0].name, "fs__read_text_file");
  EXPECT_EQ(assistant.tool_calls[0].arguments, R"({"path":"/srv/a"})");
  EXPECT_EQ(r->messages[2].role, Role::kTool);
  EXPECT_EQ(r->messages[2].tool_call_id, "mcp_1");
  EXPECT_EQ(r->messages[2].content, "hello");
  EXPECT_EQ(r->messages[3].tool_calls.at(0).id, "mcp_2");
  EXPECT_EQ(r->messages[4].content, "Error: denied");
  ASSERT_TRUE(r->mcp_tools.has_value());
  EXPECT_EQ(*r->mcp_tools, std::vector<std::string>{"fs"});
  EXPECT_FALSE(DecodeResponses(R"({"model":"m","input":"x","mcp_tools":false})")->mcp_tools);
  EXPECT_TRUE(DecodeResponses(R"({"model":"m","input":"x","mcp_tools":true})")->mcp_tools->empty());
  EXPECT_FALSE(DecodeResponses(R"({"model":"m","input":"x","mcp_tools":[]})").ok());
  // The server adds the MCP tools after decoding: tool_choice is checked against them then.
  EXPECT_TRUE(
      DecodeResponses(R"({"model":"m","input":"x","mcp_tools":true,"tool_choice":"required"})")
          .ok());
  EXPECT_FALSE(DecodeResponses(R"({"model":"m","input":"x","mcp_tools":"fs"})").ok());
}

TEST(ResponsesDecoder, RejectsBadRequestsNamingTheField) {
  const std::string base = R"({"model":"m","input":"hi")";
  const std::vector<BadRequest> cases = {
      {"nope", ErrorCode::kParse, "not valid JSON", ""},
      {R"({"input":"hi"})", ErrorCode::kInvalidArgument, "model is required", "model"},
      {R"({"model":"m"})", ErrorCode::kInvalidArgument, "input is required", "input"},
      {R"({"model":"m","input":5})", ErrorCode::kInvalidArgument,
       "input must be a string or an array of input items", "input"},
      {R"({"model":"m","input":[5]})", ErrorCode::kInvalidArgument, "input[0] must be an object",
       "input[0]"},
      {R"({"model":"m","input":[{"type":"message","role":"wizard","content":"x"}]})",
       ErrorCode::kInvalidArgument, "input[0].role must be one of", "input[0].role"},
      {R"({"model":"m","input":[{"role":"user","content":[{"type":"input_image","image_url":"x"}]}]})",
       ErrorCode::kUnsupported, "input[0].content[0] is input_image content",
       "input[0].content[0]"},
      {R"({"model":"m","input":[{"type":"function_call","name":"f","arguments":"{}"}]})",
       ErrorCode::kInvalidArgument, "input[0].call_id must be a string", "input[0].call_id"},
      {R"({"model":"m","input":[{"type":"function_call","call_id":"c","name":"f","arguments":"[1]"}]})",
       ErrorCode::kInvalidArgument, "input[0].arguments must be a string holding a JSON object",
       "input[0].arguments"},
      {R"({"model":"m","input":[{"type":"function_call_output","output":"x"}]})",
       ErrorCode::kInvalidArgument, "input[0].call_id must be a string", "input[0].call_id"},
      {base + R"(,"tools":[{"type":"function","description":"d"}]})", ErrorCode::kInvalidArgument,
       "tools[0].name must be a non-empty string", "tools[0].name"},
      {base +
           R"(,"tools":[{"type":"function","name":"f"}],"tool_choice":{"type":"function","name":"g"}})",
       ErrorCode::kInvalidArgument,
       "tool_choice names tool 'g', which is not declared (declared tools: f)", "tool_choice"},
      {base + R"(,"tool_choice":{"type":"web_search_preview"}})", ErrorCode::kUnsupported,
       "tool_choice.type 'web_search_preview' is not supported", ""},
      {base + R"(,"max_output_tokens":4294967296})", ErrorCode::kInvalidArgument,
       "max_output_tokens must be an integer between 1 and 2147483647 (got 4294967296)",
       "max_output_tokens"},
      {base + R"(,"max_output_tokens":0})", ErrorCode::kInvalidArgument,
       "max_output_tokens must be an integer between 1 and 2147483647 (got 0)",
       "max_output_tokens"},
      {base + R"(,"truncation":"sometimes"})", ErrorCode::kInvalidArgument,
       "truncation must be \"auto\" or \"disabled\"", "truncation"},
      {base + R"(,"text":{"format":{"type":"xml"}}})", ErrorCode::kInvalidArgument,
       "text.format.type must be one of", "text.format.type"},
      {base + R"(,"text":{"format":{"type":"json_schema","schema":[]}}})",
       ErrorCode::kInvalidArgument, "text.format.schema must be an object", "text.format.schema"},
      {base + R"(,"reasoning":{"effort":1}})", ErrorCode::kInvalidArgument,
       "reasoning.effort must be a string", "reasoning.effort"},
      {base + R"(,"instructions":["x"]})", ErrorCode::kInvalidArgument,
       "instructions must be a string", "instructions"},
      {base + R"(,"store":"no"})", ErrorCode::kInvalidArgument, "store must be a boolean", "store"},
  };
  for (const BadRequest& bad : cases)
    ExpectRejected(Api::kResponses, bad);
}

}  // namespace
}  // namespace crux::protocol
