// OpenAI Chat Completions request → ChatRequest.
#include "crux/protocol/codec.h"
#include "protocol/decode.h"

namespace crux::protocol {
namespace {

constexpr internal::ToolDialect kTools{.default_type = "function",
                                       .callable_type = "function",
                                       .holder = "function",
                                       .schema_key = "parameters"};

using internal::FieldPath;
using internal::IndexPath;
using internal::Json;
using internal::Member;
using internal::MessageBuilder;
using internal::MustBe;
using internal::ReadString;

Status ReadToolCalls(const Json& message, const std::string& path, Message& out,
                     MessageBuilder& builder) {
  const Json* calls = Member(message, "tool_calls");
  if (calls == nullptr) return Status();
  const std::string calls_path = FieldPath(path, "tool_calls");
  if (!calls->is_array()) return MustBe(calls_path, "an array");
  for (size_t i = 0; i < calls->size(); ++i) {
    const Json& call = (*calls)[i];
    const std::string call_path = IndexPath(calls_path, i);
    if (!call.is_object()) return MustBe(call_path, "an object");
    MessageToolCall& tc = out.tool_calls.emplace_back();
    CRUX_PROTO_TRY(ReadString(call, "id", call_path + ".id", tc.id));
    const Json* fn = Member(call, "function");
    if (fn == nullptr || !fn->is_object()) return MustBe(call_path + ".function", "an object");
    const Json* name = Member(*fn, "name");
    if (name == nullptr || !name->is_string() || name->get_ref<const std::string&>().empty()) {
      return MustBe(call_path + ".function.name", "a non-empty string");
    }
    tc.name = name->get<std::string>();
    auto arguments =
        internal::ReadArguments(Member(*fn, "arguments"), call_path + ".function.arguments");
    if (!arguments.ok()) return arguments.error();
    tc.arguments = std::move(*arguments);
    builder.NoteCall(tc.id, tc.name);
  }
  return Status();
}

Status ReadMessage(const Json& message, const std::string& path, MessageBuilder& builder) {
  if (!message.is_object()) return MustBe(path, "an object");
  const Json* role_json = Member(message, "role");
  if (role_json == nullptr || !role_json->is_string()) {
    return MustBe(path + ".role", "one of system, developer, user, assistant, tool");
  }
  const std::string& role = role_json->get_ref<const std::string&>();
  std::string text;
  if (const Json* content = Member(message, "content")) {
    auto read = internal::ReadContentText(*content, path + ".content", {"text", "input_text"});
    if (!read.ok()) return read.error();
    text = std::move(*read);
  }
  if (role == "system" || role == "developer") {
    builder.AddSystem(std::move(text));
  } else if (role == "user") {
    builder.Add(Role::kUser).content = std::move(text);
  } else if (role == "assistant") {
    Message& m = builder.Add(Role::kAssistant);
    m.content = std::move(text);
    CRUX_PROTO_TRY(ReadString(message, "reasoning", path + ".reasoning", m.reasoning));
    CRUX_PROTO_TRY(
        ReadString(message, "reasoning_content", path + ".reasoning_content", m.reasoning));
    CRUX_PROTO_TRY(ReadToolCalls(message, path, m, builder));
  } else if (role == "tool") {
    Message& m = builder.Add(Role::kTool);
    m.content = std::move(text);
    const Json* id = Member(message, "tool_call_id");
    if (id == nullptr || !id->is_string()) {
      return MustBe(path + ".tool_call_id", "a string (the id of the call this result answers)");
    }
    m.tool_call_id = id->get<std::string>();
    m.name = builder.CallName(m.tool_call_id);
    CRUX_PROTO_TRY(ReadString(message, "name", path + ".name", m.name));
  } else {
    return MustBe(path + ".role",
                  "one of system, developer, user, assistant, tool (got '" + role + "')");
  }
  return Status();
}

Status ReadOptions(const Json& body, ChatRequest& request) {
  CRUX_PROTO_TRY(internal::ReadMaxTokens(body, "max_tokens", request));
  CRUX_PROTO_TRY(internal::ReadMaxTokens(body, "max_completion_tokens", request));
  CRUX_PROTO_TRY(internal::ReadStop(body, "stop", request));
  CRUX_PROTO_TRY(internal::ReadSampling(body, 2.0, request));
  std::optional<int64_t> n;
  CRUX_PROTO_TRY(internal::ReadInt(body, "n", "n", 1, 128, n));
  if (n && *n != 1) {
    return Error(ErrorCode::kUnsupported, "n must be 1 (several choices are not supported)");
  }
  CRUX_PROTO_TRY(internal::ReadBool(body, "stream", "stream", request.stream));
  if (const Json* options = Member(body, "stream_options")) {
    if (!options->is_object()) return MustBe("stream_options", "an object");
    CRUX_PROTO_TRY(internal::ReadBool(*options, "include_usage", "stream_options.include_usage",
                                      request.include_usage));
  }
  CRUX_PROTO_TRY(internal::ReadBool(body, "parallel_tool_calls", "parallel_tool_calls",
                                    request.parallel_tool_calls));
  CRUX_PROTO_TRY(
      ReadString(body, "reasoning_effort", "reasoning_effort", request.reasoning_effort));
  CRUX_PROTO_TRY(ReadString(body, "user", "user", request.user));
  CRUX_PROTO_TRY(internal::ReadObjectText(body, "metadata", "metadata", request.metadata_json));
  CRUX_PROTO_TRY(internal::ReadBool(body, "store", "store", request.store));
  CRUX_PROTO_TRY(internal::ReadResponseFormat(body, request));
  return internal::ReadExtensions(body, request);
}

}  // namespace

Expected<ChatRequest> DecodeChatCompletions(std::string_view body_text) {
  auto body = internal::ParseObject(body_text);
  if (!body.ok()) return body.error();
  ChatRequest request;
  request.api = Api::kChatCompletions;
  CRUX_PROTO_TRY(internal::ReadModel(*body, request));
  auto messages = internal::RequireArray(*body, "messages");
  if (!messages.ok()) return messages.error();
  if ((*messages)->empty()) return MustBe("messages", "a non-empty array");
  MessageBuilder builder;
  for (size_t i = 0; i < (*messages)->size(); ++i) {
    CRUX_PROTO_TRY(ReadMessage((**messages)[i], IndexPath("messages", i), builder));
  }
  request.messages = builder.Take();
  CRUX_PROTO_TRY(internal::ReadTools(*body, kTools, request));
  CRUX_PROTO_TRY(
      internal::ReadOpenAiToolChoice(*body, internal::NamedChoice::kInFunction, request));
  CRUX_PROTO_TRY(ReadOptions(*body, request));
  CRUX_PROTO_TRY(internal::CheckToolChoice(request, "required"));
  return request;
}

}  // namespace crux::protocol
