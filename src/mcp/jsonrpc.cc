#include "crux/mcp/jsonrpc.h"

#include <limits>
#include <utility>

namespace crux::mcp {
namespace {

Error Invalid(std::string message) {
  return Error(ErrorCode::kInvalidArgument, std::move(message));
}

std::string_view TypeName(const Json& value) {
  switch (value.type()) {
    case Json::value_t::null:
      return "null";
    case Json::value_t::object:
      return "an object";
    case Json::value_t::array:
      return "an array";
    case Json::value_t::string:
      return "a string";
    case Json::value_t::boolean:
      return "a boolean";
    case Json::value_t::number_float:
      return "a fractional number";
    default:
      return "a number";
  }
}

// Refuses nesting deeper than kMaxJsonDepth in one pass over the raw bytes, so a hostile line
// never becomes a tree that nlohmann would walk recursively. Malformed JSON passes and is left
// to the parser.
Status CheckDepth(std::string_view line) {
  int depth = 0;
  bool in_string = false;
  bool escaped = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxJsonDepth) {
        return Error(ErrorCode::kLimit, "message nests deeper than " +
                                            std::to_string(kMaxJsonDepth) + " levels at byte " +
                                            std::to_string(i));
      }
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return {};
}

// nlohmann's message without its "[json.exception.parse_error.101] " prefix.
std::string ExceptionText(const Json::exception& e) {
  std::string what = e.what();
  if (const size_t end = what.find("] "); what.starts_with("[json.") && end != what.npos) {
    what.erase(0, end + 2);
  }
  return what;
}

Expected<Json> ParseLine(std::string_view line) {
  if (Status depth = CheckDepth(line); !depth.ok()) return depth.error();
  try {
    return Json::parse(line.begin(), line.end());
  } catch (const Json::parse_error& e) {
    const size_t offset = e.byte > 0 ? e.byte - 1 : 0;  // nlohmann counts from 1
    return Error(ErrorCode::kParse,
                 "invalid JSON at byte " + std::to_string(offset) + ": " + ExceptionText(e));
  } catch (const Json::exception& e) {  // out_of_range: a number beyond a double's range
    return Error(ErrorCode::kParse, "invalid JSON: " + ExceptionText(e));
  }
}

// The member `key`, or nullptr when absent.
Json* Find(Json& object, std::string_view key) {
  const auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

Expected<RequestId> ReadId(const Json& id, std::string_view what) {
  if (id.is_string()) return RequestId(id.get<std::string>());
  if (id.is_number_unsigned()) {
    const uint64_t value = id.get<uint64_t>();
    if (value > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      return Invalid(std::string(what) + " " + std::to_string(value) + " is out of range");
    }
    return RequestId(static_cast<int64_t>(value));
  }
  if (id.is_number_integer()) return RequestId(id.get<int64_t>());
  return Invalid(std::string(what) + " must be a string or an integer, got " +
                 std::string(TypeName(id)));
}

// `params` when present and not null: an object or an array.
Expected<std::optional<Json>> ReadParams(Json& message) {
  Json* params = Find(message, "params");
  if (params == nullptr || params->is_null()) return std::optional<Json>();
  if (!params->is_object() && !params->is_array()) {
    return Invalid("params must be an object or an array, got " + std::string(TypeName(*params)));
  }
  return std::optional<Json>(std::move(*params));
}

Expected<Message> DecodeCall(Json& message) {
  const Json& method = *Find(message, "method");
  if (!method.is_string()) {
    return Invalid("method must be a string, got " + std::string(TypeName(method)));
  }
  if (method.get_ref<const std::string&>().empty()) return Invalid("method must not be empty");
  if (Find(message, "result") != nullptr || Find(message, "error") != nullptr) {
    return Invalid("a message with a method must not have result or error");
  }
  auto params = ReadParams(message);
  if (!params.ok()) return params.error();
  const Json* id = Find(message, "id");
  if (id == nullptr) return Message(Notification{method.get<std::string>(), std::move(*params)});
  auto request_id = ReadId(*id, "request id");
  if (!request_id.ok()) return request_id.error();
  return Message(Request{std::move(*request_id), method.get<std::string>(), std::move(*params)});
}

Expected<Message> DecodeError(Json& error, const Json* id) {
  if (!error.is_object()) {
    return Invalid("error must be an object, got " + std::string(TypeName(error)));
  }
  ErrorResponse out;
  if (id != nullptr && !id->is_null()) {
    auto request_id = ReadId(*id, "response id");
    if (!request_id.ok()) return request_id.error();
    out.id = std::move(*request_id);
  }
  const Json* code = Find(error, "code");
  if (code == nullptr || !code->is_number_integer() ||
      (code->is_number_unsigned() &&
       code->get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))) {
    return Invalid("error.code must be an integer, got " +
                   std::string(code == nullptr ? "nothing" : TypeName(*code)));
  }
  out.code = code->get<int64_t>();
  Json* text = Find(error, "message");
  if (text == nullptr || !text->is_string()) {
    return Invalid("error.message must be a string, got " +
                   std::string(text == nullptr ? "nothing" : TypeName(*text)));
  }
  out.message = std::move(text->get_ref<std::string&>());
  if (Json* data = Find(error, "data"); data != nullptr && !data->is_null()) {
    out.data = std::move(*data);
  }
  return Message(std::move(out));
}

Expected<Message> DecodeAnswer(Json& message) {
  Json* result = Find(message, "result");
  Json* error = Find(message, "error");
  if (result != nullptr && error != nullptr) {
    return Invalid("a response must not have both result and error");
  }
  if (result == nullptr && error == nullptr) {
    return Invalid("message has no method, result or error");
  }
  const Json* id = Find(message, "id");
  if (error != nullptr) return DecodeError(*error, id);
  if (id == nullptr) return Invalid("response has no id");
  auto response_id = ReadId(*id, "response id");
  if (!response_id.ok()) return response_id.error();
  return Message(Response{std::move(*response_id), std::move(*result)});
}

void AppendDump(std::string& out, const Json& value) {
  out += value.dump(-1, ' ', false, Json::error_handler_t::replace);
}

void AppendString(std::string& out, std::string_view text) {
  AppendDump(out, Json(std::string(text)));
}

void AppendId(std::string& out, const RequestId& id) {
  if (const auto* number = std::get_if<int64_t>(&id)) {
    out += std::to_string(*number);
  } else {
    AppendString(out, std::get<std::string>(id));
  }
}

void AppendMember(std::string& out, std::string_view key, const Json& value) {
  if (value.is_null()) return;
  out += ",\"";
  out += key;
  out += "\":";
  AppendDump(out, value);
}

constexpr std::string_view kHead = R"({"jsonrpc":"2.0")";

const Json& OrNull(const std::optional<Json>& value) {
  static const Json null_value;
  return value.has_value() ? *value : null_value;
}

}  // namespace

