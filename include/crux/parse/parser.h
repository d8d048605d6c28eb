// Parser interfaces: push-style state machines over streamed model output.
//
// Contract shared by every reasoning and tool parser:
// * Feed(delta) appends the events this delta makes certain. Bytes that could still begin a
//   marker (or finish an unfinished UTF-8 character) are held back, nothing else.
// * Finish() flushes what is held back, to the channel it belongs to. Nothing is dropped.
// * Reset() makes the parser reusable for a new stream with the same options.
// * Complete parsing is defined as Reset + Feed(all) + Finish, so streaming and complete
//   parsing cannot disagree: for every chunking, the accumulated events are the same.
// * Work per Feed is proportional to the delta (plus a bounded hold-back), never to the text
//   seen so far.
// Instances are single-threaded; create one per stream.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "crux/parse/events.h"
#include "crux/parse/result.h"
#include "crux/parse/tool_spec.h"

namespace crux::parse {

class StreamParser {
 public:
  virtual ~StreamParser() = default;
  virtual void Feed(std::string_view delta, EventSink& out) = 0;
  virtual void Finish(EventSink& out) = 0;
  virtual void Reset() = 0;
};

// Splits reasoning from answer text. Emits only kReasoning and kContent events — except the
// rows of channel formats (harmony, gpt_oss, muse_glimmer), which run the format's tool parser
// and emit its tool-call events too (see crux/parse/chain.h).
class ReasoningParser : public StreamParser {
 public:
  // End markers seen outside reasoning with no block to close (kept as content) since the
  // last Reset: a sign that the prompt opened a block the parser was not told about.
  virtual int lone_end_markers() const { return 0; }
};

// Extracts tool calls from answer text. Emits kContent and kToolCall* events; families whose
// format also carries reasoning channels (Harmony's analysis channel, Muse's `to=self`)
// emit kReasoning for them: they are channel formats, and no reasoning parser runs before them
// in a parser chain.
class ToolParser : public StreamParser {};

struct ReasoningOptions {
  // True when the prompt already opened the reasoning block (the chat template ended the
  // generation prompt with the start marker), so output begins inside reasoning. Unset: the
  // family's default (see docs/reasoning-parsers.md).
  std::optional<bool> start_in_reasoning;
  // Channel formats (harmony, gpt_oss, muse_glimmer) emit tool calls too: the seed of their
  // ids, as ToolParserOptions::id_seed (0: random; tests fix a seed).
  uint64_t id_seed = 0;
};

struct ToolParserOptions {
  std::vector<ToolSpec> tools;  // the request's tools; empty = accept any name, untyped
  uint64_t id_seed = 0;         // 0: random ids; tests fix a seed for reproducible ids
};

// Runs `parser` over the complete `text`: Reset + Feed(text) + Finish, accumulated.
ParseResult ParseComplete(StreamParser& parser, std::string_view text);

}  // namespace crux::parse
