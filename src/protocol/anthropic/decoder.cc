// Anthropic Messages request → ChatRequest.
#include <limits>

#include "crux/protocol/codec.h"
#include "protocol/decode.h"

namespace crux::protocol {
namespace {

constexpr internal::ToolDialect kTools{.default_type = "custom",
                                       .callable_type = "custom",
                                       .holder = "",
                                       .schema_key = "input_schema"};

using internal::FieldPath;
using internal::IndexPath;
using internal::Json;
using internal::Member;
using internal::MessageBuilder;
using internal::MustBe;
using internal::ReadString;

// Claude Code sends a per-request billing line as a system block; dropping it keeps the
// prompt prefix stable (and cacheable).
constexpr std::string_view kBillingHeader = "x-anthropic-billing-header:";

Status ReadSystem(const Json& body, MessageBuilder& builder) {
  const Json* system = Member(body, "system");
  if (system == nullptr) return Status();
  if (system->is_string()) {
    builder.AddSystem(system->get<std::string>());
    return Status();
  }
  if (!system->is_array()) return MustBe("system", "a string or an array of text blocks");
  std::string text;
  for (size_t i = 0; i < system->size(); ++i) {
    const Json& block = (*system)[i];
    const std::string path = IndexPath("system", i);
    const Json* value = Member(block, "text");
    if (!block.is_object() || value == nullptr || !value->is_string()) {
      return MustBe(path, "a text block {\"type\":\"text\",\"text\":…}");
    }
    const std::string& piece = value->get_ref<const std::string&>();
    if (piece.starts_with(kBillingHeader)) continue;
    if (!text.empty()) text += '\n';
    text += piece;
  }
  builder.AddSystem(std::move(text));
  return Status();
}

// One content block of a user or assistant turn, added to `turn`; tool results become
// separate tool messages in `results`.
struct Turn {
  std::string text;
  bool has_text = false;
  std::string reasoning;
  std::vector<MessageToolCall> calls;
  std::vector<Message> results;
};

Status ReadToolUse(const Json& block, const std::string& path, Turn& turn,
                   MessageBuilder& builder) {
  MessageToolCall& call = turn.calls.emplace_back();
  CRUX_PROTO_TRY(ReadString(block, "id", path + ".id", call.id));
  const Json* name = Member(block, "name");
  if (name == nullptr || !name->is_string() || name->get_ref<const std::string&>().empty()) {
    return MustBe(path + ".name", "a non-empty string");
  }
  call.name = name->get<std::string>();
  const Json* input = Member(block, "input");
  if (input != nullptr && !input->is_object()) return MustBe(path + ".input", "an object");
  call.arguments = input != nullptr ? internal::Dump(*input) : "{}";
  builder.NoteCall(call.id, call.name);
  return Status();
}

Status ReadToolResult(const Json& block, const std::string& path, Turn& turn,
                      const MessageBuilder& builder) {
  Message& result = turn.results.emplace_back();
  result.role = Role::kTool;
  const Json* id = Member(block, "tool_use_id");
  if (id == nullptr || !id->is_string()) return MustBe(path + ".tool_use_id", "a string");
  result.tool_call_id = id->get<std::string>();
  result.name = builder.CallName(result.tool_call_id);
  if (const Json* content = Member(block, "content")) {
    auto text = internal::ReadContentText(*content, path + ".content", {"text"});
    if (!text.ok()) return text.error();
    result.content = std::move(*text);
  }
  bool is_error = false;
  return internal::ReadBool(block, "is_error", path + ".is_error", is_error);
}

Status ReadBlock(const Json& block, const std::string& path, Turn& turn, MessageBuilder& builder) {
  if (!block.is_object()) return MustBe(path, "an object");
  std::string type;
  CRUX_PROTO_TRY(ReadString(block, "type", path + ".type", type));
  if (type == "text") {
    const Json* text = Member(block, "text");
    if (text == nullptr || !text->is_string()) return MustBe(path + ".text", "a string");
    if (turn.has_text) turn.text += '\n';
    turn.text += text->get_ref<const std::string&>();
    turn.has_text = true;
  } else if (type == "tool_use") {
    CRUX_PROTO_TRY(ReadToolUse(block, path, turn, builder));
  } else if (type == "tool_result") {
    CRUX_PROTO_TRY(ReadToolResult(block, path, turn, builder));
  } else if (type == "thinking") {
    std::string thinking;
    CRUX_PROTO_TRY(ReadString(block, "thinking", path + ".thinking", thinking));
    if (!turn.reasoning.empty() && !thinking.empty()) turn.reasoning += '\n';
    turn.reasoning += thinking;
  } else if (internal::IsMediaType(type)) {
    return Error(ErrorCode::kUnsupported,
                 path + " is " + type + " content, which is not supported (text only)");
  }
  // redacted_thinking and server-tool blocks carry nothing crux can use; skipped.
  return Status();
}

// The role of messages[index], or "" when there is none (or it is not a string).
std::string_view RoleAt(const Json& messages, size_t index) {
  if (index >= messages.size()) return "";
  const Json* role = Member(messages[index], "role");
  return role != nullptr && role->is_string()
             ? std::string_view(role->get_ref<const std::string&>())
             : std::string_view();
}

// The beta that allows `role: "system"` inside `messages`. A rejection of such a message
// names it together with "anthropic-beta", as Anthropic's API does: Claude Code then drops the
// beta and retries with the instructions folded into the user turn.
constexpr std::string_view kMidConversationSystemBeta = "mid-conversation-system-2026-04-07";

// A system message inside `messages`, kept in its place in the conversation. Allowed where
// the beta allows it: not first, right after a user message, and last or followed by an
// assistant message. Its content is a string or text blocks.
Status ReadInlineSystem(const Json& messages, size_t index, MessageBuilder& builder) {
  const std::string path = "messages." + std::to_string(index);
  if (index == 0) {
    return Error(ErrorCode::kInvalidArgument,
                 path + ": use the top-level 'system' parameter for the initial system prompt");
  }
  const std::string_view before = RoleAt(messages, index - 1);
  const std::string_view after = RoleAt(messages, index + 1);
  const bool last = index + 1 == messages.size();
  if (before != "user" || (!last && after != "assistant")) {
    return Error(ErrorCode::kInvalidArgument,
                 path +
                     ": a system message must follow a user message and be either the last "
                     "message or followed by an assistant message (anthropic-beta " +
                     std::string(kMidConversationSystemBeta) + ")");
  }
  const Json* content = Member(messages[index], "content");
  if (content == nullptr)
    return Error(ErrorCode::kInvalidArgument, path + ".content: Field required");
  auto text = internal::ReadContentText(*content, path + ".content", {"text"});
  if (!text.ok()) return text.error();
  builder.Add(Role::kSystem).content = std::move(*text);
  return Status();
}

Status ReadMessage(const Json& messages, size_t index, MessageBuilder& builder) {
  const Json& message = messages[index];
  const std::string path = IndexPath("messages", index);
  if (!message.is_object()) return MustBe(path, "an object");
  std::string role;
  CRUX_PROTO_TRY(ReadString(message, "role", path + ".role", role));
  if (role == "system") return ReadInlineSystem(messages, index, builder);
  if (role != "user" && role != "assistant") {
    return Error(ErrorCode::kInvalidArgument,
                 "messages." + std::to_string(index) +
                     ".role: Input should be 'user', 'assistant' or 'system' (got '" + role + "')");
  }
  Turn turn;
  const Json* content = Member(message, "content");
  const std::string content_path = path + ".content";
  if (content == nullptr || content->is_string()) {
    turn.text = content != nullptr ? content->get<std::string>() : "";
    turn.has_text = true;
  } else if (content->is_array()) {
    for (size_t i = 0; i < content->size(); ++i) {
      CRUX_PROTO_TRY(ReadBlock((*content)[i], IndexPath(content_path, i), turn, builder));
    }
  } else {
    return MustBe(content_path, "a string or an array of content blocks");
  }
  if (role == "assistant") {
    Message& m = builder.Add(Role::kAssistant);
    m.content = std::move(turn.text);
    m.reasoning = std::move(turn.reasoning);
    m.tool_calls = std::move(turn.calls);
    return Status();
  }
  // Tool results answer the previous assistant turn, so they come before the user's text.
  for (Message& result : turn.results)
    builder.Add(Role::kTool) = std::move(result);
  if (turn.has_text || turn.results.empty())
    builder.Add(Role::kUser).content = std::move(turn.text);
  return Status();
}

Status ReadToolChoice(const Json& body, ChatRequest& request) {
  const Json* choice = Member(body, "tool_choice");
  if (choice == nullptr) return Status();
  request.tool_choice_json = internal::Dump(*choice);
  if (!choice->is_object()) {
    return MustBe("tool_choice", "an object {\"type\":\"auto\"|\"any\"|\"tool\"|\"none\"}");
  }
  std::string type;
  CRUX_PROTO_TRY(ReadString(*choice, "type", "tool_choice.type", type));
  if (type == "auto") {
    request.tool_choice.mode = ToolChoiceMode::kAuto;
  } else if (type == "any") {
    request.tool_choice.mode = ToolChoiceMode::kRequired;
  } else if (type == "none") {
    request.tool_choice.mode = ToolChoiceMode::kNone;
  } else if (type == "tool") {
    const Json* name = Member(*choice, "name");
    if (name == nullptr || !name->is_string() || name->get_ref<const std::string&>().empty()) {
      return MustBe("tool_choice.name", "a non-empty string");
    }
    request.tool_choice = {ToolChoiceMode::kNamed, name->get<std::string>()};
  } else {
    return MustBe("tool_choice.type", "one of auto, any, tool, none (got '" + type + "')");
  }
  bool disable_parallel = false;
  CRUX_PROTO_TRY(internal::ReadBool(*choice, "disable_parallel_tool_use",
                                    "tool_choice.disable_parallel_tool_use", disable_parallel));
  request.parallel_tool_calls = !disable_parallel;
  return Status();
}

Status ReadThinking(const Json& body, ChatRequest& request) {
  const Json* thinking = Member(body, "thinking");
  if (thinking == nullptr) return Status();
  if (!thinking->is_object()) return MustBe("thinking", "an object");
  std::string type;
  CRUX_PROTO_TRY(ReadString(*thinking, "type", "thinking.type", type));
  if (type == "enabled") {
    std::optional<int64_t> budget;
    CRUX_PROTO_TRY(internal::ReadInt(*thinking, "budget_tokens", "thinking.budget_tokens", 1,
                                     std::numeric_limits<int>::max(), budget));
    if (!budget) {
      return Error(ErrorCode::kInvalidArgument,
                   "thinking.budget_tokens is required when thinking.type is \"enabled\"");
    }
    request.enable_thinking = true;
    request.thinking_budget_tokens = static_cast<int>(*budget);
  } else if (type == "adaptive") {
    request.enable_thinking = true;
  } else if (type == "disabled") {
    request.enable_thinking = false;
  } else {
    return MustBe("thinking.type", "one of enabled, disabled, adaptive (got '" + type + "')");
  }
  return Status();
}

Status ReadOptions(const Json& body, ChatRequest& request) {
  CRUX_PROTO_TRY(internal::ReadStop(body, "stop_sequences", request));
  CRUX_PROTO_TRY(internal::ReadSampling(body, 1.0, request));
  CRUX_PROTO_TRY(internal::ReadBool(body, "stream", "stream", request.stream));
  if (const Json* metadata = Member(body, "metadata")) {
    if (!metadata->is_object()) return MustBe("metadata", "an object");
    CRUX_PROTO_TRY(ReadString(*metadata, "user_id", "metadata.user_id", request.user));
    request.metadata_json = internal::Dump(*metadata);
  }
  CRUX_PROTO_TRY(ReadThinking(body, request));
  CRUX_PROTO_TRY(internal::ReadResponseFormat(body, request));
  return internal::ReadExtensions(body, request);
}

}  // namespace

Expected<ChatRequest> DecodeAnthropicMessages(std::string_view body_text) {
  auto body = internal::ParseObject(body_text);
  if (!body.ok()) return body.error();
  ChatRequest request;
  request.api = Api::kAnthropicMessages;
  CRUX_PROTO_TRY(internal::ReadModel(*body, request));
  if (Member(*body, "max_tokens") == nullptr) {
    return Error(ErrorCode::kInvalidArgument, "max_tokens: Field required");
  }
  CRUX_PROTO_TRY(internal::ReadMaxTokens(*body, "max_tokens", request));
  auto messages = internal::RequireArray(*body, "messages");
  if (!messages.ok()) return messages.error();
  if ((*messages)->empty()) return MustBe("messages", "a non-empty array");
  MessageBuilder builder;
  CRUX_PROTO_TRY(ReadSystem(*body, builder));
  for (size_t i = 0; i < (*messages)->size(); ++i) {
    CRUX_PROTO_TRY(ReadMessage(**messages, i, builder));
  }
  request.messages = builder.Take();
  CRUX_PROTO_TRY(internal::ReadTools(*body, kTools, request));
  CRUX_PROTO_TRY(ReadToolChoice(*body, request));
  CRUX_PROTO_TRY(ReadOptions(*body, request));
  CRUX_PROTO_TRY(internal::CheckToolChoice(request, "any"));
  return request;
}

}  // namespace crux::protocol
