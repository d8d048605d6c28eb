// Contract rules 1-10 of protocols.md §2.7 for OpenAI Chat Completions, replayed the way
// the SDK's ChatCompletionStream accumulates a stream.
#include "unit/protocol/contract_internal.h"

namespace crux::testing::contract {
namespace {

struct ChatState {
  bool done = false;
  bool failed = false;
  bool finished = false;
  bool usage_seen = false;
  bool first = true;
  std::string id;
  std::string finish;
  std::string content;
  std::string reasoning;
  std::vector<parse::ToolCall> calls;  // every call streamed, cancelled ones included
};

std::string ExpectedFinish(const StreamExpectation& expect) {
  if (!expect.result.tool_calls.empty()) return "tool_calls";
  return expect.completion.reason == parse::FinishReason::kLength ? "length" : "stop";
}

void CheckUsage(const Json& usage, const StreamExpectation* expect, Report& report) {
  if (!report.Expect(usage.is_object() && IsInt(usage, "prompt_tokens") &&
                         IsInt(usage, "completion_tokens") && IsInt(usage, "total_tokens"),
                     "usage needs prompt_tokens, completion_tokens, total_tokens")) {
    return;
  }
  report.Expect(Get(usage, "total_tokens") == Get(usage, "prompt_tokens").get<int>() +
                                                  Get(usage, "completion_tokens").get<int>(),
                "total_tokens is not the sum");
  if (expect == nullptr) return;
  report.Expect(Get(usage, "prompt_tokens") == expect->completion.usage.prompt_tokens &&
                    Get(usage, "completion_tokens") == expect->completion.usage.completion_tokens,
                "usage does not match the completion");
}

void CheckToolCallDelta(const Json& tc, ChatState& s, Report& report) {
  if (!report.Expect(IsInt(tc, "index"), "tool_call delta without index (rule 6)")) return;
  const auto index = Get(tc, "index").get<int64_t>();
  const Json fn = tc.contains("function") ? Get(tc, "function") : Json::object();
  if (index == static_cast<int64_t>(s.calls.size())) {
    report.Expect(IsNonEmptyString(tc, "id"), "first delta of a call without id (rule 7)");
    report.Expect(Str(tc, "type") == "function", "first delta of a call without type (rule 7)");
    report.Expect(IsNonEmptyString(fn, "name"), "first delta of a call without name (rule 7)");
    report.Expect(IsString(fn, "arguments"), "first delta of a call without arguments");
    s.calls.push_back({Str(tc, "id"), Str(fn, "name"), Str(fn, "arguments"), true});
    return;
  }
  if (!report.Expect(index >= 0 && index < static_cast<int64_t>(s.calls.size()),
                     "tool_call index " + std::to_string(index) + " skips a call")) {
    return;
  }
  parse::ToolCall& call = s.calls[static_cast<size_t>(index)];
  report.Expect(!tc.contains("id") || Str(tc, "id") == call.id, "a call changed its id");
  if (fn.contains("arguments")) {
    report.Expect(IsString(fn, "arguments"), "function.arguments is not a string");
    call.arguments += Str(fn, "arguments");
  }
}

void CheckChoiceChunk(const Json& chunk, const StreamExpectation* expect, ChatState& s,
                      Report& report) {
  report.Expect(!s.usage_seen, "chunk with choices after the usage chunk (rule 10)");
  report.Expect(!s.finished, "chunk after the finish chunk");
  const Json& choices = Get(chunk, "choices");
  if (!report.Expect(choices.size() == 1, "expected one choice")) return;
  const Json& c = choices[0];
  report.Expect(IsInt(c, "index") && Get(c, "index") == 0, "choice without index 0 (rule 6)");
  report.Expect(c.contains("finish_reason"), "choice without finish_reason key");
  if (expect != nullptr && expect->include_usage) {
    report.Expect(chunk.contains("usage") && Get(chunk, "usage").is_null(),
                  "with include_usage every chunk carries usage: null");
  } else {
    report.Expect(!chunk.contains("usage") || Get(chunk, "usage").is_null(), "unrequested usage");
  }
  if (!report.Expect(c.contains("delta") && Get(c, "delta").is_object(), "choice without delta")) {
    return;
  }
  const Json& delta = Get(c, "delta");
  if (s.first)
    report.Expect(Str(delta, "role") == "assistant", "first chunk without role (rule 5)");
  s.first = false;
  if (delta.contains("content") && !Get(delta, "content").is_null()) {
    report.Expect(IsString(delta, "content"), "content is not a string");
    s.content += Str(delta, "content");
  }
  if (delta.contains("reasoning_content")) s.reasoning += Str(delta, "reasoning_content");
  if (delta.contains("tool_calls")) {
    if (report.Expect(Get(delta, "tool_calls").is_array(), "tool_calls is not an array")) {
      for (const Json& tc : Get(delta, "tool_calls"))
        CheckToolCallDelta(tc, s, report);
    }
  }
  if (!Get(c, "finish_reason").is_null()) {
    s.finish = Str(c, "finish_reason");
    report.Expect(s.finish == "stop" || s.finish == "length" || s.finish == "tool_calls" ||
                      s.finish == "content_filter",
                  "finish_reason '" + s.finish + "' (rule 8)");
    s.finished = true;
  }
}

void CheckChunk(const Json& chunk, const StreamExpectation* expect, ChatState& s, Report& report) {
  if (chunk.contains("error")) {
    const Json& e = Get(chunk, "error");
    report.Expect(IsNonEmptyString(e, "message") && IsString(e, "type"),
                  "error chunk needs error.message and error.type");
    s.failed = true;
    return;
  }
  report.Expect(IsNonEmptyString(chunk, "id"), "chunk without id");
  if (s.id.empty()) s.id = Str(chunk, "id");
  report.Expect(Str(chunk, "id") == s.id, "chunk id changed");
  report.Expect(Str(chunk, "object") == "chat.completion.chunk", "object is not a chunk");
  report.Expect(IsInt(chunk, "created") && IsString(chunk, "model"), "chunk without created/model");
  if (!report.Expect(chunk.contains("choices") && Get(chunk, "choices").is_array(),
                     "chunk without choices")) {
    return;
  }
  if (Get(chunk, "choices").empty()) {  // the usage chunk
    report.Expect(!s.usage_seen, "second usage chunk");
    report.Expect(s.finished, "usage chunk before the finish chunk");
    report.Expect(expect == nullptr || expect->include_usage, "usage chunk not requested");
    if (report.Expect(chunk.contains("usage"), "usage chunk without usage")) {
      CheckUsage(Get(chunk, "usage"), expect, report);
    }
    s.usage_seen = true;
    return;
  }
  CheckChoiceChunk(chunk, expect, s, report);
}

}  // namespace

void CheckChat(const std::vector<SseEvent>& events, const StreamExpectation* expect,
               Report& report) {
  ChatState s;
  for (size_t i = 0; i < events.size(); ++i) {
    const SseEvent& e = events[i];
    report.At(static_cast<int>(i), e.event);
    if (e.comment) continue;
    report.Expect(e.event.empty(), "Chat Completions frames carry no event name");
    if (!report.Expect(!s.done, "data after [DONE] (rule 9)")) continue;
    if (e.data == "[DONE]") {
      s.done = true;
      continue;
    }
    Json chunk = Json::parse(e.data, nullptr, false);
    if (!report.Expect(chunk.is_object(), "data is not a JSON object (rule 2)")) continue;
    report.Expect(!s.failed, "chunk after the error chunk");
    CheckChunk(chunk, expect, s, report);
  }
  report.AtEnd();
  report.Expect(s.done, "stream does not end with [DONE] (rule 9)");
  if (!s.failed) report.Expect(s.finished, "no finish_reason (rule 8)");
  if (expect == nullptr) return;
  report.Expect(s.failed == expect->failed, "error chunk presence differs from expectation");
  if (expect->failed) return;
  report.Expect(s.usage_seen == expect->include_usage, "usage chunk presence (rule 10)");
  report.Expect(s.finish == ExpectedFinish(*expect), "finish_reason '" + s.finish + "'");
  CompareText("content", s.content, expect->result.content, report);
  CompareText("reasoning", s.reasoning, expect->result.reasoning, report);
  // Cancelled calls stay in what the client saw; the live ones must be there, intact.
  std::vector<parse::ToolCall> live;
  for (const parse::ToolCall& call : s.calls) {
    for (const parse::ToolCall& want : expect->result.tool_calls) {
      if (call.id == want.id) live.push_back(call);
    }
  }
  CompareCalls(live, *expect, report);
}

void CheckChatBody(const Json& body, const StreamExpectation& expect, Report& report) {
  report.Expect(IsNonEmptyString(body, "id") && Str(body, "object") == "chat.completion" &&
                    IsInt(body, "created") && IsString(body, "model"),
                "body needs id, object chat.completion, created, model");
  if (!report.Expect(body.contains("choices") && Get(body, "choices").size() == 1,
                     "body needs one choice")) {
    return;
  }
  const Json& choice = Get(body, "choices")[0];
  report.Expect(Get(choice, "index") == 0 && choice.contains("logprobs"), "choice index/logprobs");
  report.Expect(Str(choice, "finish_reason") == ExpectedFinish(expect), "finish_reason");
  const Json& message = Get(choice, "message");
  report.Expect(Str(message, "role") == "assistant", "message role");
  report.Expect(message.contains("content"), "message.content is always present");
  const std::optional<std::string> content =
      Get(message, "content").is_null() ? std::nullopt : std::optional(Str(message, "content"));
  report.Expect(content.has_value() == expect.result.content.has_value(), "content null-ness");
  CompareText("content", content.value_or(""), expect.result.content, report);
  report.Expect(message.contains("reasoning_content") == expect.result.reasoning.has_value(),
                "reasoning_content presence");
  CompareText("reasoning", Str(message, "reasoning_content"), expect.result.reasoning, report);
  std::vector<parse::ToolCall> calls;
  if (message.contains("tool_calls")) {
    for (const Json& tc : Get(message, "tool_calls")) {
      report.Expect(IsNonEmptyString(tc, "id") && Str(tc, "type") == "function" &&
                        IsString(Get(tc, "function"), "arguments"),
                    "tool_call needs id, type function, string arguments");
      calls.push_back({Str(tc, "id"), Str(Get(tc, "function"), "name"),
                       Str(Get(tc, "function"), "arguments"), true});
    }
  }
  CompareCalls(calls, expect, report);
  CheckUsage(Get(body, "usage"), &expect, report);
}

}  // namespace crux::testing::contract
