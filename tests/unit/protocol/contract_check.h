// The SDK contract of protocols.md §2.7 as a checker: parses any SSE stream an encoder
// produced, replays it the way the official SDK helpers accumulate it, and reports every
// rule it breaks. Optionally compares what a client ends up with against the expected
// result (the events' ParseResult and the completion).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "crux/parse/events.h"
#include "crux/parse/result.h"
#include "crux/protocol/request.h"

namespace crux::testing {

// One SSE event as a client splits it.
struct SseEvent {
  std::string event;     // the `event:` name, "" when absent
  std::string data;      // the `data:` text
  bool comment = false;  // a comment-only block (keep-alive)
};

// Splits `text` into events. Framing problems (no blank line at the end, a block without
// exactly one data line, an unknown line, CR characters) are appended to `violations`.
std::vector<SseEvent> ParseSse(std::string_view text, std::vector<std::string>& violations);

// What a correct stream delivers to a client.
struct StreamExpectation {
  parse::ParseResult result;  // the live calls and all text, as the events fold
  parse::Completion completion;
  bool failed = false;         // the stream ends with an in-stream error
  bool include_usage = false;  // Chat Completions stream_options.include_usage
};

// Checks `sse` against every contract rule of `api`; with `expect`, also checks that the
// accumulated message equals the expected one. Returns the violations (empty when none).
std::vector<std::string> CheckStreamContract(protocol::Api api, std::string_view sse,
                                             const StreamExpectation* expect = nullptr);

// Checks a non-streaming body: the required shape of `api` and the expected content.
std::vector<std::string> CheckBodyContract(protocol::Api api, std::string_view body,
                                           const StreamExpectation& expect);

// `text` as it reads after JSON encoding with invalid UTF-8 replaced by U+FFFD.
std::string Sanitized(const std::string& text);

}  // namespace crux::testing
