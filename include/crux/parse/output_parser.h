// OutputParser: the whole output pipeline of one stream. Reasoning is split off first; the
// answer text then goes through the tool parser. Either stage is optional.
//
// Tool-call promotion: models of some families (Qwen3, MiniMax) write tool calls inside their
// reasoning. Given the tool family's blocks (ToolParserInfo::promoted_blocks), a closed block
// found in reasoning whose body looks like a call (after whitespace: `{`…`}` or `<`…`>`) is
// taken out of reasoning and fed to the tool parser as answer text, at the point where it
// occurred. Streaming holds back only a possible start of an open marker, and an open block
// whose body has begun like a call, until its close marker; a block still open when the
// reasoning ends (answer text follows, or the stream ends) is reasoning after all. Reasoning
// is trimmed again around removed blocks.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "crux/parse/events.h"
#include "crux/parse/parser.h"
#include "crux/parse/registry.h"

namespace crux::parse {

// What the parsers noticed in one stream (since the last Reset), for metrics.
struct OutputParserStats {
  int lone_end_markers = 0;     // reasoning end markers kept as content, nothing to close
  int promoted_tool_calls = 0;  // tool-call blocks moved from reasoning to the tool parser
};

class ToolCallPromotion;  // output_parser.cc

class OutputParser final : public StreamParser {
 public:
  // `promoted_blocks`: the tool family's ToolParserInfo::promoted_blocks; empty (or no
  // reasoning or tool parser) turns promotion off.
  OutputParser(std::unique_ptr<ReasoningParser> reasoning, std::unique_ptr<ToolParser> tools,
               const std::vector<ToolCallBlock>& promoted_blocks = {});
  ~OutputParser() override;

  void Feed(std::string_view delta, EventSink& out) override;
  void Finish(EventSink& out) override;
  void Reset() override;

  bool has_reasoning_parser() const { return reasoning_ != nullptr; }
  bool has_tool_parser() const { return tools_ != nullptr; }
  bool promotes_tool_calls() const { return promotion_ != nullptr; }
  OutputParserStats stats() const;

 private:
  void Route(EventSink& out);

  std::unique_ptr<ReasoningParser> reasoning_;
  std::unique_ptr<ToolParser> tools_;
  std::unique_ptr<ToolCallPromotion> promotion_;  // null: no promotion
  EventSink stage_;                               // reasoning-stage events, reused across feeds
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
