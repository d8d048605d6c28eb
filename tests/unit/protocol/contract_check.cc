#include "unit/protocol/contract_check.h"

#include <nlohmann/json.hpp>

#include "unit/protocol/contract_internal.h"

namespace crux::testing {
namespace contract {

void Report::Fail(const std::string& message) {
  std::string where = event_ < 0 ? "stream" : "event #" + std::to_string(event_);
  if (!type_.empty()) where += " (" + type_ + ")";
  violations_.push_back(where + ": " + message);
}

const Json& Get(const Json& object, const char* key) {
  static const Json kNull;
  if (!object.is_object()) return kNull;
  auto it = object.find(key);
  return it == object.end() ? kNull : *it;
}

bool IsInt(const Json& object, const char* key) {
  return object.is_object() && object.contains(key) && object[key].is_number_integer();
}

bool IsString(const Json& object, const char* key) {
  return object.is_object() && object.contains(key) && object[key].is_string();
}

bool IsNonEmptyString(const Json& object, const char* key) {
  return IsString(object, key) && !object[key].get_ref<const std::string&>().empty();
}

std::string Str(const Json& object, const char* key) {
  return IsString(object, key) ? object[key].get<std::string>() : std::string();
}

// The arguments of a call as a JSON value for comparison (raw text when not JSON).
Json ArgsValue(const std::string& text) {
  Json value = Json::parse(text, nullptr, false);
  return value.is_discarded() ? Json(text) : value;
}

void CompareCalls(const std::vector<parse::ToolCall>& got, const StreamExpectation& expect,
                  Report& report) {
  const auto& want = expect.result.tool_calls;
  if (got.size() != want.size()) {
    report.Fail("client sees " + std::to_string(got.size()) + " tool calls, expected " +
                std::to_string(want.size()));
    return;
  }
  for (size_t i = 0; i < got.size(); ++i) {
    if (!want[i].id.empty() && got[i].id != want[i].id) {
      report.Fail("tool call " + std::to_string(i) + " id " + got[i].id + ", expected " +
                  want[i].id);
    }
    if (got[i].name != Sanitized(want[i].name)) {
      report.Fail("tool call " + std::to_string(i) + " name '" + got[i].name + "'");
    }
    if (ArgsValue(got[i].arguments) != ArgsValue(Sanitized(want[i].arguments))) {
      report.Fail("tool call " + std::to_string(i) + " arguments " + got[i].arguments +
                  ", expected " + want[i].arguments);
    }
  }
}

void CompareText(const std::string& what, const std::string& got,
                 const std::optional<std::string>& want, Report& report) {
  const std::string expected = want ? Sanitized(*want) : std::string();
  if (got != expected) report.Fail(what + " '" + got + "', expected '" + expected + "'");
}

}  // namespace contract

using contract::Json;
using contract::Report;

std::string Sanitized(const std::string& text) {
  const std::string dumped = Json(text).dump(-1, ' ', false, Json::error_handler_t::replace);
  return Json::parse(dumped).get<std::string>();
}

std::vector<SseEvent> ParseSse(std::string_view text, std::vector<std::string>& violations) {
  std::vector<SseEvent> events;
  if (text.find('\r') != std::string_view::npos) violations.push_back("stream contains CR");
  if (!text.empty() && !text.ends_with("\n\n")) {
    violations.push_back("stream does not end with a blank line");
  }
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find("\n\n", pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view block = text.substr(pos, end - pos);
    pos = end + 2;
    SseEvent event;
    int data_lines = 0;
    int comment_lines = 0;
    int lines = 0;
    while (!block.empty()) {
      const size_t nl = block.find('\n');
      std::string_view line = block.substr(0, nl);
      block = nl == std::string_view::npos ? std::string_view() : block.substr(nl + 1);
      ++lines;
      if (line.starts_with(":")) {
        ++comment_lines;
      } else if (line.starts_with("event: ")) {
        event.event = std::string(line.substr(7));
      } else if (line.starts_with("data: ")) {
        event.data = std::string(line.substr(6));
        ++data_lines;
      } else {
        violations.push_back("unexpected SSE line '" + std::string(line) + "'");
      }
    }
    const size_t index = events.size();
    if (lines == 0) {
      violations.push_back("empty SSE block at event #" + std::to_string(index));
      continue;
    }
    if (comment_lines == lines) {
      event.comment = true;
    } else if (data_lines != 1 || comment_lines != 0) {
      violations.push_back("event #" + std::to_string(index) +
                           " must have exactly one data line and no comment");
    }
    events.push_back(std::move(event));
  }
  return events;
}

std::vector<std::string> CheckStreamContract(protocol::Api api, std::string_view sse,
                                             const StreamExpectation* expect) {
  std::vector<std::string> framing;
  std::vector<SseEvent> events = ParseSse(sse, framing);
  Report report;
  for (std::string& v : framing)
    report.Fail(v);
  switch (api) {
    case protocol::Api::kChatCompletions:
      contract::CheckChat(events, expect, report);
      break;
    case protocol::Api::kAnthropicMessages:
      contract::CheckAnthropic(events, expect, report);
      break;
    case protocol::Api::kResponses:
      contract::CheckResponses(events, expect, report);
      break;
    case protocol::Api::kCompletions:
      report.Fail("no SDK contract is checked for the completions API");
      break;
  }
  return report.Take();
}

std::vector<std::string> CheckBodyContract(protocol::Api api, std::string_view body,
                                           const StreamExpectation& expect) {
  Report report;
  Json j = Json::parse(body, nullptr, false);
  if (!j.is_object()) {
    report.Fail("body is not a JSON object");
    return report.Take();
  }
  switch (api) {
    case protocol::Api::kChatCompletions:
      contract::CheckChatBody(j, expect, report);
      break;
    case protocol::Api::kAnthropicMessages:
      contract::CheckAnthropicBody(j, expect, report);
      break;
    case protocol::Api::kResponses:
      contract::CheckResponsesBody(j, expect, report);
      break;
    case protocol::Api::kCompletions:
      report.Fail("no SDK contract is checked for the completions API");
      break;
  }
  return report.Take();
}

}  // namespace crux::testing
