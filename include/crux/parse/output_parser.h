// OutputParser: the whole output pipeline of one stream. Reasoning is split off first; the
// answer text then goes through the tool parser. Either stage is optional.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "crux/parse/events.h"
#include "crux/parse/parser.h"

namespace crux::parse {

class OutputParser final : public StreamParser {
 public:
  OutputParser(std::unique_ptr<ReasoningParser> reasoning, std::unique_ptr<ToolParser> tools)
      : reasoning_(std::move(reasoning)), tools_(std::move(tools)) {}

  void Feed(std::string_view delta, EventSink& out) override;
  void Finish(EventSink& out) override;
  void Reset() override;

  bool has_reasoning_parser() const { return reasoning_ != nullptr; }
  bool has_tool_parser() const { return tools_ != nullptr; }

 private:
  void Route(EventSink& out);

  std::unique_ptr<ReasoningParser> reasoning_;
  std::unique_ptr<ToolParser> tools_;
  EventSink stage_;  // reasoning-stage events, reused across feeds
};

// The seed's streaming signature on top of a push parser: (previous text, current text,
// delta) → a delta message or nothing. previous/current are accepted for compatibility; the
// parser only needs the delta.
struct DeltaToolCall {
  int index = -1;
  std::string id;         // set on the first delta of a call
  std::string name;       // set on the first delta of a call
  std::string arguments;  // argument fragment (may be empty)
};

struct DeltaMessage {
  std::optional<std::string> reasoning;
  std::optional<std::string> content;
  std::vector<DeltaToolCall> tool_calls;
  bool empty() const { return !reasoning && !content && tool_calls.empty(); }
};

class DeltaAdapter {
 public:
  explicit DeltaAdapter(StreamParser& parser) : parser_(parser) {}

  std::optional<DeltaMessage> ExtractStreaming(std::string_view previous_text,
                                               std::string_view current_text,
                                               std::string_view delta_text);
  // End of stream: what was held back, or nothing.
  std::optional<DeltaMessage> Finalize();
  void Reset() { parser_.Reset(); }

  // Converts events to one delta message (nullopt when they carry nothing).
  static std::optional<DeltaMessage> ToDelta(const std::vector<Event>& events);

 private:
  StreamParser& parser_;
  EventSink sink_;
};

}  // namespace crux::parse
