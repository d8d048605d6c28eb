// Contract rules 1-4 and 18-21 of protocols.md §2.7 for Anthropic Messages, replayed the way
// the SDK's MessageStream accumulates a stream.
#include "unit/protocol/contract_internal.h"

namespace crux::testing::contract {
namespace {

struct Block {
  std::string type;
  std::string text;  // text or thinking
  std::string id;
  std::string name;
  std::string json;  // concatenated partial_json
};

struct AnthropicState {
  bool started = false;
  bool delta_seen = false;
  bool stopped = false;
  bool failed = false;
  int open = -1;
  std::vector<Block> blocks;
  std::string stop_reason;
  Json stop_sequence;
  Json usage;
};

bool IsStopReason(const std::string& reason) {
  for (const char* r : {"end_turn", "max_tokens", "stop_sequence", "tool_use", "pause_turn",
                        "refusal", "model_context_window_exceeded"}) {
    if (reason == r) return true;
  }
  return false;
}

std::string ExpectedStopReason(const StreamExpectation& expect) {
  if (!expect.result.tool_calls.empty()) return "tool_use";
  switch (expect.completion.reason) {
    case parse::FinishReason::kLength:
      return "max_tokens";
    case parse::FinishReason::kStopSequence:
      return "stop_sequence";
    default:
      return "end_turn";
  }
}

void CheckMessageStart(const Json& data, AnthropicState& s, Report& report) {
  report.Expect(!s.started, "second message_start (rule 19)");
  s.started = true;
  const Json& m = data.contains("message") ? Get(data, "message") : Json();
  report.Expect(IsNonEmptyString(m, "id") && Str(m, "type") == "message" &&
                    Str(m, "role") == "assistant" && IsString(m, "model"),
                "message_start.message needs id, type, role, model");
  report.Expect(m.contains("content") && Get(m, "content") == Json::array(),
                "message_start content must be [] (rule 19)");
  report.Expect(m.contains("usage") && IsInt(Get(m, "usage"), "input_tokens") &&
                    IsInt(Get(m, "usage"), "output_tokens"),
                "message_start needs usage (rule 19)");
}

void CheckBlockStart(const Json& data, AnthropicState& s, Report& report) {
  report.Expect(!s.delta_seen, "block after message_delta");
  report.Expect(s.open < 0, "block started while another is open");
  report.Expect(IsInt(data, "index") && Get(data, "index") == s.blocks.size(),
                "block index is not its position in content (rule 19)");
  const Json& cb = data.contains("content_block") ? Get(data, "content_block") : Json();
  Block block{Str(cb, "type"), "", Str(cb, "id"), Str(cb, "name"), ""};
  if (block.type == "text") {
    report.Expect(Str(cb, "text").empty() && IsString(cb, "text"), "text block starts with \"\"");
  } else if (block.type == "thinking") {
    report.Expect(IsString(cb, "thinking") && IsString(cb, "signature"),
                  "thinking block needs thinking and signature");
  } else if (block.type == "tool_use") {
    report.Expect(IsNonEmptyString(cb, "id") && IsString(cb, "name"), "tool_use needs id, name");
    report.Expect(cb.contains("input") && Get(cb, "input") == Json::object(),
                  "tool_use starts with input {} (rule 20)");
  } else {
    report.Fail("unknown block type '" + block.type + "'");
  }
  s.blocks.push_back(block);
  s.open = static_cast<int>(s.blocks.size()) - 1;
}

void CheckBlockDelta(const Json& data, AnthropicState& s, Report& report) {
  if (!report.Expect(s.open >= 0 && Get(data, "index") == s.open,
                     "delta index is not the open block (rule 19)")) {
    return;
  }
  Block& block = s.blocks[static_cast<size_t>(s.open)];
  const Json& d = Get(data, "delta");
  const std::string type = Str(d, "type");
  if (type == "text_delta" && block.type == "text") {
    block.text += Str(d, "text");
  } else if (type == "thinking_delta" && block.type == "thinking") {
    block.text += Str(d, "thinking");
  } else if (type == "input_json_delta" && block.type == "tool_use") {
    report.Expect(IsString(d, "partial_json"), "input_json_delta without partial_json");
    block.json += Str(d, "partial_json");
  } else if (!(type == "signature_delta" && block.type == "thinking")) {
    report.Fail(type + " into a " + block.type + " block");
  }
}

void CheckMessageDelta(const Json& data, AnthropicState& s, Report& report) {
  report.Expect(s.open < 0, "message_delta while a block is open");
  const Json& d = data.contains("delta") ? Get(data, "delta") : Json();
  s.stop_reason = Str(d, "stop_reason");
  report.Expect(IsStopReason(s.stop_reason), "stop_reason '" + s.stop_reason + "'");
  report.Expect(d.contains("stop_sequence"), "message_delta without stop_sequence");
  s.stop_sequence = d.contains("stop_sequence") ? Get(d, "stop_sequence") : Json();
  if (s.stop_reason == "stop_sequence") {
    report.Expect(s.stop_sequence.is_string(), "stop_sequence not set for stop_sequence");
  }
  report.Expect(data.contains("usage") && IsInt(Get(data, "usage"), "output_tokens"),
                "message_delta without usage.output_tokens (rule 19)");
  s.usage = data.contains("usage") ? Get(data, "usage") : Json();
  s.delta_seen = true;
}

void CheckEvent(const Json& data, AnthropicState& s, Report& report) {
  const std::string type = Str(data, "type");
  report.Expect(!s.stopped && !s.failed, "event after message_stop or error");
  if (type == "ping") {
    report.Expect(data == Json{{"type", "ping"}}, "ping data");
    return;
  }
  if (type == "error") {
    report.Expect(
        IsString(Get(data, "error"), "type") && IsNonEmptyString(Get(data, "error"), "message"),
        "error needs error.type and error.message (rule 21)");
    s.failed = true;
    return;
  }
  if (type == "message_start") return CheckMessageStart(data, s, report);
  report.Expect(s.started, "event before message_start (rule 19)");
  if (type == "content_block_start") return CheckBlockStart(data, s, report);
  if (type == "content_block_delta") return CheckBlockDelta(data, s, report);
  if (type == "content_block_stop") {
    report.Expect(s.open >= 0 && Get(data, "index") == s.open, "stop of a block that is not open");
    s.open = -1;
    return;
  }
  if (type == "message_delta") return CheckMessageDelta(data, s, report);
  if (type == "message_stop") {
    report.Expect(s.delta_seen, "message_stop before message_delta");
    s.stopped = true;
    return;
  }
  report.Fail("unknown event type '" + type + "'");
}

// What the client accumulated, against the expectation.
void CompareAccumulated(const AnthropicState& s, const StreamExpectation& expect, Report& report) {
  std::string text;
  std::string thinking;
  std::vector<parse::ToolCall> calls;
  for (const Block& b : s.blocks) {
    if (b.type == "text") text += b.text;
    if (b.type == "thinking") thinking += b.text;
    if (b.type != "tool_use") continue;
    bool live = false;
    for (const parse::ToolCall& want : expect.result.tool_calls)
      live = live || want.id == b.id;
    if (!live) continue;  // a cancelled call: its partial input stays as sent
    const Json input = b.json.empty() ? Json::object() : Json::parse(b.json, nullptr, false);
    report.Expect(input.is_object(), "tool input JSON is not an object (rule 20): " + b.json);
    calls.push_back({b.id, b.name, b.json.empty() ? "{}" : b.json, true});
  }
  CompareText("text", text, expect.result.content, report);
  CompareText("thinking", thinking, expect.result.reasoning, report);
  CompareCalls(calls, expect, report);
  report.Expect(s.stop_reason == ExpectedStopReason(expect), "stop_reason " + s.stop_reason);
  if (s.stop_reason == "stop_sequence") {
    report.Expect(s.stop_sequence == Sanitized(expect.completion.stop_sequence), "stop_sequence");
  }
  report.Expect(Get(s.usage, "output_tokens") == expect.completion.usage.completion_tokens &&
                    Get(s.usage, "input_tokens") == expect.completion.usage.prompt_tokens,
                "usage does not match the completion");
}

}  // namespace

void CheckAnthropic(const std::vector<SseEvent>& events, const StreamExpectation* expect,
                    Report& report) {
  AnthropicState s;
  for (size_t i = 0; i < events.size(); ++i) {
    const SseEvent& e = events[i];
    report.At(static_cast<int>(i), e.event);
    if (e.comment) continue;
    Json data = Json::parse(e.data, nullptr, false);
    if (!report.Expect(data.is_object(), "data is not a JSON object (rule 2)")) continue;
    report.Expect(!e.event.empty() && e.event == Str(data, "type"),
                  "event name does not match data.type (rule 18)");
    CheckEvent(data, s, report);
  }
  report.AtEnd();
  report.Expect(s.started, "no message_start");
  if (!s.failed) {
    report.Expect(s.open < 0, "a block was never stopped");
    report.Expect(s.delta_seen && s.stopped, "stream ends without message_delta + message_stop");
  }
  if (expect == nullptr) {
    for (const Block& b : s.blocks) {
      if (b.type != "tool_use" || b.json.empty()) continue;
      report.Expect(Json::parse(b.json, nullptr, false).is_object(),
                    "tool input JSON is not an object (rule 20)");
    }
    return;
  }
  report.Expect(s.failed == expect->failed, "error event presence differs from expectation");
  if (!expect->failed) CompareAccumulated(s, *expect, report);
}

void CheckAnthropicBody(const Json& body, const StreamExpectation& expect, Report& report) {
  report.Expect(IsNonEmptyString(body, "id") && Str(body, "type") == "message" &&
                    Str(body, "role") == "assistant" && IsString(body, "model"),
                "body needs id, type message, role assistant, model");
  report.Expect(body.contains("stop_sequence") && body.contains("usage") &&
                    IsInt(Get(body, "usage"), "input_tokens") &&
                    IsInt(Get(body, "usage"), "output_tokens"),
                "body needs stop_sequence and usage");
  if (!report.Expect(body.contains("content") && Get(body, "content").is_array() &&
                         !Get(body, "content").empty(),
                     "body needs a non-empty content array")) {
    return;
  }
  AnthropicState s;
  for (const Json& block : Get(body, "content")) {
    const std::string type = Str(block, "type");
    Block b{type, "", Str(block, "id"), Str(block, "name"), ""};
    if (type == "text") b.text = Str(block, "text");
    if (type == "thinking") {
      b.text = Str(block, "thinking");
      report.Expect(IsString(block, "signature"), "thinking without signature");
    }
    if (type == "tool_use") {
      report.Expect(block.contains("input") && Get(block, "input").is_object(), "input not object");
      b.json = Get(block, "input").dump();
    }
    s.blocks.push_back(b);
  }
  s.stop_reason = Str(body, "stop_reason");
  s.stop_sequence = Get(body, "stop_sequence");
  s.usage = Get(body, "usage");
  StreamExpectation relaxed = expect;
  // Non-JSON arguments become {} in a Message body.
  for (parse::ToolCall& call : relaxed.result.tool_calls) {
    if (!Json::parse(call.arguments, nullptr, false).is_object()) call.arguments = "{}";
  }
  CompareAccumulated(s, relaxed, report);
}

}  // namespace crux::testing::contract
