// Message normalisation (include/crux/chat_template/messages.h): one function per protocol
// over the request JSON, sharing the helpers that build template-shaped messages.
#include "crux/chat_template/messages.h"

#include <string>
#include <utility>

namespace crux::chat_template {
namespace {

using Json = nlohmann::ordered_json;

Error Bad(const std::string& field, const std::string& what) {
  return Error(ErrorCode::kInvalidArgument, field + ": " + what);
}

// A JSON string holding an object or array becomes that value; anything else stays as is.
Json ParseArguments(const Json& arguments) {
  if (!arguments.is_string()) return arguments;
  Json parsed = Json::parse(arguments.get<std::string>(), nullptr, false);
  return parsed.is_discarded() ? arguments : parsed;
}

// Text of a content value: a string, or the text of its text parts joined by "\n".
Expected<Json> ContentText(const Json& content, const std::string& field) {
  if (content.is_null() || content.is_string()) return content;
  if (!content.is_array()) return Bad(field, "must be a string or an array of parts");
  std::string text;
  bool any = false;
  for (size_t i = 0; i < content.size(); ++i) {
    const Json& part = content[i];
    if (part.is_string()) {
      if (any) text += '\n';
      text += part.get<std::string>();
      any = true;
      continue;
    }
    if (!part.is_object()) return Bad(field + "[" + std::to_string(i) + "]", "must be an object");
    const std::string type = part.value("type", "");
    if ((type == "text" || type == "input_text" || type == "output_text") &&
        part.contains("text")) {
      if (!part["text"].is_string())
        return Bad(field + "[" + std::to_string(i) + "].text", "must be a string");
      if (any) text += '\n';
      text += part["text"].get<std::string>();
      any = true;
    }
  }
  return Json(text);
}

Json ToolCall(const Json& id, const Json& name, const Json& arguments) {
  Json call = Json::object();
  if (!id.is_null()) call["id"] = id;
  call["type"] = "function";
  call["function"] = {{"name", name}, {"arguments", ParseArguments(arguments)}};
  return call;
}

// The name of the tool call `id` among the assistant turns so far ("" when unknown).
Json ToolName(const Json& messages, const Json& id) {
  for (auto it = messages.rbegin(); it != messages.rend(); ++it) {
    if (!it->contains("tool_calls")) continue;
    for (const Json& call : (*it)["tool_calls"]) {
      if (call.value("id", Json()) == id) return call["function"]["name"];
    }
  }
  return nullptr;
}

Json ToolMessage(const Json& messages, const Json& id, Json content) {
  Json message = {{"role", "tool"}, {"tool_call_id", id}, {"content", std::move(content)}};
  Json name = ToolName(messages, id);
  if (!name.is_null()) message["name"] = name;
  return message;
}

Expected<Json> OpenAiMessage(const Json& in, const Json& so_far, const std::string& field) {
  if (!in.is_object() || !in.contains("role") || !in["role"].is_string()) {
    return Bad(field, "must be an object with a string role");
  }
  // Keys in the order the other formats produce: role, tool_call_id, content, reasoning, calls,
  // the rest.
  Json out = {{"role", in["role"] == "developer" ? Json("system") : in["role"]}};
  if (in.contains("tool_call_id")) out["tool_call_id"] = in["tool_call_id"];
  auto content = ContentText(in.value("content", Json()), field + ".content");
  if (!content.ok()) return content.error();
  out["content"] = *content;
  if (in.contains("reasoning_content")) {
    out["reasoning_content"] = in["reasoning_content"];
  } else if (in.contains("reasoning")) {
    out["reasoning_content"] = in["reasoning"];
  }
  if (in.contains("tool_calls") && in["tool_calls"].is_array()) {
    Json calls = Json::array();
    for (const Json& call : in["tool_calls"]) {
      const Json function = call.value("function", Json::object());
      calls.push_back(ToolCall(call.value("id", Json()), function.value("name", Json("")),
                               function.value("arguments", Json::object())));
    }
    out["tool_calls"] = calls;
  }
  for (const auto& [key, value] : in.items()) {
    if (!out.contains(key) && key != "reasoning") out[key] = value;
  }
  if (out["role"] == "tool" && !in.contains("name") && in.contains("tool_call_id")) {
    Json name = ToolName(so_far, in["tool_call_id"]);
    if (!name.is_null()) out["name"] = name;
  }
  return out;
}

// Tools in any of the three shapes, as {"type": "function", "function": {...}}.
Json NormalizeTools(const Json& tools) {
  Json out = Json::array();
  if (!tools.is_array()) return out;
  for (const Json& tool : tools) {
    if (!tool.is_object()) continue;
    if (tool.contains("function")) {
      out.push_back({{"type", "function"}, {"function", tool["function"]}});
      continue;
    }
    if (!tool.contains("name")) continue;  // a built-in tool (web search, …): not a function
    Json function = {{"name", tool["name"]}};
    if (tool.contains("description")) function["description"] = tool["description"];
    if (tool.contains("input_schema")) function["parameters"] = tool["input_schema"];
    if (tool.contains("parameters")) function["parameters"] = tool["parameters"];
    out.push_back({{"type", "function"}, {"function", function}});
  }
  return out;
}

Expected<Conversation> FromOpenAiChat(const Json& request) {
  Conversation c;
  const Json messages = request.value("messages", Json::array());
  if (!messages.is_array()) return Bad("messages", "must be an array");
  for (size_t i = 0; i < messages.size(); ++i) {
    auto m = OpenAiMessage(messages[i], c.messages, "messages[" + std::to_string(i) + "]");
    if (!m.ok()) return m.error();
    c.messages.push_back(std::move(*m));
  }
  c.tools = NormalizeTools(request.value("tools", Json::array()));
  return c;
}

}  // namespace
}  // namespace crux::chat_template

