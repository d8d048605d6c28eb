// OpenAI Responses request → ChatRequest.
#include <limits>

#include "crux/protocol/codec.h"
#include "crux/protocol/response_store.h"
#include "protocol/decode.h"

namespace crux::protocol {
namespace {

constexpr internal::ToolDialect kTools{
    .default_type = "", .callable_type = "function", .holder = "", .schema_key = "parameters"};

using internal::IndexPath;
using internal::Json;
using internal::Member;
using internal::MessageBuilder;
using internal::MustBe;
using internal::ReadString;

// The assistant turn that the next item of a model turn belongs to. Items of one turn
// (reasoning, message, function calls) arrive one by one; they are merged into one
// assistant message as long as they come in that order.
Message& AssistantFor(MessageBuilder& builder, bool is_call) {
  Message* last = builder.LastAssistant();
  if (last != nullptr && (is_call || (last->content.empty() && last->tool_calls.empty()))) {
    return *last;
  }
  return builder.Add(Role::kAssistant);
}

Status ReadMessageItem(const Json& item, const std::string& path, MessageBuilder& builder) {
  std::string role;
  CRUX_PROTO_TRY(ReadString(item, "role", path + ".role", role));
  std::string text;
  if (const Json* content = Member(item, "content")) {
    auto read = internal::ReadContentText(*content, path + ".content",
                                          {"input_text", "output_text", "text"});
    if (!read.ok()) return read.error();
    text = std::move(*read);
  }
  if (role == "system" || role == "developer") {
    builder.AddSystem(std::move(text));
  } else if (role == "user") {
    builder.Add(Role::kUser).content = std::move(text);
  } else if (role == "assistant") {
    AssistantFor(builder, false).content = std::move(text);
  } else {
    return MustBe(path + ".role", "one of user, assistant, system, developer (got '" + role + "')");
  }
  return Status();
}

Status ReadFunctionCall(const Json& item, const std::string& path, MessageBuilder& builder) {
  MessageToolCall call;
  const Json* call_id = Member(item, "call_id");
  if (call_id == nullptr || !call_id->is_string()) return MustBe(path + ".call_id", "a string");
  call.id = call_id->get<std::string>();
  const Json* name = Member(item, "name");
  if (name == nullptr || !name->is_string() || name->get_ref<const std::string&>().empty()) {
    return MustBe(path + ".name", "a non-empty string");
  }
  call.name = name->get<std::string>();
  auto arguments = internal::ReadArguments(Member(item, "arguments"), path + ".arguments");
  if (!arguments.ok()) return arguments.error();
  call.arguments = std::move(*arguments);
  builder.NoteCall(call.id, call.name);
  AssistantFor(builder, true).tool_calls.push_back(std::move(call));
  return Status();
}

Status ReadFunctionOutput(const Json& item, const std::string& path, MessageBuilder& builder) {
  const Json* call_id = Member(item, "call_id");
  if (call_id == nullptr || !call_id->is_string()) return MustBe(path + ".call_id", "a string");
  std::string output;
  if (const Json* value = Member(item, "output")) {
    auto read =
        internal::ReadContentText(*value, path + ".output", {"input_text", "output_text", "text"});
    if (!read.ok()) return read.error();
    output = std::move(*read);
  }
  Message& m = builder.Add(Role::kTool);
  m.tool_call_id = call_id->get<std::string>();
  m.name = builder.CallName(m.tool_call_id);
  m.content = std::move(output);
  return Status();
}

// An mcp_call item (a tool call a server ran, as crux's tool loop reports it): the assistant's
// call to `<server_label>__<name>` and its result, so the model sees what it did. Items
// without a server label or name (another vendor's shapes) are skipped like hosted calls.
Status ReadMcpCall(const Json& item, const std::string& path, MessageBuilder& builder) {
  const Json* server = Member(item, "server_label");
  const Json* name = Member(item, "name");
  if (server == nullptr || name == nullptr || !server->is_string() || !name->is_string()) {
    return Status();
  }
  MessageToolCall call;
  const Json* id = Member(item, "id");
  call.id = id != nullptr && id->is_string() ? id->get<std::string>() : path;
  call.name = server->get<std::string>() + "__" + name->get<std::string>();
  auto arguments = internal::ReadArguments(Member(item, "arguments"), path + ".arguments");
  if (!arguments.ok()) return arguments.error();
  call.arguments = std::move(*arguments);
  builder.NoteCall(call.id, call.name);
  AssistantFor(builder, true).tool_calls.push_back(call);
  Message& result = builder.Add(Role::kTool);
  result.tool_call_id = call.id;
  result.name = call.name;
  const Json* output = Member(item, "output");
  const Json* error = Member(item, "error");
  if (error != nullptr && error->is_string()) {
    result.content = "Error: " + error->get<std::string>();
  } else if (output != nullptr && output->is_string()) {
    result.content = output->get<std::string>();
  }
  return Status();
}

// A reasoning item's text: its reasoning_text content, else its summary texts.
Status ReadReasoning(const Json& item, const std::string& path, MessageBuilder& builder) {
  std::string text;
  for (const char* key : {"content", "summary"}) {
    const Json* parts = Member(item, key);
    if (parts == nullptr || !text.empty()) continue;
    auto read =
        internal::ReadContentText(*parts, path + "." + key, {"reasoning_text", "summary_text"});
    if (!read.ok()) return read.error();
    text = std::move(*read);
  }
  if (text.empty()) return Status();  // e.g. only encrypted_content
  Message& m = AssistantFor(builder, false);
  if (!m.reasoning.empty()) m.reasoning += '\n';
  m.reasoning += text;
  return Status();
}

// Reads the input items into the conversation, resolving item references from the store,
// and, when the response will be stored (`keep`), collects the resolved items for the store.
class InputReader {
 public:
  InputReader(MessageBuilder& builder, ResponseStore* store, bool keep)
      : builder_(builder), store_(store), keep_(keep) {}

