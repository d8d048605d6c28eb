#include "protocol/json.h"

#include <cmath>
#include <limits>
#include <vector>

#include "crux/text/json_dump.h"
#include "crux/text/json_parse.h"

namespace crux::protocol::internal {

namespace {

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

Expected<Json> ParseLimited(std::string_view text, std::string_view what) {
  static constexpr text::JsonParseLimits kLimits{.max_depth = kMaxJsonDepth,
                                                 .max_object_members = kMaxObjectMembers};
  Expected<Json> parsed = text::ParseJson<Json>(text, kLimits);
  if (parsed.ok()) return parsed;
  const Error& error = parsed.error();
  switch (error.code()) {
    case ErrorCode::kParse:
      return Error(ErrorCode::kParse, std::string(what) + " is not valid JSON: " + error.message());
    case ErrorCode::kLimit:
      return Error(ErrorCode::kInvalidArgument, std::string(what) + " " + error.message());
    default:
      return Error(error.code(),
                   std::string(what) + " has a value that cannot be read: " + error.message());
  }
}

Expected<Json> ParseObject(std::string_view body) {
  Expected<Json> doc = ParseLimited(body, "request body");
  if (!doc.ok()) return doc;
  if (!doc->is_object()) {
    return Error(ErrorCode::kInvalidArgument,
                 "request body must be a JSON object, not " + std::string(TypeName(*doc)));
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
