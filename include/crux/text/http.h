// Small pieces of HTTP client text handling shared by the clients crux runs (MCP's Streamable
// HTTP transport, the upstream engine): http:// URLs and the SSE (text/event-stream) framing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "crux/base/error.h"

namespace crux::text {

// An http:// URL split for a client: where to connect and what to send.
struct HttpUrl {
  std::string host;  // as written, brackets of an IPv6 literal removed
  std::string port = "80";
  std::string authority;  // the Host header
  std::string target = "/";
};

// Errors: kUnsupported for https:// (this build has no TLS), kInvalidArgument for anything
// that is not an http:// URL with a well-formed host and port (user info is refused).
Expected<HttpUrl> ParseHttpUrl(std::string_view url);

// Splits SSE (text/event-stream) bytes into events: a push state machine. Feed() takes any
// split of the stream and calls `on_event(type, data)` for each complete event that has data
// ("message" when the event names no type); `id:` and `retry:` fields are kept for
// last_event_id() and retry_ms() (what resumption needs). An event
// (or a line) longer than `max_event_bytes` is an error (kLimit), after which the parser
// stays failed. Work per Feed is proportional to its input.
class SseParser {
 public:
  using EventHandler = std::function<void(std::string_view type, std::string_view data)>;
  SseParser(size_t max_event_bytes, EventHandler on_event)
      : max_event_bytes_(max_event_bytes), on_event_(std::move(on_event)) {}

  Status Feed(std::string_view bytes);

  // The last `id:` field seen ("" before any), and the last valid `retry:` (-1 before any).
  const std::string& last_event_id() const { return last_event_id_; }
  int64_t retry_ms() const { return retry_ms_; }

 private:
  Status Line(std::string_view line);

  size_t max_event_bytes_;
  EventHandler on_event_;
  std::string line_;  // the incomplete last line
  std::string data_;  // data lines of the current event, each followed by "\n"
  std::string type_;  // the current event's `event:` field
  std::string last_event_id_;
  int64_t retry_ms_ = -1;
  bool skip_lf_ = false;  // the last byte was "\r": a leading "\n" ends no line
  bool failed_ = false;
};

}  // namespace crux::text