  Status Read(const Json& item, const std::string& path) {
    if (!item.is_object()) return MustBe(path, "an object");
    std::string type;
    CRUX_PROTO_TRY(ReadString(item, "type", path + ".type", type));
    if (type.empty() && Member(item, "role") == nullptr && Member(item, "id") != nullptr) {
      type = "item_reference";  // `type` is optional on a reference
    }
    if (type == "item_reference") return ReadReference(item, path);
    if (keep_) resolved_.push_back(item);
    return ReadItem(item, type, path);
  }

  // The items of an earlier conversation, as the store returned them.
  Status ReadStored(const std::vector<std::string>& items, const std::string& path) {
    for (const std::string& text : items)
      CRUX_PROTO_TRY(ReadStoredItem(text, path, /*keep=*/false));
    return Status();
  }

  Json TakeResolved() { return std::move(resolved_); }

 private:
  Status ReadReference(const Json& item, const std::string& path) {
    std::string id;
    CRUX_PROTO_TRY(ReadString(item, "id", path + ".id", id));
    if (id.empty()) return MustBe(path + ".id", "a non-empty string");
    std::optional<std::string> stored;
    if (store_ != nullptr) stored = store_->Item(id);
    if (!stored) {
      return Error(ErrorCode::kNotFound, "Item with id '" + id + "' not found.")
          .WithTag("item_not_found");
    }
    return ReadStoredItem(*stored, path, /*keep=*/true);
  }

  // An item the store kept. It was read once already (an input item of an earlier request,
  // or an output item crux made), and the store keeps references resolved, so it is never a
  // reference itself. `keep`: it stands in this request's input, so the store keeps it again.
  Status ReadStoredItem(const std::string& text, const std::string& path, bool keep) {
    Json item = Json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (!item.is_object()) {
      return Error(ErrorCode::kInternal, path + " names a stored item that is not an object");
    }
    std::string type;
    CRUX_PROTO_TRY(ReadString(item, "type", path + ".type", type));
    CRUX_PROTO_TRY(ReadItem(item, type, path));
    if (keep && keep_) resolved_.push_back(std::move(item));
    return Status();
  }

  Status ReadItem(const Json& item, std::string type, const std::string& path) {
    if (type.empty() && Member(item, "role") != nullptr) type = "message";
    if (type == "message") return ReadMessageItem(item, path, builder_);
    if (type == "function_call") return ReadFunctionCall(item, path, builder_);
    if (type == "function_call_output") return ReadFunctionOutput(item, path, builder_);
    if (type == "reasoning") return ReadReasoning(item, path, builder_);
    if (type == "mcp_call") return ReadMcpCall(item, path, builder_);
    if (internal::IsMediaType(type)) {
      return Error(ErrorCode::kUnsupported,
                   path + " is " + type + " content, which is not supported (text only)");
    }
    return Status();  // hosted-tool calls and other items are skipped
  }

