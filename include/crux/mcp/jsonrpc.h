// JSON-RPC 2.0 as MCP uses it: one message per line, decoded into a typed variant, encoded
// back as one line.
//
// Decoding is strict about the envelope and lenient about what MCP adds: unknown members are
// ignored, `params: null` counts as absent, any JSON value is accepted as a result. Everything
// else that is malformed is an Error naming the problem: invalid JSON (kParse, with the byte
// offset), a batch array (kUnsupported: batching left MCP in 2025-06-18), nesting deeper than
// kMaxJsonDepth (kLimit), any other shape error (kInvalidArgument). Ids keep their type: the
// string "1" and the integer 1 are different ids, as the spec says.
//
// Encoders write compact JSON: strings escape every control character, so a message never
// contains a newline, and invalid UTF-8 becomes U+FFFD (encoding never throws). The returned
// text has no trailing newline; the transport adds the delimiter.
//
// Thread-safety: free functions over values; no shared state. Cost: O(size of the line).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "crux/base/error.h"

namespace crux::mcp {

// Order-preserving JSON: tool schemas and results keep the server's key order.
using Json = nlohmann::ordered_json;

// A request id as the peer sent it: an integer (within int64) or a string.
using RequestId = std::variant<int64_t, std::string>;

// Error codes JSON-RPC 2.0 reserves (the spec's table); servers may send any other integer.
inline constexpr int64_t kParseError = -32700;
inline constexpr int64_t kInvalidRequest = -32600;
inline constexpr int64_t kMethodNotFound = -32601;
inline constexpr int64_t kInvalidParams = -32602;
inline constexpr int64_t kInternalError = -32603;

// The two shapes of MCP: legacy (up to 2025-11-25: initialize handshake, sessions) and modern
// (2026-07-28: stateless, server/discover, a _meta envelope on every request).
enum class ProtocolEra : uint8_t { kLegacy, kModern };
// "legacy" / "modern".
std::string_view ProtocolEraName(ProtocolEra era);

// Messages nested deeper than this many arrays and objects are refused before nlohmann
// builds them (its copy, comparison and dump recurse once per level).
inline constexpr int kMaxJsonDepth = 256;

// A call that expects an answer with the same id.
struct Request {
  RequestId id;
  std::string method;
  std::optional<Json> params;  // an object or an array when present
};

// A one-way message (no id).
struct Notification {
  std::string method;
  std::optional<Json> params;
};

// A successful answer to the request with `id`.
struct Response {
  RequestId id;
  Json result;
};

// A failed answer; `id` is empty when the peer could not tell which request failed (null id).
struct ErrorResponse {
  std::optional<RequestId> id;
  int64_t code = 0;
  std::string message;
  std::optional<Json> data;
};

using Message = std::variant<Request, Notification, Response, ErrorResponse>;

// Decodes one line (without its newline; surrounding JSON whitespace is allowed).
Expected<Message> DecodeMessage(std::string_view line);

// One-line encodings. A null `params` (or `data`) is left out of the message.
std::string EncodeRequest(const RequestId& id, std::string_view method, const Json& params);
std::string EncodeNotification(std::string_view method, const Json& params);
std::string EncodeResponse(const RequestId& id, const Json& result);
std::string EncodeErrorResponse(const std::optional<RequestId>& id, int64_t code,
                                std::string_view message, const Json& data = nullptr);
std::string EncodeMessage(const Message& message);

// The id as it appears on the wire (`7`, `"abc"`), for log lines and error messages.
std::string RequestIdText(const RequestId& id);

}  // namespace crux::mcp
