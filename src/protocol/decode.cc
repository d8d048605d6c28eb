#include "protocol/decode.h"

#include <limits>

namespace crux::protocol::internal {
namespace {

constexpr int64_t kIntMax = std::numeric_limits<int>::max();
constexpr std::string_view kDefaultParameters = R"({"type":"object","properties":{}})";

std::string JoinNames(const std::vector<parse::ToolSpec>& tools) {
  std::string names;
  for (const parse::ToolSpec& tool : tools) {
    if (!names.empty()) names += ", ";
    names += tool.name;
  }
  return names;
}

}  // namespace

void MessageBuilder::AddSystem(std::string text) {
  if (!text.empty()) system_.push_back(std::move(text));
}

Message& MessageBuilder::Add(Role role) {
  Message& message = messages_.emplace_back();
  message.role = role;
  return message;
}

Message* MessageBuilder::LastAssistant() {
  if (messages_.empty() || messages_.back().role != Role::kAssistant) return nullptr;
  return &messages_.back();
}

void MessageBuilder::NoteCall(const std::string& id, const std::string& name) {
  if (!id.empty()) call_names_[id] = name;
}

std::string MessageBuilder::CallName(const std::string& id) const {
  auto it = call_names_.find(id);
  return it == call_names_.end() ? std::string() : it->second;
}

std::vector<Message> MessageBuilder::Take() {
  std::vector<Message> out;
  out.reserve(messages_.size() + 1);
  if (!system_.empty()) {
    Message& system = out.emplace_back();
    system.role = Role::kSystem;
    for (size_t i = 0; i < system_.size(); ++i) {
      if (i > 0) system.content += "\n\n";
      system.content += system_[i];
    }
  }
  for (Message& m : messages_)
    out.push_back(std::move(m));
  system_.clear();
  messages_.clear();
  return out;
}

bool IsMediaType(std::string_view type) {
  for (std::string_view media : {"image", "image_url", "input_image", "input_audio", "audio",
                                 "file", "input_file", "document"}) {
    if (type == media) return true;
  }
  return false;
}

Expected<std::string> ReadContentText(const Json& content, const std::string& path,
                                      std::initializer_list<std::string_view> text_types) {
  if (content.is_string()) return content.get<std::string>();
  if (!content.is_array()) return MustBe(path, "a string or an array of content parts");
  std::string text;
  bool first = true;
  for (size_t i = 0; i < content.size(); ++i) {
    const Json& part = content[i];
    const std::string part_path = IndexPath(path, i);
    if (!part.is_object()) return MustBe(part_path, "an object");
    std::string type;
    CRUX_PROTO_TRY(ReadString(part, "type", part_path + ".type", type));
    if (IsMediaType(type)) {
      return Error(ErrorCode::kUnsupported,
                   part_path + " is " + type + " content, which is not supported (text only)");
    }
    bool is_text = false;
    for (std::string_view t : text_types)
      is_text = is_text || type == t;
    if (!is_text) continue;
    const Json* value = Member(part, "text");
    if (value == nullptr || !value->is_string()) return MustBe(part_path + ".text", "a string");
    if (!first) text += '\n';
    text += value->get_ref<const std::string&>();
    first = false;
  }
  return text;
}

Status ReadModel(const Json& body, ChatRequest& request) {
  const Json* model = Member(body, "model");
  if (model == nullptr) return Error(ErrorCode::kInvalidArgument, "model is required");
  if (!model->is_string() || model->get_ref<const std::string&>().empty()) {
    return MustBe("model", "a non-empty string");
  }
  request.model = model->get<std::string>();
  return Status();
}

Expected<const Json*> RequireArray(const Json& body, std::string_view key) {
  const Json* value = Member(body, key);
  if (value == nullptr) {
    return Error(ErrorCode::kInvalidArgument, std::string(key) + " is required");
  }
  if (!value->is_array()) return MustBe(key, "an array");
  return value;
}

namespace {

// logit_bias: {"token id": bias}, ids as decimal strings, biases in [-100, 100].
Status ReadLogitBias(const Json& body, ChatRequest& request) {
  const Json* bias = Member(body, "logit_bias");
  if (bias == nullptr || bias->is_null()) return Status();
  if (!bias->is_object()) return MustBe("logit_bias", "an object of token ids to numbers");
  for (auto it = bias->begin(); it != bias->end(); ++it) {
    const std::string& key = it.key();
    const std::string path = "logit_bias." + key;
    uint64_t id = 0;
    bool digits = !key.empty() && key.size() <= 9;
    for (char c : key) {
      digits = digits && c >= '0' && c <= '9';
      if (digits) id = id * 10 + static_cast<uint64_t>(c - '0');
    }
    if (!digits) return MustBe(path, "keyed by a token id (a decimal number)");
    if (!it.value().is_number()) return MustBe(path, "a number");
    const double value = it.value().get<double>();
    if (!(value >= -100.0 && value <= 100.0)) return MustBe(path, "between -100 and 100");
    request.logit_bias.emplace_back(static_cast<uint32_t>(id), static_cast<float>(value));
  }
  return Status();
}

}  // namespace

Status ReadSampling(const Json& body, double max_temperature, ChatRequest& request) {
  CRUX_PROTO_TRY(
      ReadNumber(body, "temperature", "temperature", 0.0, max_temperature, request.temperature));
  CRUX_PROTO_TRY(ReadNumber(body, "top_p", "top_p", 0.0, 1.0, request.top_p));
  std::optional<int64_t> top_k;
  CRUX_PROTO_TRY(ReadInt(body, "top_k", "top_k", -1, kIntMax, top_k));
  if (top_k && *top_k > 0) request.top_k = static_cast<int>(*top_k);
  std::optional<int64_t> seed;
  CRUX_PROTO_TRY(ReadInt(body, "seed", "seed", std::numeric_limits<int64_t>::min(),
                         std::numeric_limits<int64_t>::max(), seed));
  if (seed) request.seed = static_cast<uint64_t>(*seed);
  CRUX_PROTO_TRY(ReadNumber(body, "min_p", "min_p", 0.0, 1.0, request.min_p));
  CRUX_PROTO_TRY(ReadNumber(body, "presence_penalty", "presence_penalty", -2.0, 2.0,
                            request.presence_penalty));
  CRUX_PROTO_TRY(ReadNumber(body, "frequency_penalty", "frequency_penalty", -2.0, 2.0,
                            request.frequency_penalty));
  CRUX_PROTO_TRY(ReadNumber(body, "repetition_penalty", "repetition_penalty", 0.01, 10.0,
                            request.repetition_penalty));
  return ReadLogitBias(body, request);
}

Status ReadMaxTokens(const Json& body, std::string_view key, ChatRequest& request) {
  std::optional<int64_t> limit;
  CRUX_PROTO_TRY(ReadInt(body, key, std::string(key), 1, kIntMax, limit));
  if (limit) request.max_tokens = static_cast<int>(*limit);
  return Status();
}

Status ReadStop(const Json& body, std::string_view key, ChatRequest& request) {
  const Json* stop = Member(body, key);
  if (stop == nullptr) return Status();
  const std::string path(key);
  if (stop->is_string()) {
    if (!stop->get_ref<const std::string&>().empty())
      request.stop.push_back(stop->get<std::string>());
    return Status();
  }
  if (!stop->is_array()) return MustBe(path, "a string or an array of strings");
  for (size_t i = 0; i < stop->size(); ++i) {
    const Json& s = (*stop)[i];
    if (!s.is_string()) return MustBe(IndexPath(path, i), "a string");
    if (!s.get_ref<const std::string&>().empty()) request.stop.push_back(s.get<std::string>());
  }
  return Status();
}

// `mcp_tools`: true (every MCP tool), false (off), or server / tool names.
Status ReadMcpTools(const Json& body, ChatRequest& request) {
  const Json* mcp = Member(body, "mcp_tools");
  if (mcp == nullptr) return Status();
  const auto invalid = [] {
    return MustBe("mcp_tools", "true, false, or an array of MCP server or tool names");
  };
  if (mcp->is_boolean()) {
    if (mcp->get<bool>()) request.mcp_tools.emplace();
    return Status();
  }
  if (!mcp->is_array()) return invalid();
  std::vector<std::string> names;
  for (const Json& name : *mcp) {
    if (!name.is_string() || name.get_ref<const std::string&>().empty()) return invalid();
    names.push_back(name.get<std::string>());
  }
  if (names.empty()) return invalid();
  request.mcp_tools = std::move(names);
  return Status();
}

Status ReadExtensions(const Json& body, ChatRequest& request) {
  CRUX_PROTO_TRY(ReadOptBool(body, "enable_thinking", "enable_thinking", request.enable_thinking));
  if (const Json* kwargs = Member(body, "chat_template_kwargs")) {
    if (!kwargs->is_object()) return MustBe("chat_template_kwargs", "an object");
    CRUX_PROTO_TRY(ReadOptBool(*kwargs, "enable_thinking", "chat_template_kwargs.enable_thinking",
                               request.enable_thinking));
    request.chat_template_kwargs_json = Dump(*kwargs);
  }
  std::optional<int64_t> budget;
  CRUX_PROTO_TRY(
      ReadInt(body, "thinking_token_budget", "thinking_token_budget", 0, kIntMax, budget));
  if (budget) request.thinking_budget_tokens = static_cast<int>(*budget);
  CRUX_PROTO_TRY(
      ReadOptString(body, "reasoning_parser", "reasoning_parser", request.reasoning_parser));
  CRUX_PROTO_TRY(ReadOptString(body, "tool_call_parser", "tool_call_parser", request.tool_parser));
  return ReadMcpTools(body, request);
}

Status ReadTools(const Json& body, const ToolDialect& dialect, ChatRequest& request) {
  const Json* tools = Member(body, "tools");
  if (tools == nullptr) return Status();
  if (!tools->is_array()) return MustBe("tools", "an array");
  for (size_t i = 0; i < tools->size(); ++i) {
    const Json& tool = (*tools)[i];
    const std::string path = IndexPath("tools", i);
    if (!tool.is_object()) return MustBe(path, "an object");
    std::string type(dialect.default_type);
    CRUX_PROTO_TRY(ReadString(tool, "type", path + ".type", type));
    if (type != dialect.callable_type) continue;  // hosted and server tools are not ours
    const Json* holder = &tool;
    std::string holder_path = path;
    if (!dialect.holder.empty()) {
      holder = Member(tool, dialect.holder);
      holder_path = FieldPath(path, dialect.holder);
      if (holder == nullptr || !holder->is_object()) return MustBe(holder_path, "an object");
    }
    auto spec = ReadFunctionTool(*holder, holder_path, dialect.schema_key);
    if (!spec.ok()) return spec.error();
    request.tools.push_back(std::move(*spec));
  }
  request.tools_json = Dump(*tools);
  return Status();
}

Status ReadOpenAiToolChoice(const Json& body, NamedChoice where, ChatRequest& request) {
  const Json* choice = Member(body, "tool_choice");
  if (choice == nullptr) return Status();
  request.tool_choice_json = Dump(*choice);
  const bool in_function = where == NamedChoice::kInFunction;
  const std::string shapes =
      std::string("\"auto\", \"none\", \"required\" or {\"type\":\"function\",") +
      (in_function ? "\"function\":{\"name\":…}}" : "\"name\":…}");
  if (choice->is_string()) {
    const std::string& mode = choice->get_ref<const std::string&>();
    if (mode == "auto") {
      request.tool_choice.mode = ToolChoiceMode::kAuto;
    } else if (mode == "none") {
      request.tool_choice.mode = ToolChoiceMode::kNone;
    } else if (mode == "required") {
      request.tool_choice.mode = ToolChoiceMode::kRequired;
    } else {
      return MustBe("tool_choice", shapes + " (got '" + mode + "')");
    }
    return Status();
  }
  if (!choice->is_object()) return MustBe("tool_choice", shapes);
  std::string type;
  CRUX_PROTO_TRY(ReadString(*choice, "type", "tool_choice.type", type));
  if (type != "function") {
    return Error(ErrorCode::kUnsupported,
                 "tool_choice.type '" + type + "' is not supported (use \"function\")");
  }
  const Json* holder = in_function ? Member(*choice, "function") : choice;
  const Json* name = holder != nullptr ? Member(*holder, "name") : nullptr;
  if (name == nullptr || !name->is_string() || name->get_ref<const std::string&>().empty()) {
    return MustBe(in_function ? "tool_choice.function.name" : "tool_choice.name",
                  "a non-empty string");
  }
  request.tool_choice = {ToolChoiceMode::kNamed, name->get<std::string>()};
  return Status();
}

Expected<parse::ToolSpec> ReadFunctionTool(const Json& holder, const std::string& path,
                                           std::string_view parameters_key) {
  const Json* name = Member(holder, "name");
  if (name == nullptr || !name->is_string() || name->get_ref<const std::string&>().empty()) {
    return MustBe(FieldPath(path, "name"), "a non-empty string");
  }
  std::string description;
  CRUX_PROTO_TRY(ReadString(holder, "description", FieldPath(path, "description"), description));
  std::string parameters(kDefaultParameters);
  CRUX_PROTO_TRY(
      ReadObjectText(holder, parameters_key, FieldPath(path, parameters_key), parameters));
  return parse::MakeToolSpec(name->get<std::string>(), std::move(description),
                             std::move(parameters));
}

Status ReadJsonSchema(const Json& object, const std::string& path, ResponseFormat& format) {
  format.kind = ResponseFormatKind::kJsonSchema;
  CRUX_PROTO_TRY(ReadString(object, "name", FieldPath(path, "name"), format.name));
  CRUX_PROTO_TRY(ReadBool(object, "strict", FieldPath(path, "strict"), format.strict));
  std::string schema;
  CRUX_PROTO_TRY(ReadObjectText(object, "schema", FieldPath(path, "schema"), schema));
  if (schema.empty()) {
    // A json_schema format without a schema constrains to "some JSON object".
    format.kind = ResponseFormatKind::kJsonObject;
  } else {
    format.schema_json = std::move(schema);
  }
  return Status();
}

Status ReadResponseFormat(const Json& body, ChatRequest& request) {
  const Json* format = Member(body, "response_format");
  if (format == nullptr) return Status();
  if (!format->is_object()) return MustBe("response_format", "an object");
  std::string type;
  CRUX_PROTO_TRY(ReadString(*format, "type", "response_format.type", type));
  if (type == "text") {
    request.response_format.kind = ResponseFormatKind::kText;
  } else if (type == "json_object") {
    request.response_format.kind = ResponseFormatKind::kJsonObject;
  } else if (type == "json_schema") {
    const Json* schema = Member(*format, "json_schema");
    if (schema == nullptr || !schema->is_object()) {
      return MustBe("response_format.json_schema", "an object");
    }
    CRUX_PROTO_TRY(ReadJsonSchema(*schema, "response_format.json_schema", request.response_format));
  } else {
    return MustBe("response_format.type",
                  "one of text, json_object, json_schema (got '" + type + "')");
  }
  return Status();
}

Status CheckToolChoice(const ChatRequest& request, std::string_view required_label) {
  // With mcp_tools the server adds tools before the pipeline, which checks tool_choice again.
  if (request.mcp_tools) return Status();
  const ToolChoice& choice = request.tool_choice;
  if (choice.mode == ToolChoiceMode::kRequired && request.tools.empty()) {
    return Error(ErrorCode::kInvalidArgument,
                 "tool_choice is '" + std::string(required_label) + "' but no tools are declared");
  }
  if (choice.mode != ToolChoiceMode::kNamed) return Status();
  if (parse::FindTool(request.tools, choice.name) != nullptr) return Status();
  std::string message = "tool_choice names tool '" + choice.name + "', which is not declared";
  message += request.tools.empty() ? " (no tools are declared)"
                                   : " (declared tools: " + JoinNames(request.tools) + ")";
  return Error(ErrorCode::kInvalidArgument, std::move(message));
}

Expected<std::string> ReadArguments(const Json* arguments, const std::string& path) {
  if (arguments == nullptr) return std::string("{}");
  if (arguments->is_object()) return Dump(*arguments);
  if (!arguments->is_string()) return MustBe(path, "a string holding a JSON object");
  const std::string& text = arguments->get_ref<const std::string&>();
  if (text.empty()) return std::string("{}");
  const Expected<Json> parsed = ParseLimited(text, path);
  if (!parsed.ok() && parsed.error().code() == ErrorCode::kInvalidArgument) return parsed.error();
  if (!parsed.ok() || !parsed->is_object()) {
    return MustBe(path, "a string holding a JSON object");
  }
  return text;
}

}  // namespace crux::protocol::internal
