#include "json_util.h"

#include <cmath>
#include <cstdint>
#include <string>

namespace crux::constrain {

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
