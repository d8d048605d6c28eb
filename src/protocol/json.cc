#include "protocol/json.h"

#include <cmath>
#include <limits>
#include <vector>

#include "crux/text/json_dump.h"

namespace crux::protocol::internal {

Status CheckJsonShape(std::string_view body, std::string_view what) {
  struct Level {
    bool object;
    int members;
  };
  std::vector<Level> stack;
  for (size_t i = 0; i < body.size(); ++i) {
    const char c = body[i];
    if (c == '"') {
      for (++i; i < body.size() && body[i] != '"'; ++i) {
        if (body[i] == '\\') ++i;
      }
    } else if (c == '{' || c == '[') {
      if (stack.size() >= static_cast<size_t>(kMaxJsonDepth)) {
        return Error(ErrorCode::kInvalidArgument, std::string(what) + " nests deeper than " +
                                                      std::to_string(kMaxJsonDepth) + " levels");
      }
      stack.push_back({c == '{', 0});
    } else if (c == '}' || c == ']') {
      if (!stack.empty()) stack.pop_back();
    } else if (c == ':' && !stack.empty() && stack.back().object) {
      if (++stack.back().members > kMaxObjectMembers) {
        return Error(ErrorCode::kInvalidArgument,
                     std::string(what) + " has an object with more than " +
                         std::to_string(kMaxObjectMembers) + " members");
      }
    }
  }
  return Status();
}

namespace {

// nlohmann's message without its "[json.exception.parse_error.101] " prefix.
std::string ParseMessage(const char* what) {
  std::string_view text(what);
  if (const size_t end = text.find("] "); text.starts_with("[json.") && end != text.npos) {
    text.remove_prefix(end + 2);
  }
  return std::string(text);
}

std::string Describe(double value) {
  Json j = value;
  if (value == std::floor(value) && std::fabs(value) < 1e15) {
    j = static_cast<int64_t>(value);
  }
  return Dump(j);
}

}  // namespace

std::string Dump(const Json& value) {
  return text::JsonDump(value);
}

void AppendJsonString(std::string& out, std::string_view text) {
  text::AppendJsonStringLikeDump(out, text);
}

Expected<Json> ParseObject(std::string_view body) {
  CRUX_PROTO_TRY(CheckJsonShape(body, "request body"));
  Json doc;
  try {
    doc = Json::parse(body);
  } catch (const nlohmann::json::parse_error& e) {
    return Error(ErrorCode::kParse, "request body is not valid JSON: " + ParseMessage(e.what()));
  } catch (const nlohmann::json::exception& e) {
    // Well-formed text the parser still refuses, such as a number too large for a double.
    return Error(ErrorCode::kInvalidArgument,
                 "request body has a value that cannot be read: " + ParseMessage(e.what()));
  }
  if (!doc.is_object()) {
    return Error(ErrorCode::kInvalidArgument,
                 "request body must be a JSON object, not " + std::string(TypeName(doc)));
  }
  return doc;
}

std::string FieldPath(std::string_view parent, std::string_view key) {
  std::string path(parent);
  if (!path.empty()) path += '.';
  path += key;
  return path;
}

std::string IndexPath(std::string_view parent, size_t index) {
  std::string path(parent);
  path += '[';
  path += std::to_string(index);
  path += ']';
  return path;
}

Error MustBe(std::string_view path, std::string_view what) {
  std::string message(path);
  message += " must be ";
  message += what;
  return Error(ErrorCode::kInvalidArgument, std::move(message));
}

const Json* Member(const Json& object, std::string_view key) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return nullptr;
  return &*it;
}

std::string_view TypeName(const Json& value) {
  switch (value.type()) {
    case Json::value_t::null:
      return "null";
    case Json::value_t::boolean:
      return "a boolean";
    case Json::value_t::string:
      return "a string";
    case Json::value_t::array:
      return "an array";
    case Json::value_t::object:
      return "an object";
    default:
      return "a number";
  }
}

Status ReadString(const Json& object, std::string_view key, const std::string& path,
                  std::string& out) {
  const Json* value = Member(object, key);
  if (value == nullptr) return Status();
  if (!value->is_string()) return MustBe(path, "a string");
  out = value->get<std::string>();
  return Status();
}

Status ReadOptString(const Json& object, std::string_view key, const std::string& path,
                     std::optional<std::string>& out) {
  const Json* value = Member(object, key);
  if (value == nullptr) return Status();
  if (!value->is_string()) return MustBe(path, "a string");
  out = value->get<std::string>();
  return Status();
}

Status ReadBool(const Json& object, std::string_view key, const std::string& path, bool& out) {
  const Json* value = Member(object, key);
  if (value == nullptr) return Status();
  if (!value->is_boolean()) return MustBe(path, "a boolean");
  out = value->get<bool>();
  return Status();
}

Status ReadOptBool(const Json& object, std::string_view key, const std::string& path,
                   std::optional<bool>& out) {
  bool flag = false;
  if (Member(object, key) == nullptr) return Status();
  CRUX_PROTO_TRY(ReadBool(object, key, path, flag));
  out = flag;
  return Status();
}

Status ReadNumber(const Json& object, std::string_view key, const std::string& path, double min,
                  double max, std::optional<double>& out) {
  const Json* value = Member(object, key);
  if (value == nullptr) return Status();
  if (!value->is_number()) return MustBe(path, "a number");
  const double number = value->get<double>();
  if (!(number >= min && number <= max)) {
    return MustBe(path, "a number between " + Describe(min) + " and " + Describe(max) + " (got " +
                            Describe(number) + ")");
  }
  out = number;
  return Status();
}

Status ReadInt(const Json& object, std::string_view key, const std::string& path, int64_t min,
               int64_t max, std::optional<int64_t>& out) {
  const Json* value = Member(object, key);
  if (value == nullptr) return Status();
  // Every message states the whole range, so a value past either end says what would fit.
  const std::string range =
      "an integer between " + std::to_string(min) + " and " + std::to_string(max);
  int64_t number = 0;
  if (value->is_number_unsigned()) {
    const uint64_t u = value->get<uint64_t>();
    if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      return MustBe(path, range + " (got " + Dump(*value) + ")");
    }
    number = static_cast<int64_t>(u);
  } else if (value->is_number_integer()) {
    number = value->get<int64_t>();
  } else if (value->is_number_float()) {
    const double d = value->get<double>();
    // Integral floats (1000.0) are accepted; the bounds keep the conversion defined.
    if (d != std::floor(d) || !(d > -9.2e18 && d < 9.2e18)) {
      return MustBe(path, range + " (got " + Dump(*value) + ")");
    }
    number = static_cast<int64_t>(d);
  } else {
    return MustBe(path, range + " (got " + std::string(TypeName(*value)) + ")");
  }
  if (number < min || number > max) {
    return MustBe(path, range + " (got " + std::to_string(number) + ")");
  }
  out = number;
  return Status();
}

Status ReadObjectText(const Json& object, std::string_view key, const std::string& path,
                      std::string& out) {
  const Json* value = Member(object, key);
  if (value == nullptr) return Status();
  if (!value->is_object()) return MustBe(path, "an object");
  out = Dump(*value);
  return Status();
}

}  // namespace crux::protocol::internal
