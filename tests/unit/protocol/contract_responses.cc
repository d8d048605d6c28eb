// Contract rules 1-4 and 11-17 of protocols.md §2.7 for OpenAI Responses, replayed with the
// logic of the SDK's accumulateResponse (ResponseAccumulator.ts): the same index checks, the
// same snapshot replacement by lifecycle events.
#include <set>

#include "unit/protocol/contract_internal.h"

namespace crux::testing::contract {
namespace {

// The event types of the SDK's ResponseStreamEvent union that a text/tool server can send.
const std::set<std::string>& UnionTypes() {
  static const std::set<std::string> kTypes = {"response.created",
                                               "response.in_progress",
                                               "response.queued",
                                               "response.completed",
                                               "response.failed",
                                               "response.incomplete",
                                               "response.output_item.added",
                                               "response.output_item.done",
                                               "response.content_part.added",
                                               "response.content_part.done",
                                               "response.output_text.delta",
                                               "response.output_text.done",
                                               "response.output_text.annotation.added",
                                               "response.refusal.delta",
                                               "response.refusal.done",
                                               "response.function_call_arguments.delta",
                                               "response.function_call_arguments.done",
                                               "response.reasoning_text.delta",
                                               "response.reasoning_text.done",
                                               "response.reasoning_summary_part.added",
                                               "response.reasoning_summary_part.done",
                                               "response.reasoning_summary_text.delta",
                                               "response.reasoning_summary_text.done",
                                               "error",
                                               "keepalive"};
  return kTypes;
}

struct ResponsesState {
  Json snapshot;  // null before response.created
  int sequence = 0;
  bool error_seen = false;
  std::string terminal;  // the terminal event type once seen
  std::vector<bool> item_done;
  Json final_response;
};

void CheckResponseObject(const Json& r, Report& report) {
  report.Expect(IsNonEmptyString(r, "id") && Str(r, "object") == "response" &&
                    IsInt(r, "created_at") && IsString(r, "status") && IsString(r, "model"),
                "Response needs id, object, created_at, status, model");
  report.Expect(r.contains("output") && Get(r, "output").is_array(),
                "Response.output must be an array");
  for (const char* key : {"error", "incomplete_details", "instructions", "metadata",
                          "parallel_tool_calls", "temperature", "tool_choice", "tools", "top_p"}) {
    report.Expect(r.is_object() && r.contains(key), std::string("Response without ") + key);
  }
  report.Expect(r.contains("tools") && Get(r, "tools").is_array(),
                "Response.tools must be an array");
}

// getOutput of the SDK: the output at `index` must exist.
Json* GetOutput(ResponsesState& s, const Json& event, Report& report) {
  const Json& index = event.contains("output_index") ? Get(event, "output_index") : Json();
  if (!index.is_number_integer() || index.get<int64_t>() < 0 ||
      index.get<size_t>() >= s.snapshot["output"].size()) {
    report.Fail("missing output at index " + index.dump() + " (rule 12)");
    return nullptr;
  }
  Json& item = s.snapshot["output"][index.get<size_t>()];
  if (event.contains("item_id")) {
    report.Expect(Get(event, "item_id") == Get(item, "id"),
                  "item_id does not match the item (rule 15)");
  }
  return &item;
}

Json* GetContent(Json& item, const Json& event, Report& report) {
  const Json& index = event.contains("content_index") ? Get(event, "content_index") : Json();
  if (!item.contains("content") || !index.is_number_integer() || index.get<int64_t>() < 0 ||
      index.get<size_t>() >= Get(item, "content").size()) {
    report.Fail("missing content at index " + index.dump() + " (rule 12)");
    return nullptr;
  }
  return &item["content"][index.get<size_t>()];
}

void OnItemAdded(const Json& event, ResponsesState& s, Report& report) {
  report.Expect(Get(event, "output_index") == s.snapshot["output"].size(),
                "output_index of an added item is not the next position (rule 12)");
  const Json& item = Get(event, "item");
  const std::string type = Str(item, "type");
  report.Expect(IsNonEmptyString(item, "id"), "item without id");
  if (type == "message") {
    report.Expect(Str(item, "role") == "assistant" && Get(item, "content") == Json::array(),
                  "added message needs role assistant and content []");
  } else if (type == "function_call") {
    report.Expect(IsNonEmptyString(item, "call_id") && IsNonEmptyString(item, "name") &&
                      Get(item, "arguments") == "",
                  "added function_call needs call_id, name, arguments \"\"");
  } else if (type == "reasoning") {
    report.Expect(item.contains("summary") && Get(item, "summary").is_array(), "reasoning summary");
  } else {
    report.Fail("unexpected item type " + type);
  }
  s.snapshot["output"].push_back(item);
  s.item_done.push_back(false);
}

void OnPartAdded(const Json& event, ResponsesState& s, Report& report) {
  Json* item = GetOutput(s, event, report);
  if (item == nullptr) return;
  const Json& part = Get(event, "part");
  const bool message_part = Str(*item, "type") == "message" && Str(part, "type") == "output_text";
  const bool reasoning_part =
      Str(*item, "type") == "reasoning" && Str(part, "type") == "reasoning_text";
  if (!report.Expect(message_part || reasoning_part, "part type does not fit the item")) return;
  if (!item->contains("content")) (*item)["content"] = Json::array();
  report.Expect(Get(event, "content_index") == (*item)["content"].size(),
                "content_index of an added part is not the next position (rule 12)");
  report.Expect(Str(part, "text").empty(), "an added part starts empty");
  (*item)["content"].push_back(part);
}

void OnTextEvent(const Json& event, const std::string& type, ResponsesState& s, Report& report) {
  Json* item = GetOutput(s, event, report);
  if (item == nullptr) return;
  const bool output_text = type.starts_with("response.output_text");
  report.Expect(Str(*item, "type") == (output_text ? "message" : "reasoning"),
                "text event on the wrong item type");
  Json* part = GetContent(*item, event, report);
  if (part == nullptr) return;
  report.Expect(Str(*part, "type") == (output_text ? "output_text" : "reasoning_text"),
                "text event on the wrong part type");
  if (output_text) {
    report.Expect(event.contains("logprobs") && Get(event, "logprobs").is_array(),
                  "output_text event without logprobs [] (rule 15)");
  }
  if (type.ends_with(".delta")) {
    (*part)["text"] = Str(*part, "text") + Str(event, "delta");
  } else {
    report.Expect(Get(event, "text") == (*part)["text"], ".done text differs from the deltas");
  }
}

void OnPartDone(const Json& event, ResponsesState& s, Report& report) {
  Json* item = GetOutput(s, event, report);
  if (item == nullptr) return;
  Json* part = GetContent(*item, event, report);
  if (part == nullptr) return;
  report.Expect(Get(event, "part") == *part, "content_part.done part differs from the deltas");
}

// Summary parts of a reasoning item: reasoning_summary_part.added/.done and
// reasoning_summary_text.delta/.done, addressed by summary_index.
void OnSummaryEvent(const Json& event, const std::string& type, ResponsesState& s, Report& report) {
  Json* item = GetOutput(s, event, report);
  if (item == nullptr) return;
  if (!report.Expect(Str(*item, "type") == "reasoning", "summary event on a non-reasoning item")) {
    return;
  }
  if (!item->contains("summary")) (*item)["summary"] = Json::array();
  Json& summary = (*item)["summary"];
  const Json& index = event.contains("summary_index") ? Get(event, "summary_index") : Json();
  if (!report.Expect(index.is_number_integer(), "summary event without summary_index")) return;
  if (type == "response.reasoning_summary_part.added") {
    report.Expect(index == summary.size(), "summary_index of an added part is not the next one");
    report.Expect(Str(Get(event, "part"), "type") == "summary_text", "summary part type");
    report.Expect(Str(Get(event, "part"), "text").empty(), "an added summary part starts empty");
    summary.push_back(Get(event, "part"));
    return;
  }
  if (!report.Expect(index.get<size_t>() < summary.size(), "summary event before its part")) {
    return;
  }
  Json& part = summary[index.get<size_t>()];
  if (type == "response.reasoning_summary_text.delta") {
    part["text"] = Str(part, "text") + Str(event, "delta");
  } else if (type == "response.reasoning_summary_text.done") {
    report.Expect(Get(event, "text") == part["text"], "summary text.done differs from the deltas");
  } else {
    report.Expect(Get(event, "part") == part, "summary part.done differs from the deltas");
  }
}

void OnArgumentsEvent(const Json& event, bool done, ResponsesState& s, Report& report) {
  Json* item = GetOutput(s, event, report);
  if (item == nullptr || !report.Expect(Str(*item, "type") == "function_call", "not a call")) {
    return;
  }
  if (!done) {
    (*item)["arguments"] = Str(*item, "arguments") + Str(event, "delta");
    return;
  }
  report.Expect(Get(event, "arguments") == (*item)["arguments"], "arguments.done differs");
  report.Expect(Get(event, "name") == (*item)["name"], "arguments.done name differs");
}

void OnItemDone(const Json& event, ResponsesState& s, Report& report) {
  Json* item = GetOutput(s, event, report);
  if (item == nullptr) return;
  const Json& done = Get(event, "item");
  const std::string status = Str(done, "status");
  report.Expect(status == "completed" || status == "incomplete", "item status " + status);
  report.Expect(Get(done, "id") == (*item)["id"] && Get(done, "type") == (*item)["type"],
                "output_item.done is not the added item");
  const std::string type = Str(done, "type");
  if (type == "function_call" && status == "completed") {
    report.Expect(Get(done, "arguments") == (*item)["arguments"], "done arguments differ");
  }
  if (type != "function_call") {
    report.Expect(Get(done, "content") == (*item)["content"],
                  "done content differs from the deltas");
  }
  s.item_done[Get(event, "output_index").get<size_t>()] = true;
  *item = done;
}

void OnTerminal(const Json& event, const std::string& type, ResponsesState& s, Report& report) {
  s.terminal = type;
  const Json& r = Get(event, "response");
  CheckResponseObject(r, report);
  const std::string status = type.substr(std::string("response.").size());
  report.Expect(Str(r, "status") == status, "terminal status " + Str(r, "status"));
  if (status == "incomplete") {
    report.Expect(Get(r, "incomplete_details").is_object() &&
                      IsString(Get(r, "incomplete_details"), "reason"),
                  "incomplete_details.reason");
  }
  Json expected_output = Json::array();
  std::string output_text;
  for (const Json& item : s.snapshot["output"]) {
    if (Str(item, "type") == "function_call" && Str(item, "status") == "incomplete") continue;
    expected_output.push_back(item);
    if (Str(item, "type") != "message") continue;
    for (const Json& part : Get(item, "content"))
      output_text += Str(part, "text");
  }
  if (status == "failed") {
    report.Expect(Get(r, "error").is_object() && IsNonEmptyString(Get(r, "error"), "message"),
                  "failed Response needs error.message");
    size_t kept = 0;  // calls still open at the failure are left out, like cancelled ones
    for (size_t i = 0; i < s.item_done.size(); ++i) {
      const Json& item = s.snapshot["output"][i];
      kept += Str(item, "type") != "function_call" ||
              (s.item_done[i] && Str(item, "status") == "completed");
    }
    report.Expect(Get(r, "output").size() == kept, "failed output count");
  } else {
    for (bool done : s.item_done)
      report.Expect(done, "an item was never closed");
    report.Expect(Get(r, "output") == expected_output,
                  "terminal output is not the streamed items (rule 14)");
    report.Expect(Get(r, "usage").is_object() && IsInt(Get(r, "usage"), "total_tokens"), "usage");
  }
  report.Expect(Str(r, "output_text") == output_text, "output_text");
  s.final_response = r;
}

void OnEvent(const Json& event, const std::string& type, ResponsesState& s, Report& report) {
  if (s.error_seen) report.Expect(type == "response.failed", "error not followed by failed");
  if (type == "response.output_item.added") return OnItemAdded(event, s, report);
  if (type == "response.content_part.added") return OnPartAdded(event, s, report);
  if (type == "response.content_part.done") return OnPartDone(event, s, report);
  if (type.starts_with("response.output_text.") || type.starts_with("response.reasoning_text.")) {
    return OnTextEvent(event, type, s, report);
  }
  if (type.starts_with("response.reasoning_summary_"))
    return OnSummaryEvent(event, type, s, report);
  if (type == "response.function_call_arguments.delta") {
    return OnArgumentsEvent(event, false, s, report);
  }
  if (type == "response.function_call_arguments.done") {
    return OnArgumentsEvent(event, true, s, report);
  }
  if (type == "response.output_item.done") return OnItemDone(event, s, report);
  if (type == "response.completed" || type == "response.incomplete" || type == "response.failed") {
    return OnTerminal(event, type, s, report);
  }
  if (type == "response.in_progress" || type == "response.queued") {
    CheckResponseObject(Get(event, "response"), report);
    s.snapshot = Get(event, "response");
    return;
  }
  if (type == "error") {
    report.Expect(
        IsNonEmptyString(event, "message") && event.contains("code") && event.contains("param"),
        "error event needs code, message, param (rule 16)");
    s.error_seen = true;
    return;
  }
  if (type != "keepalive") report.Fail("event type the encoder should not send");
}

void CompareFinal(const Json& r, const StreamExpectation& expect, Report& report) {
  std::string text;
  std::string reasoning;
  std::vector<parse::ToolCall> calls;
  for (const Json& item : Get(r, "output")) {
    const std::string type = Str(item, "type");
    if (type == "function_call") {
      calls.push_back({Str(item, "call_id"), Str(item, "name"), Str(item, "arguments"), true});
      continue;
    }
    for (const Json& part : Get(item, "content")) {
      (type == "message" ? text : reasoning) += Str(part, "text");
    }
    // A reasoning item reports its text either as content or, when a summary was asked
    // for, as its summary.
    if (type == "reasoning" && item.contains("summary")) {
      for (const Json& part : Get(item, "summary"))
        reasoning += Str(part, "text");
    }
  }
  CompareText("text", text, expect.result.content, report);
  CompareText("reasoning", reasoning, expect.result.reasoning, report);
  CompareCalls(calls, expect, report);
  const bool cut = expect.completion.reason == parse::FinishReason::kLength;
  report.Expect(Str(r, "status") == (cut ? "incomplete" : "completed"), "status");
  const Json& usage = Get(r, "usage");
  report.Expect(Get(usage, "input_tokens") == expect.completion.usage.prompt_tokens &&
                    Get(usage, "output_tokens") == expect.completion.usage.completion_tokens,
                "usage does not match the completion");
}

}  // namespace

void CheckResponses(const std::vector<SseEvent>& events, const StreamExpectation* expect,
                    Report& report) {
  ResponsesState s;
  for (size_t i = 0; i < events.size(); ++i) {
    const SseEvent& e = events[i];
    report.At(static_cast<int>(i), e.event);
    if (e.comment) continue;
    Json event = Json::parse(e.data, nullptr, false);
    if (!report.Expect(event.is_object(), "data is not a JSON object (rule 2)")) continue;
    const std::string type = Str(event, "type");
    report.Expect(e.event.empty() || e.event == type, "event name does not match data.type");
    report.Expect(UnionTypes().contains(type), "type not in the SDK union (rule 13)");
    report.Expect(IsInt(event, "sequence_number") && Get(event, "sequence_number") == s.sequence,
                  "sequence_number is not " + std::to_string(s.sequence) + " (rule 15)");
    ++s.sequence;
    report.Expect(s.terminal.empty(), "event after the terminal event");
    if (s.snapshot.is_null()) {
      if (!report.Expect(type == "response.created",
                         "first event is not response.created (rule 11)")) {
        continue;
      }
      CheckResponseObject(Get(event, "response"), report);
      report.Expect(Get(Get(event, "response"), "output") == Json::array() &&
                        Str(Get(event, "response"), "status") == "in_progress",
                    "response.created needs status in_progress and output []");
      s.snapshot = Get(event, "response");
      continue;
    }
    OnEvent(event, type, s, report);
  }
  report.AtEnd();
  report.Expect(!s.terminal.empty(), "no terminal event (rule 14)");
  if (expect == nullptr) return;
  report.Expect((s.terminal == "response.failed") == expect->failed, "failure differs");
  if (!expect->failed && !s.final_response.is_null()) {
    CompareFinal(s.final_response, *expect, report);
  }
}

void CheckResponsesBody(const Json& body, const StreamExpectation& expect, Report& report) {
  CheckResponseObject(body, report);
  if (!body.contains("output") || !Get(body, "output").is_array()) return;
  std::string output_text;
  for (const Json& item : Get(body, "output")) {
    report.Expect(Str(item, "status") == "completed", "body item status");
    if (Str(item, "type") != "message") continue;
    for (const Json& part : Get(item, "content"))
      output_text += Str(part, "text");
  }
  report.Expect(Str(body, "output_text") == output_text, "output_text");
  CompareFinal(body, expect, report);
}

}  // namespace crux::testing::contract
