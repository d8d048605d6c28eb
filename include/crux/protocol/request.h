// The canonical chat request: what the three wire protocols (OpenAI Chat Completions,
// Anthropic Messages, OpenAI Responses) decode into. Protocol-neutral except for the fields a
// protocol must echo back in its response.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "crux/parse/tool_spec.h"

namespace crux::protocol {

// kCompletions: OpenAI's legacy `/v1/completions` (a raw prompt; no template, no parsers).
enum class Api : uint8_t { kChatCompletions, kAnthropicMessages, kResponses, kCompletions };
// "chat.completions", "messages", "responses", "completions"
std::string_view ApiName(Api api);

enum class Role : uint8_t { kSystem, kUser, kAssistant, kTool };
std::string_view RoleName(Role role);

struct MessageToolCall {
  std::string id;
  std::string name;
  std::string arguments;  // JSON text of an object
};

struct Message {
  Role role = Role::kUser;
  std::string content;                      // text (parts joined); may be empty
  std::string reasoning;                    // assistant reasoning/thinking given back in history
  std::vector<MessageToolCall> tool_calls;  // assistant turns
  std::string tool_call_id;                 // tool results
  std::string name;                         // tool results: the tool's name when known
};

enum class ToolChoiceMode : uint8_t { kAuto, kNone, kRequired, kNamed };

struct ToolChoice {
  ToolChoiceMode mode = ToolChoiceMode::kAuto;
  std::string name;  // kNamed
};

enum class ResponseFormatKind : uint8_t { kText, kJsonObject, kJsonSchema };

struct ResponseFormat {
  ResponseFormatKind kind = ResponseFormatKind::kText;
  std::string name;         // json_schema name
  std::string schema_json;  // json_schema schema (JSON text)
  bool strict = false;
};

struct ChatRequest {
  Api api = Api::kChatCompletions;
  std::string model;
  std::vector<Message> messages;       // system/instructions first, merged into one message
  std::vector<parse::ToolSpec> tools;  // function tools; other tool types are dropped
  ToolChoice tool_choice;
  bool parallel_tool_calls = true;

  // kCompletions: the prompt as given (sent to the model without a template), and `echo`
  // (the prompt is written before the output).
  std::string prompt_text;
  bool echo = false;

  std::optional<int> max_tokens;  // max_tokens / max_completion_tokens / max_output_tokens
  std::vector<std::string> stop;  // stop / stop_sequences
  std::optional<double> temperature;
  std::optional<double> top_p;
  std::optional<int> top_k;
  std::optional<uint64_t> seed;
  std::optional<double> min_p;
  std::optional<double> presence_penalty;              // -2 to 2
  std::optional<double> frequency_penalty;             // -2 to 2
  std::optional<double> repetition_penalty;            // llama.cpp's form: > 1 discourages repeats
  std::vector<std::pair<uint32_t, float>> logit_bias;  // token id → bias in [-100, 100]

  bool stream = false;
  bool include_usage = false;      // stream_options.include_usage (Chat Completions)
  ResponseFormat response_format;  // response_format / text.format

  // Reasoning controls: enable_thinking from chat_template_kwargs or Anthropic `thinking`
  // (enabled/disabled); a token budget from `thinking.budget_tokens` or
  // `thinking_token_budget`; the effort string from `reasoning_effort` / `reasoning.effort`.
  std::optional<bool> enable_thinking;
  std::optional<int> thinking_budget_tokens;
  std::string reasoning_effort;
  // Responses `reasoning.summary` ("auto", "concise", "detailed"; "" = not asked): when asked,
  // the reasoning is reported as the reasoning item's summary (summary_text parts and the
  // reasoning_summary_* events), which is where OpenAI's clients read it.
  std::string reasoning_summary;
  std::string chat_template_kwargs_json = "{}";  // JSON object passed to the chat template

  // crux extension, every API: the request names its own parsers (top-level
  // `reasoning_parser` and `tool_call_parser`, any registered name or alias) instead of the
  // server's --reasoning-parser / --tool-call-parser; an empty reasoning_parser turns
  // reasoning parsing off, an empty tool_call_parser means "auto". nullopt: the server's
  // choice. The pipeline checks the names.
  std::optional<std::string> reasoning_parser;
  std::optional<std::string> tool_parser;

  // crux extension, every API: `mcp_tools` asks the server to offer the operator's MCP tools
  // and run the model's calls to them itself, continuing generation with their results (the
  // tool loop; `crux serve --mcp-tool-loop`). nullopt: off (false or absent); empty: every
  // tool the server offers (true); otherwise server names or full tool names.
  std::optional<std::vector<std::string>> mcp_tools;
  // Set by the server, not decoded: which of `tools` are MCP tools it executes.
  std::vector<std::string> mcp_tool_names;

  // Echoed by the Responses API.
  std::string instructions;
  std::string metadata_json = "{}";
  std::optional<std::string> previous_response_id;
  bool store = true;  // Responses: the response is stored (false when the server has no store)
  std::string user;
  std::string truncation = "disabled";
  std::string text_format_json;   // the request's `text` object, echoed (Responses)
  std::string tool_choice_json;   // the request's tool_choice as given, echoed (Responses)
  std::string tools_json = "[]";  // the request's tools as given, echoed (Responses)
  // Responses: the input items as a JSON array, item references resolved, for the store ("[]"
  // when the response is not stored).
  std::string input_items_json = "[]";
};

}  // namespace crux::protocol
