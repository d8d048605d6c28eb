// Decoding pieces shared by the three dialects (internal to crux_protocol).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "crux/base/error.h"
#include "crux/parse/tool_spec.h"
#include "crux/protocol/request.h"
#include "protocol/json.h"

namespace crux::protocol::internal {

// Collects a conversation. System texts (system/developer messages, `system`,
// `instructions`) are kept apart and become one leading system message, joined by blank
// lines. Remembers tool-call ids so tool results can be given the tool's name.
class MessageBuilder {
 public:
  void AddSystem(std::string text);
  Message& Add(Role role);
  // The last message when it is an assistant turn, else nullptr.
  Message* LastAssistant();
  void NoteCall(const std::string& id, const std::string& name);
  // The name of the call with `id`, or "" when no earlier assistant turn made it.
  std::string CallName(const std::string& id) const;
  std::vector<Message> Take();

 private:
  std::vector<std::string> system_;
  std::vector<Message> messages_;
  std::unordered_map<std::string, std::string> call_names_;
};

// The text of `content`: a string, or an array of parts whose `type` is one of
// `text_types` (their `text` members are joined by newlines). Media parts (images, audio,
// files, documents) are kUnsupported; other part types are skipped.
Expected<std::string> ReadContentText(const Json& content, const std::string& path,
                                      std::initializer_list<std::string_view> text_types);

// True for the part/block types that carry media crux cannot take.
bool IsMediaType(std::string_view type);

// `model`: a required non-empty string.
Status ReadModel(const Json& body, ChatRequest& request);

// A required array member; error "<key> is required" / "<key> must be an array".
Expected<const Json*> RequireArray(const Json& body, std::string_view key);

// temperature (within [0, max_temperature]), top_p, top_k (<= 0 means "off"), seed.
Status ReadSampling(const Json& body, double max_temperature, ChatRequest& request);

// A token limit member (>= 1) into request.max_tokens.
Status ReadMaxTokens(const Json& body, std::string_view key, ChatRequest& request);

// A string or an array of strings (empty strings are dropped) into request.stop.
Status ReadStop(const Json& body, std::string_view key, ChatRequest& request);

// Fields every endpoint accepts as extensions: chat_template_kwargs (an object; its
// enable_thinking must be a boolean), enable_thinking, thinking_token_budget, and the
// parser choice reasoning_parser / tool_call_parser (strings).
Status ReadExtensions(const Json& body, ChatRequest& request);

// A function tool from its parts; `name` must be a non-empty string, `parameters` (may be
// nullptr) an object. `path` names the object holding them.
Expected<parse::ToolSpec> ReadFunctionTool(const Json& holder, const std::string& path,
                                           std::string_view parameters_key);

// How a dialect writes its tools array.
struct ToolDialect {
  std::string_view default_type;   // the type of a tool without "type" ("": none)
  std::string_view callable_type;  // the type crux parses calls for; other tools are skipped
  std::string_view holder;         // the member holding name and schema ("": the tool itself)
  std::string_view schema_key;     // "parameters" or "input_schema"
};

// `tools`: an array of tool objects; the callable ones become request.tools, and the array
// is kept as JSON for the prompt renderer.
Status ReadTools(const Json& body, const ToolDialect& dialect, ChatRequest& request);

// The OpenAI `tool_choice`: "auto", "none", "required", or {"type":"function", …} naming a
// function. `where` says where the name is: in `function.name` (Chat Completions) or in
// `name` (Responses).
enum class NamedChoice : uint8_t { kInFunction, kTopLevel };
Status ReadOpenAiToolChoice(const Json& body, NamedChoice where, ChatRequest& request);

// A json_schema format object {name, schema, strict, description} at `path`.
Status ReadJsonSchema(const Json& object, const std::string& path, ResponseFormat& format);

// `response_format` in the Chat Completions shape: {"type":"text"|"json_object"} or
// {"type":"json_schema","json_schema":{name, schema, strict}}.
Status ReadResponseFormat(const Json& body, ChatRequest& request);

// Checks tool_choice against the declared tools: a named tool must be declared, and a
// required call needs at least one tool. `required_label` is the dialect's spelling.
Status CheckToolChoice(const ChatRequest& request, std::string_view required_label);

// `arguments` of a history tool call as JSON object text: a string holding a JSON object
// ("" means {}) or an object.
Expected<std::string> ReadArguments(const Json* arguments, const std::string& path);

}  // namespace crux::protocol::internal
