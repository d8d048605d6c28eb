// Differential fuzzing of the request-body parser against nlohmann::json: for any bytes, both
// accept or both reject, and what they accept is the same value with the same number types.
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string_view>

#include "crux/text/json_parse.h"

namespace {

using Json = nlohmann::ordered_json;

bool Identical(const Json& a, const Json& b) {
  if (a.type() != b.type() || a.size() != b.size()) return false;
  if (a.is_object()) {
    for (auto x = a.begin(), y = b.begin(); x != a.end(); ++x, ++y) {
      if (x.key() != y.key() || !Identical(x.value(), y.value())) return false;
    }
    return true;
  }
  if (a.is_array()) {
    for (size_t i = 0; i < a.size(); ++i) {
      if (!Identical(a[i], b[i])) return false;
    }
    return true;
  }
  return a == b;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  // nlohmann's comparison recurses: keep both sides shallow enough for it.
  const crux::text::JsonParseLimits limits{.max_depth = 64, .max_object_members = 1 << 20};
  const crux::Expected<Json> ours = crux::text::ParseJson<Json>(text, limits);
  if (!ours.ok() && ours.error().code() == crux::ErrorCode::kLimit) return 0;
  // nlohmann stops reading at a NUL byte outside strings ("{}\0junk" parses); crux refuses a
  // NUL anywhere.
  if (text.find('\0') != std::string_view::npos) {
    if (ours.ok()) std::abort();
    return 0;
  }
  const Json reference = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (reference.is_discarded() != !ours.ok()) std::abort();
  if (ours.ok() && !Identical(*ours, reference)) std::abort();
  return 0;
}
