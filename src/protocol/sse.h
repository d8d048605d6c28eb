// Server-sent-events framing (internal to crux_protocol). Every frame carries exactly one
// line of data (compact JSON never contains a raw newline) and ends with a blank line.
#pragma once

#include <string>
#include <string_view>

namespace crux::protocol::internal {

// "data: <json>\n\n" (OpenAI Chat Completions: no event name).
void AppendData(std::string& out, std::string_view json);

// "event: <name>\ndata: <json>\n\n" (Anthropic and Responses: `name` equals data.type).
void AppendEvent(std::string& out, std::string_view name, std::string_view json);

inline constexpr std::string_view kSseDone = "data: [DONE]\n\n";
// An SSE comment: every client ignores it, so it is the keep-alive of the OpenAI endpoints.
inline constexpr std::string_view kSseKeepAlive = ": keep-alive\n\n";
inline constexpr std::string_view kAnthropicPing = "event: ping\ndata: {\"type\":\"ping\"}\n\n";

}  // namespace crux::protocol::internal
