// JSON helpers shared by the protocol codecs (internal to crux_protocol): safe dumping,
// a shape check that bounds parsing cost, and typed field readers whose errors name the
// field path ("messages[1].content must be a string or an array of content parts").
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "crux/base/error.h"

namespace crux::protocol::internal {

// Order-preserving: tool schemas and echoed objects keep the client's key order.
using Json = nlohmann::ordered_json;

// Returns early from a function returning Status or Expected<T> when `expr` failed.
#define CRUX_PROTO_TRY(expr)                                              \
  do {                                                                    \
    if (::crux::Status crux_try_status = (expr); !crux_try_status.ok()) { \
      return crux_try_status.error();                                     \
    }                                                                     \
  } while (false)

// Compact JSON text, as nlohmann's dump() with error_handler_t::replace writes it (invalid
// UTF-8 in strings becomes U+FFFD; never throws), but without recursion: any depth is safe.
std::string Dump(const Json& value);

// Appends `text` as a JSON string literal (quotes included), with the same replacement.
void AppendJsonString(std::string& out, std::string_view text);

// Limits that keep parsing of hostile request bodies cheap: nesting depth (nlohmann's copy
// and comparison recurse) and members per object (ordered_json inserts in linear time per
// key). For requests only: model output (tool-call arguments) stays text and has no limit.
inline constexpr int kMaxJsonDepth = 128;
inline constexpr int kMaxObjectMembers = 1024;

// Parses JSON text from a request under those limits (crux/text/json_parse.h: one pass at
// memory speed, no recursion). Errors start with `what`: kParse "<what> is not valid JSON: …
// at byte N", kInvalidArgument for a limit or a number beyond a double.
Expected<Json> ParseLimited(std::string_view text, std::string_view what);

// Parses a request body that must be a JSON object. kParse for invalid JSON (with the byte
// offset), kInvalidArgument for another top-level type or a body over the limits above.
Expected<Json> ParseObject(std::string_view body);

// "parent.key" (or "key" at the top level) and "parent[index]".
std::string FieldPath(std::string_view parent, std::string_view key);
std::string IndexPath(std::string_view parent, size_t index);

// Error "<path> must be <what>" (kInvalidArgument).
Error MustBe(std::string_view path, std::string_view what);

// The member `key` of `object`, or nullptr when it is absent or JSON null (clients send
// null for "not set").
const Json* Member(const Json& object, std::string_view key);

// The name of a JSON value's type for messages ("a string", "an array", ...).
std::string_view TypeName(const Json& value);

// Typed readers of `object[key]`; `path` is the full path of that member. Absent or null
// members leave `out` unchanged. A member of the wrong type is an error naming `path`.
Status ReadString(const Json& object, std::string_view key, const std::string& path,
                  std::string& out);
Status ReadOptString(const Json& object, std::string_view key, const std::string& path,
                     std::optional<std::string>& out);
Status ReadBool(const Json& object, std::string_view key, const std::string& path, bool& out);
Status ReadOptBool(const Json& object, std::string_view key, const std::string& path,
                   std::optional<bool>& out);
// A number within [min, max].
Status ReadNumber(const Json& object, std::string_view key, const std::string& path, double min,
                  double max, std::optional<double>& out);
// An integer (no fraction) within [min, max].
Status ReadInt(const Json& object, std::string_view key, const std::string& path, int64_t min,
               int64_t max, std::optional<int64_t>& out);
// An object member, dumped as JSON text.
Status ReadObjectText(const Json& object, std::string_view key, const std::string& path,
                      std::string& out);

}  // namespace crux::protocol::internal