  MessageBuilder& builder_;
  ResponseStore* store_;
  bool keep_;
  Json resolved_ = Json::array();
};

// No `input`, or an empty string or array of items.
bool IsEmptyInput(const Json* input) {
  if (input == nullptr) return true;
  if (input->is_string()) return input->get_ref<const std::string&>().empty();
  return input->is_array() && input->empty();
}

Status ReadInput(const Json& body, ResponseStore* store, MessageBuilder& builder,
                 ChatRequest& request) {
  InputReader reader(builder, store, request.store);
  std::optional<std::string> previous;
  CRUX_PROTO_TRY(
      internal::ReadOptString(body, "previous_response_id", "previous_response_id", previous));
  const Json* input = Member(body, "input");
  if (previous && IsEmptyInput(input)) {
    // Continuing with nothing new would generate from the stored turn alone.
    return Error(ErrorCode::kInvalidArgument,
                 "input is required: previous_response_id continues a conversation with new "
                 "input items");
  }
  if (previous) {
    std::optional<std::vector<std::string>> items;
    if (store != nullptr) items = store->Conversation(*previous);
    if (!items) {
      return Error(ErrorCode::kNotFound, "Previous response with id '" + *previous + "' not found.")
          .WithTag("previous_response_not_found");
    }
    CRUX_PROTO_TRY(reader.ReadStored(*items, "previous_response_id"));
  }
  if (input == nullptr) {
    if (!previous) return Error(ErrorCode::kInvalidArgument, "input is required");
  } else if (input->is_string()) {
    Json item = {{"type", "message"},
                 {"role", "user"},
                 {"content", {{{"type", "input_text"}, {"text", input->get<std::string>()}}}}};
    CRUX_PROTO_TRY(reader.Read(item, "input"));
  } else if (!input->is_array()) {
    return MustBe("input", "a string or an array of input items");
  } else {
    for (size_t i = 0; i < input->size(); ++i) {
      CRUX_PROTO_TRY(reader.Read((*input)[i], IndexPath("input", i)));
    }
  }
  request.input_items_json = internal::Dump(reader.TakeResolved());
  return Status();
}

// `text: {format: {type: "text"|"json_object"|"json_schema", name, schema, strict}}`.
Status ReadText(const Json& body, ChatRequest& request) {
  const Json* text = Member(body, "text");
  if (text == nullptr) return Status();
  if (!text->is_object()) return MustBe("text", "an object");
  request.text_format_json = internal::Dump(*text);
  const Json* format = Member(*text, "format");
  if (format == nullptr) return Status();
  if (!format->is_object()) return MustBe("text.format", "an object");
  std::string type;
  CRUX_PROTO_TRY(ReadString(*format, "type", "text.format.type", type));
  if (type == "text") {
    request.response_format.kind = ResponseFormatKind::kText;
  } else if (type == "json_object") {
    request.response_format.kind = ResponseFormatKind::kJsonObject;
  } else if (type == "json_schema") {
    CRUX_PROTO_TRY(internal::ReadJsonSchema(*format, "text.format", request.response_format));
  } else {
    return MustBe("text.format.type", "one of text, json_object, json_schema (got '" + type + "')");
  }
  return Status();
}

Status ReadOptions(const Json& body, ResponseStore* store, ChatRequest& request) {
  CRUX_PROTO_TRY(internal::ReadMaxTokens(body, "max_output_tokens", request));
  CRUX_PROTO_TRY(internal::ReadSampling(body, 2.0, request));
  CRUX_PROTO_TRY(internal::ReadStop(body, "stop", request));
  CRUX_PROTO_TRY(internal::ReadBool(body, "stream", "stream", request.stream));
  CRUX_PROTO_TRY(internal::ReadBool(body, "parallel_tool_calls", "parallel_tool_calls",
                                    request.parallel_tool_calls));
  CRUX_PROTO_TRY(internal::ReadBool(body, "store", "store", request.store));
  CRUX_PROTO_TRY(ReadString(body, "user", "user", request.user));
  CRUX_PROTO_TRY(internal::ReadObjectText(body, "metadata", "metadata", request.metadata_json));
  CRUX_PROTO_TRY(internal::ReadOptString(body, "previous_response_id", "previous_response_id",
                                         request.previous_response_id));
  if (request.store && (store == nullptr || !store->enabled())) request.store = false;
  CRUX_PROTO_TRY(ReadString(body, "truncation", "truncation", request.truncation));
  if (request.truncation != "auto" && request.truncation != "disabled") {
    return MustBe("truncation", "\"auto\" or \"disabled\" (got '" + request.truncation + "')");
  }
  if (const Json* reasoning = Member(body, "reasoning")) {
    if (!reasoning->is_object()) return MustBe("reasoning", "an object");
    CRUX_PROTO_TRY(ReadString(*reasoning, "effort", "reasoning.effort", request.reasoning_effort));
    CRUX_PROTO_TRY(
        ReadString(*reasoning, "summary", "reasoning.summary", request.reasoning_summary));
    if (request.reasoning_summary == "none") request.reasoning_summary.clear();
  }
  CRUX_PROTO_TRY(ReadText(body, request));
  return internal::ReadExtensions(body, request);
}

}  // namespace

Expected<ChatRequest> DecodeResponses(std::string_view body_text, ResponseStore* store) {
  auto body = internal::ParseObject(body_text);
  if (!body.ok()) return body.error();
  ChatRequest request;
  request.api = Api::kResponses;
  CRUX_PROTO_TRY(internal::ReadModel(*body, request));
  CRUX_PROTO_TRY(ReadString(*body, "instructions", "instructions", request.instructions));
  MessageBuilder builder;
  builder.AddSystem(request.instructions);
  // Options first: whether the response is stored decides whether the input is kept.
  CRUX_PROTO_TRY(ReadOptions(*body, store, request));
  CRUX_PROTO_TRY(ReadInput(*body, store, builder, request));
  request.messages = builder.Take();
  CRUX_PROTO_TRY(internal::ReadTools(*body, kTools, request));
  CRUX_PROTO_TRY(internal::ReadOpenAiToolChoice(*body, internal::NamedChoice::kTopLevel, request));
  CRUX_PROTO_TRY(internal::CheckToolChoice(request, "required"));
  return request;
}

}  // namespace crux::protocol