namespace crux::chat_template {
namespace {

// Anthropic: one message's blocks, split into what the template shape keeps apart.
struct AnthropicTurn {
  std::string text;
  bool has_text = false;
  std::string thinking;
  bool has_thinking = false;
  Json tool_calls = Json::array();
  Json tool_results = Json::array();  // {id, content} in order
};

Expected<bool> AnthropicBlock(Json block, AnthropicTurn& turn, const std::string& field) {
  if (block.is_string()) block = Json{{"type", "text"}, {"text", block}};
  if (!block.is_object() || !block.contains("type")) return Bad(field, "must be a content block");
  const std::string type = block["type"].get<std::string>();
  if (type == "text") {
    turn.text += block.value("text", "");
    turn.has_text = true;
  } else if (type == "thinking") {
    turn.thinking += block.value("thinking", "");
    turn.has_thinking = true;
  } else if (type == "tool_use") {
    turn.tool_calls.push_back(ToolCall(block.value("id", Json()), block.value("name", Json("")),
                                       block.value("input", Json::object())));
  } else if (type == "tool_result") {
    auto content = ContentText(block.value("content", Json("")), field + ".content");
    if (!content.ok()) return content.error();
    turn.tool_results.push_back(
        {{"id", block.value("tool_use_id", Json())}, {"content", *content}});
  }
  return true;  // images, documents, redacted thinking: not text a template can use
}

Expected<bool> AnthropicMessage(const Json& in, Conversation& c, const std::string& field) {
  if (!in.is_object() || !in.contains("role") || !in["role"].is_string()) {
    return Bad(field, "must be an object with a string role");
  }
  const Json& content = in.value("content", Json(""));
  AnthropicTurn turn;
  if (content.is_string()) {
    turn.text = content.get<std::string>();
    turn.has_text = true;
  } else if (content.is_array()) {
    for (size_t i = 0; i < content.size(); ++i) {
      auto ok = AnthropicBlock(content[i], turn, field + ".content[" + std::to_string(i) + "]");
      if (!ok.ok()) return ok.error();
    }
  } else {
    return Bad(field + ".content", "must be a string or an array of blocks");
  }
  for (const Json& result : turn.tool_results) {
    c.messages.push_back(ToolMessage(c.messages, result["id"], result["content"]));
  }
  if (!turn.has_text && turn.tool_calls.empty() && !turn.has_thinking) return true;
  Json out = {{"role", in["role"]}, {"content", turn.has_text ? Json(turn.text) : Json()}};
  if (turn.has_thinking) out["reasoning_content"] = turn.thinking;
  if (!turn.tool_calls.empty()) out["tool_calls"] = turn.tool_calls;
  c.messages.push_back(std::move(out));
  return true;
}

Expected<Conversation> FromAnthropic(const Json& request) {
  Conversation c;
  if (request.contains("system")) {
    auto system = ContentText(request["system"], "system");
    if (!system.ok()) return system.error();
    c.messages.push_back({{"role", "system"}, {"content", *system}});
  }
  const Json messages = request.value("messages", Json::array());
  if (!messages.is_array()) return Bad("messages", "must be an array");
  for (size_t i = 0; i < messages.size(); ++i) {
    auto ok = AnthropicMessage(messages[i], c, "messages[" + std::to_string(i) + "]");
    if (!ok.ok()) return ok.error();
  }
  c.tools = NormalizeTools(request.value("tools", Json::array()));
  return c;
}

// Responses: the text of a reasoning item (its summary, else its content).
std::string ReasoningText(const Json& item) {
  std::string text;
  for (const char* key : {"summary", "content"}) {
    if (!item.contains(key) || !item[key].is_array()) continue;
    for (const Json& part : item[key]) {
      if (part.is_object() && part.contains("text") && part["text"].is_string()) {
        if (!text.empty()) text += '\n';
        text += part["text"].get<std::string>();
      }
    }
    if (!text.empty()) break;
  }
  return text;
}

// The assistant message function calls join: the last message when it is an assistant turn
// with no tool results after it, else a new one.
Json& AssistantTurn(Conversation& c, std::string& pending_reasoning) {
  if (c.messages.empty() || c.messages.back()["role"] != "assistant") {
    c.messages.push_back({{"role", "assistant"}, {"content", nullptr}});
  }
  Json& turn = c.messages.back();
  if (!pending_reasoning.empty()) {
    turn["reasoning_content"] = pending_reasoning;
    pending_reasoning.clear();
  }
  return turn;
}

Expected<bool> ResponsesItem(const Json& item, Conversation& c, std::string& pending_reasoning,
                             const std::string& field) {
  if (!item.is_object()) return Bad(field, "must be an object");
  const std::string type = item.value("type", "message");
  if (type == "message") {
    if (!item.contains("role") || !item["role"].is_string())
      return Bad(field + ".role", "must be a string");
    auto content = ContentText(item.value("content", Json("")), field + ".content");
    if (!content.ok()) return content.error();
    const std::string role =
        item["role"] == "developer" ? "system" : item["role"].get<std::string>();
    if (role == "assistant") {
      AssistantTurn(c, pending_reasoning)["content"] = *content;
    } else {
      c.messages.push_back({{"role", role}, {"content", *content}});
    }
  } else if (type == "function_call") {
    Json& turn = AssistantTurn(c, pending_reasoning);
    if (!turn.contains("tool_calls")) turn["tool_calls"] = Json::array();
    turn["tool_calls"].push_back(ToolCall(item.value("call_id", Json()),
                                          item.value("name", Json("")),
                                          item.value("arguments", Json::object())));
  } else if (type == "function_call_output") {
    auto output = ContentText(item.value("output", Json("")), field + ".output");
    if (!output.ok()) return output.error();
    c.messages.push_back(ToolMessage(c.messages, item.value("call_id", Json()), *output));
  } else if (type == "reasoning") {
    pending_reasoning += ReasoningText(item);
  }
  return true;  // other items (built-in tool calls, references): nothing a template reads
}

Expected<Conversation> FromResponses(const Json& request) {
  Conversation c;
  if (request.contains("instructions") && request["instructions"].is_string()) {
    c.messages.push_back({{"role", "system"}, {"content", request["instructions"]}});
  }
  const Json input = request.value("input", Json(""));
  if (input.is_string()) {
    c.messages.push_back({{"role", "user"}, {"content", input}});
  } else if (input.is_array()) {
    std::string pending_reasoning;
    for (size_t i = 0; i < input.size(); ++i) {
      std::string where = "input[";
      where.append(std::to_string(i)).append("]");
      auto ok = ResponsesItem(input[i], c, pending_reasoning, where);
      if (!ok.ok()) return ok.error();
    }
  } else {
    return Bad("input", "must be a string or an array of items");
  }
  c.tools = NormalizeTools(request.value("tools", Json::array()));
  return c;
}

}  // namespace

Expected<Conversation> NormalizeConversation(InputFormat format, const Json& request) {
  if (!request.is_object()) return Bad("request", "must be an object");
  switch (format) {
    case InputFormat::kOpenAiChat:
      return FromOpenAiChat(request);
    case InputFormat::kAnthropic:
      return FromAnthropic(request);
    case InputFormat::kResponses:
      return FromResponses(request);
  }
  return Bad("format", "unknown");
}

}  // namespace crux::chat_template