Expected<Message> DecodeMessage(std::string_view line) {
  auto parsed = ParseLine(line);
  if (!parsed.ok()) return parsed.error();
  Json& message = *parsed;
  if (message.is_array()) {
    return Error(ErrorCode::kUnsupported,
                 "JSON-RPC batches (arrays) are not supported: MCP removed batching in 2025-06-18");
  }
  if (!message.is_object()) {
    return Invalid("a JSON-RPC message must be an object, got " + std::string(TypeName(message)));
  }
  const Json* version = Find(message, "jsonrpc");
  if (version == nullptr) return Invalid(R"(missing "jsonrpc": "2.0")");
  if (!version->is_string() || version->get_ref<const std::string&>() != "2.0") {
    return Invalid(R"(jsonrpc must be "2.0", got )" +
                   version->dump(-1, ' ', false, Json::error_handler_t::replace));
  }
  if (Find(message, "method") != nullptr) return DecodeCall(message);
  return DecodeAnswer(message);
}

std::string EncodeRequest(const RequestId& id, std::string_view method, const Json& params) {
  std::string out(kHead);
  out += ",\"id\":";
  AppendId(out, id);
  out += ",\"method\":";
  AppendString(out, method);
  AppendMember(out, "params", params);
  out += '}';
  return out;
}

std::string EncodeNotification(std::string_view method, const Json& params) {
  std::string out(kHead);
  out += ",\"method\":";
  AppendString(out, method);
  AppendMember(out, "params", params);
  out += '}';
  return out;
}

std::string EncodeResponse(const RequestId& id, const Json& result) {
  std::string out(kHead);
  out += ",\"id\":";
  AppendId(out, id);
  out += ",\"result\":";
  AppendDump(out, result);
  out += '}';
  return out;
}

std::string EncodeErrorResponse(const std::optional<RequestId>& id, int64_t code,
                                std::string_view message, const Json& data) {
  std::string out(kHead);
  out += ",\"id\":";
  if (id.has_value()) {
    AppendId(out, *id);
  } else {
    out += "null";
  }
  out += ",\"error\":{\"code\":";
  out += std::to_string(code);
  out += ",\"message\":";
  AppendString(out, message);
  AppendMember(out, "data", data);
  out += "}}";
  return out;
}

std::string EncodeMessage(const Message& message) {
  if (const auto* request = std::get_if<Request>(&message)) {
    return EncodeRequest(request->id, request->method, OrNull(request->params));
  }
  if (const auto* notification = std::get_if<Notification>(&message)) {
    return EncodeNotification(notification->method, OrNull(notification->params));
  }
  if (const auto* response = std::get_if<Response>(&message)) {
    return EncodeResponse(response->id, response->result);
  }
  const auto& error = std::get<ErrorResponse>(message);
  return EncodeErrorResponse(error.id, error.code, error.message, OrNull(error.data));
}

std::string RequestIdText(const RequestId& id) {
  std::string out;
  AppendId(out, id);
  return out;
}

std::string_view ProtocolEraName(ProtocolEra era) {
  return era == ProtocolEra::kModern ? "modern" : "legacy";
}

}  // namespace crux::mcp
