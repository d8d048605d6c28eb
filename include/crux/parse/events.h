// The protocol-neutral event vocabulary that parsers produce and protocol encoders consume.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace crux::parse {

enum class EventKind : uint8_t {
  kReasoning,       // `text`: hidden reasoning
  kContent,         // `text`: user-visible answer text
  kToolCallBegin,   // `index`, `id`, `name`: a tool call starts; sent once per call
  kToolCallArgs,    // `index`, `text`: a fragment of the call's arguments JSON
  kToolCallEnd,     // `index`: the call's arguments are complete and valid JSON
  kToolCallCancel,  // `index`: the call was malformed; forget it (its index is reused by the
                    // next call); its raw text follows as content
};

std::string_view EventKindName(EventKind kind);

// Why generation ended, as the pipeline reports it to the protocol encoders (each protocol
// maps it to its own wire value).
enum class FinishReason : uint8_t {
  kStop,          // the model ended its turn (end-of-generation token)
  kLength,        // max_tokens reached
  kStopSequence,  // a requested stop string matched
  kToolCalls,     // the turn ended with tool calls
  kCancelled,     // the client went away or the request deadline passed
  kError,         // the engine failed
};

std::string_view FinishReasonName(FinishReason reason);

struct Usage {
  int prompt_tokens = 0;
  int completion_tokens = 0;
  int reasoning_tokens = 0;  // part of completion_tokens spent in reasoning
  int cached_tokens = 0;     // part of prompt_tokens served from cache
};

// The end of one generation.
struct Completion {
  FinishReason reason = FinishReason::kStop;
  std::string stop_sequence;  // kStopSequence: the stop string that matched
  Usage usage;
};

struct Event {
  EventKind kind = EventKind::kContent;
  int index = -1;        // tool-call events: 0-based position of the call in this stream
  std::string text;      // reasoning/content text or argument fragment
  std::string id;        // kToolCallBegin
  std::string name;      // kToolCallBegin
  bool declared = true;  // kToolCallBegin: false when tools were given and `name` is not one
};

// Collects events, merging adjacent text events of the same kind (and call index).
// Reuse one sink across feeds with Clear() to keep its storage.
class EventSink {
 public:
  void Reasoning(std::string_view text) { AppendText(EventKind::kReasoning, -1, text); }
  void Content(std::string_view text) { AppendText(EventKind::kContent, -1, text); }
  void Text(EventKind kind, std::string_view text) { AppendText(kind, -1, text); }
  void ToolCallBegin(int index, std::string id, std::string name, bool declared = true);
  void ToolCallArgs(int index, std::string_view fragment) {
    AppendText(EventKind::kToolCallArgs, index, fragment);
  }
  void ToolCallEnd(int index);
  void ToolCallCancel(int index);

  // Appends a copy of `event` (merging text as above).
  void Add(const Event& event);

  const std::vector<Event>& events() const { return events_; }
  std::vector<Event>& events() { return events_; }
  bool empty() const { return events_.empty(); }
  void Clear() { events_.clear(); }

 private:
  void AppendText(EventKind kind, int index, std::string_view text);
  std::vector<Event> events_;
};

}  // namespace crux::parse
