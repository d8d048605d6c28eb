#include "json_util.h"

#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace crux::constrain {

namespace {

// nlohmann SAX handler that appends object members without looking for duplicates.
class Builder {
 public:
  bool null() { return Add(Json(nullptr)); }
  bool boolean(bool value) { return Add(Json(value)); }
  bool number_integer(Json::number_integer_t value) { return Add(Json(value)); }
  bool number_unsigned(Json::number_unsigned_t value) { return Add(Json(value)); }
  bool number_float(Json::number_float_t value, const Json::string_t& /*text*/) {
    return Add(Json(value));
  }
  bool string(Json::string_t& value) { return Add(Json(std::move(value))); }
  bool binary(Json::binary_t& /*value*/) { return false; }
  bool start_object(size_t /*size*/) { return Open(Json::object()); }
  bool key(Json::string_t& name) {
    key_ = std::move(name);
    return true;
  }
  bool end_object() { return Close(); }
  bool start_array(size_t /*size*/) { return Open(Json::array()); }
  bool end_array() { return Close(); }
  bool parse_error(size_t /*position*/, const std::string& /*token*/,
                   const nlohmann::detail::exception& error) {
    error_ = error.what();
    return false;
  }

  Json& root() { return root_; }
  const std::string& error() const { return error_; }

 private:
  // Places `value` in the innermost open container (or as the root); returns where it went.
  Json* Place(Json value) {
    if (open_.empty()) {
      root_ = std::move(value);
      return &root_;
    }
    Json& parent = *open_.back();
    if (parent.is_array()) {
      parent.get_ref<Json::array_t&>().push_back(std::move(value));
      return &parent.get_ref<Json::array_t&>().back();
    }
    auto& members = parent.get_ref<Json::object_t&>();
    members.emplace_back(std::move(key_), std::move(value));
    return &members.back().second;
  }
  bool Add(Json value) {
    Place(std::move(value));
    return true;
  }
  bool Open(Json container) {
    open_.push_back(Place(std::move(container)));
    return true;
  }
  bool Close() {
    open_.pop_back();
    return true;
  }

  Json root_;
  std::vector<Json*> open_;  // the open containers; each is the last member of its parent
  std::string key_;
  std::string error_;
};

}  // namespace

Expected<Json> ParseJson(std::string_view text) {
  Builder builder;
  bool ok = false;
  try {
    ok = Json::sax_parse(text, &builder);
  } catch (const Json::exception& e) {
    return Error(ErrorCode::kParse, e.what());
  }
  if (!ok) return Error(ErrorCode::kParse, builder.error());
  return std::move(builder.root());
}

bool NestsDeeperThan(std::string_view text, size_t limit) {
  size_t depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > limit) return true;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return false;
}

namespace {

// Largest doubles that convert to int64 exactly: [-2^63, 2^63).
constexpr double kInt64Low = -9223372036854775808.0;
constexpr double kInt64High = 9223372036854775808.0;

nlohmann::json Canonicalize(const Json& value) {
  if (value.is_number_float()) {
    const double d = value.get<double>();
    if (std::isfinite(d) && d == std::floor(d) && d >= kInt64Low && d < kInt64High) {
      return nlohmann::json(static_cast<int64_t>(d));
    }
    return nlohmann::json(d);
  }
  if (value.is_number_unsigned() && value.get<uint64_t>() <= INT64_MAX) {
    return nlohmann::json(static_cast<int64_t>(value.get<uint64_t>()));
  }
  if (value.is_array()) {
    nlohmann::json out = nlohmann::json::array();
    for (const Json& item : value)
      out.push_back(Canonicalize(item));
    return out;
  }
  if (value.is_object()) {
    nlohmann::json out = nlohmann::json::object();
    for (const auto& [key, item] : value.items())
      out[key] = Canonicalize(item);
    return out;
  }
  if (value.is_string()) return nlohmann::json(value.get<std::string>());
  if (value.is_boolean()) return nlohmann::json(value.get<bool>());
  if (value.is_number_integer() && !value.is_number_unsigned()) {
    return nlohmann::json(value.get<int64_t>());
  }
  if (value.is_number_unsigned()) return nlohmann::json(value.get<uint64_t>());
  if (value.is_number()) return nlohmann::json(value.get<double>());
  return nlohmann::json(nullptr);
}

}  // namespace

std::string CanonicalJson(const Json& value) {
  return Canonicalize(value).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

uint8_t TypeOfCanonical(std::string_view text) {
  switch (text.empty() ? '\0' : text[0]) {
    case '"':
      return kTypeString;
    case '{':
      return kTypeObject;
    case '[':
      return kTypeArray;
    case 't':
    case 'f':
      return kTypeBoolean;
    case 'n':
      return kTypeNull;
    default:
      return text.find_first_of(".eE") == std::string_view::npos ? kTypeInteger : kTypeNumber;
  }
}

SchemaNumber ToSchemaNumber(const Json& value) {
  SchemaNumber number;
  if (value.is_number_integer() && !value.is_number_unsigned()) {
    number.is_integer = true;
    number.integer = value.get<int64_t>();
    number.value = static_cast<double>(number.integer);
    return number;
  }
  if (value.is_number_unsigned() && value.get<uint64_t>() <= INT64_MAX) {
    number.is_integer = true;
    number.integer = static_cast<int64_t>(value.get<uint64_t>());
    number.value = static_cast<double>(number.integer);
    return number;
  }
  number.value = value.get<double>();
  if (std::isfinite(number.value) && number.value == std::floor(number.value) &&
      number.value >= kInt64Low && number.value < kInt64High) {
    number.is_integer = true;
    number.integer = static_cast<int64_t>(number.value);
  }
  return number;
}

bool IsIntegral(const Json& value) {
  if (value.is_number_integer()) return true;
  const double d = value.get<double>();
  return std::isfinite(d) && d == std::floor(d);
}

void AppendPointerToken(std::string& pointer, std::string_view token) {
  pointer.push_back('/');
  for (char c : token) {
    if (c == '~') {
      pointer += "~0";
    } else if (c == '/') {
      pointer += "~1";
    } else {
      pointer.push_back(c);
    }
  }
}

size_t CodePointCount(std::string_view text) {
  size_t count = 0;
  for (char c : text)
    count += (static_cast<unsigned char>(c) & 0xC0) != 0x80 ? 1 : 0;
  return count;
}

int CompareNumbers(const SchemaNumber& a, const SchemaNumber& b) {
  if (a.is_integer && b.is_integer) return a.integer < b.integer ? -1 : (a.integer > b.integer);
  return a.value < b.value ? -1 : (a.value > b.value ? 1 : 0);
}

}  // namespace crux::constrain
