// Property test: random canonical event sequences (text with odd bytes, tool calls with
// fragmented arguments, cancellations, text interleaved into an open call, keep-alives,
// every way a stream can end) through every encoder; each stream must keep the contract
// and deliver exactly the events' ParseResult, and each body must match it too.
#include <gtest/gtest.h>

#include <random>

#include "crux/protocol/codec.h"
#include "unit/protocol/contract_check.h"

namespace crux::protocol {
namespace {

// Text pieces; none starts with a UTF-8 continuation byte, so replacing invalid UTF-8 per
// delta gives the same text as replacing it in the concatenation.
const std::vector<std::string>& Pieces() {
  static const std::vector<std::string> kPieces = {
      "Hello",   " world",      "\n",   "\"quoted\"", "back\\slash", "é",      "🌍", "\t",    "\x01",
      "<think>", "data: x\n\n", "\xff", "\xe2\x82",   "{\"a\":1}",   "[DONE]", " ", "\u2028"};
  return kPieces;
}

std::string RandomText(std::mt19937_64& rng) {
  std::string text;
  const int n = 1 + static_cast<int>(rng() % 3);
  for (int i = 0; i < n; ++i)
    text += Pieces()[rng() % Pieces().size()];
  return text;
}

std::string RandomArguments(std::mt19937_64& rng) {
  static const std::vector<std::string> kArgs = {
      "{}", R"({"city": "Paris"})", R"({"n": 3, "flags": [true, false, null]})",
      R"({"q": "line\nbreak \"x\" \u00e9", "nested": {"a": [1, 2.5, -3e2]}})",
      R"({"text": "🌍 é"})"};
  return kArgs[rng() % kArgs.size()];
}

// Cuts `text` at random character boundaries.
std::vector<std::string> Fragments(const std::string& text, std::mt19937_64& rng) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t len = 1 + rng() % 8;
    while (pos + len < text.size() &&
           (static_cast<unsigned char>(text[pos + len]) & 0xC0) == 0x80) {
      ++len;
    }
    out.push_back(text.substr(pos, len));
    pos += len;
  }
  return out;
}

struct Scenario {
  std::vector<parse::Event> events;  // kind kReasoning with index -2 marks a keep-alive
  parse::Completion completion;
  bool fail = false;
  bool skip_begin = false;
  bool include_usage = false;
};

parse::Event TextEvent(parse::EventKind kind, std::string text) {
  parse::Event e;
  e.kind = kind;
  e.text = std::move(text);
  return e;
}

parse::Event CallEvent(parse::EventKind kind, int index) {
  parse::Event e;
  e.kind = kind;
  e.index = index;
  return e;
}

void AddCall(Scenario& s, int& live, int& serial, bool last, std::mt19937_64& rng) {
  parse::Event begin = CallEvent(parse::EventKind::kToolCallBegin, live);
  begin.id = "call_" + std::to_string(serial++);
  begin.name = rng() % 5 == 0 ? "wéird\"name" : "get_weather";
  s.events.push_back(begin);
  const bool cancel = rng() % 4 == 0;
  std::string args = RandomArguments(rng);
  if (cancel) args = args.substr(0, args.size() / 2);
  for (const std::string& fragment : Fragments(args, rng)) {
    parse::Event e = CallEvent(parse::EventKind::kToolCallArgs, live);
    e.text = fragment;
    s.events.push_back(e);
    if (rng() % 10 == 0) {  // text from the other parser while the call is open
      s.events.push_back(TextEvent(
          rng() % 2 ? parse::EventKind::kReasoning : parse::EventKind::kContent, RandomText(rng)));
    }
  }
  if (cancel) {
    s.events.push_back(CallEvent(parse::EventKind::kToolCallCancel, live));
    s.events.push_back(TextEvent(parse::EventKind::kContent, "<tool_call>" + args));
  } else if (!(last && s.fail)) {  // a failing stream may stop inside a call
    s.events.push_back(CallEvent(parse::EventKind::kToolCallEnd, live));
    ++live;
  } else {
    ++live;
  }
}

Scenario RandomScenario(std::mt19937_64& rng) {
  Scenario s;
  s.fail = rng() % 8 == 0;
  s.skip_begin = rng() % 10 == 0;
  s.include_usage = rng() % 2 == 0;
  const int segments = static_cast<int>(rng() % 7);
  int live = 0;
  int serial = 0;
  for (int i = 0; i < segments; ++i) {
    switch (rng() % 4) {
      case 0:
        s.events.push_back(TextEvent(parse::EventKind::kReasoning, RandomText(rng)));
        break;
      case 1:
      case 2:
        s.events.push_back(TextEvent(parse::EventKind::kContent, RandomText(rng)));
        break;
      default:
        AddCall(s, live, serial, i + 1 == segments, rng);
        break;
    }
    if (rng() % 8 == 0) s.events.push_back(CallEvent(parse::EventKind::kReasoning, -2));
  }
  static const parse::FinishReason kReasons[] = {
      parse::FinishReason::kStop,         parse::FinishReason::kLength,
      parse::FinishReason::kStopSequence, parse::FinishReason::kToolCalls,
      parse::FinishReason::kStop,         parse::FinishReason::kError};
  s.completion.reason = kReasons[rng() % 6];
  if (s.completion.reason == parse::FinishReason::kStopSequence) s.completion.stop_sequence = "END";
  s.completion.usage = {static_cast<int>(rng() % 100), static_cast<int>(rng() % 100), 0, 0};
  return s;
}

void RunScenario(Api api, const Scenario& s, uint64_t seed) {
  ChatRequest request;
  request.api = api;
  request.model = "m";
  request.include_usage = s.include_usage && api == Api::kChatCompletions;
  ResponseMeta meta{"id-" + std::to_string(seed), 1767225600, "served", 7, seed + 1};
  auto encoder = MakeStreamEncoder(request, meta);
  std::string sse;
  if (!s.skip_begin) encoder->Begin(sse);
  parse::ResultBuilder builder;
  for (const parse::Event& e : s.events) {
    if (e.index == -2) {
      sse += encoder->KeepAlive();
      continue;
    }
    encoder->Event(e, sse);
    builder.Add(e);
  }
  testing::StreamExpectation expect;
  expect.result = builder.Take();
  expect.completion = s.completion;
  expect.include_usage = request.include_usage;
  if (s.fail) {
    encoder->Fail(Error(ErrorCode::kUnavailable, "overloaded"), sse);
  } else {
    encoder->End(s.completion, sse);
  }
  expect.failed = s.fail || s.completion.reason == parse::FinishReason::kError;
  std::string after;
  encoder->End(s.completion, after);  // a second terminal call writes nothing
  EXPECT_EQ(after, "");
  for (const std::string& v : testing::CheckStreamContract(api, sse, &expect)) {
    ADD_FAILURE() << ApiName(api) << " seed " << seed << ": " << v << "\n" << sse;
  }
  if (expect.failed) return;
  const std::string body = EncodeBody(request, meta, expect.result, s.completion);
  for (const std::string& v : testing::CheckBodyContract(api, body, expect)) {
    ADD_FAILURE() << ApiName(api) << " seed " << seed << " body: " << v << "\n" << body;
  }
}

TEST(StreamProperty, RandomEventSequencesKeepTheContract) {
  for (Api api : {Api::kChatCompletions, Api::kAnthropicMessages, Api::kResponses}) {
    for (uint64_t seed = 1; seed <= 400; ++seed) {
      std::mt19937_64 rng(seed);
      RunScenario(api, RandomScenario(rng), seed);
      if (HasFailure()) return;
    }
  }
}

}  // namespace
}  // namespace crux::protocol
