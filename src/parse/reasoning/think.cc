// The think family: reasoning between a start and an end marker (`<think>…</think>`,
// `[THINK]…[/THINK]`). Every block is reasoning, wherever it appears; text outside blocks is
// content. The start marker may be absent when the prompt opened the block
// (ReasoningOptions::start_in_reasoning). A nested start marker is dropped, and so is an end
// marker that repeats the close right before it (only whitespace between). Any other end
// marker outside reasoning is lone — the prompt probably opened a block the parser was not
// told about — and is kept verbatim in content (and counted), so that the reasoning and the
// answer it separates stay distinguishable. Families differ only in their markers, their
// default start state, and markers deleted everywhere (GLM's box tags, Cohere's answer
// wrappers).
#include <string_view>

#include "crux/text/marker_set.h"
#include "crux/text/stream_buffer.h"
#include "parse/reasoning/channel_writer.h"
#include "parse/reasoning/families.h"

namespace crux::parse {
namespace {

// Marker 0 opens a block, marker 1 closes it; further markers are deleted wherever they appear.
struct ThinkFamily {
  text::MarkerSet markers;
  bool default_start_in_reasoning;
};

enum MarkerId : int { kStart = 0, kEnd = 1 };

class ThinkParser final : public ReasoningParser {
 public:
  ThinkParser(const ThinkFamily& family, const ReasoningOptions& options)
      : start_in_reasoning_(options.start_in_reasoning.value_or(family.default_start_in_reasoning)),
        markers_(family.markers) {
    Reset();
  }

  void Feed(std::string_view delta, EventSink& out) override { Process(delta, false, out); }
  void Finish(EventSink& out) override { Process({}, true, out); }

  void Reset() override {
    buffer_.Clear();
    writer_.Reset();
    in_reasoning_ = start_in_reasoning_;
    just_closed_ = false;
    lone_end_markers_ = 0;
    if (in_reasoning_) writer_.StartReasoningBlock();
  }

  int lone_end_markers() const override { return lone_end_markers_; }

 private:
  void Process(std::string_view delta, bool at_end, EventSink& out) {
    const std::string_view view = buffer_.Take(delta, at_end);
    size_t pos = 0;
    while (pos < view.size()) {
      const text::ScanResult hit = markers_.Scan(view.substr(pos), at_end);
      const std::string_view plain = view.substr(pos, hit.pos);
      writer_.Write(in_reasoning_, plain, out);
      if (just_closed_ && !in_reasoning_ && !text::Trim(plain).empty()) just_closed_ = false;
      pos += hit.pos;
      if (hit.status != text::ScanStatus::kFound) break;
      pos += hit.length;
      OnMarker(hit.id, out);
    }
    buffer_.Keep(pos);
  }

  void OnMarker(int id, EventSink& out) {
    if (id == kStart && !in_reasoning_) {
      in_reasoning_ = true;
      writer_.StartReasoningBlock();
    } else if (id == kEnd && in_reasoning_) {
      in_reasoning_ = false;
      just_closed_ = true;
    } else if (id == kEnd && !just_closed_) {
      writer_.Content(markers_.marker(kEnd), out);
      ++lone_end_markers_;
    }
    // A nested start, a repeated end, or a deleted marker: nothing to emit.
  }

  const bool start_in_reasoning_;
  const text::MarkerSet& markers_;
  text::StreamBuffer buffer_;
  ChannelWriter writer_;
  bool in_reasoning_ = false;
  bool just_closed_ = false;  // an end marker closed a block, and only whitespace followed
  int lone_end_markers_ = 0;
};

const ThinkFamily kThink{{"<think>", "</think>"}, false};
const ThinkFamily kQwen3{{"<think>", "</think>"}, false};
const ThinkFamily kDeepSeekR1{{"<think>", "</think>"}, true};
const ThinkFamily kGlm4{{"<think>", "</think>", "<|begin_of_box|>", "<|end_of_box|>"}, false};
const ThinkFamily kMistral{{"[THINK]", "[/THINK]"}, false};
const ThinkFamily kPoolsideV1{{"<think>", "</think>"}, false};
const ThinkFamily kStep3p5{{"<think>", "</think>"}, true};
// The answer wrappers of Command R7B (`<|START_RESPONSE|>`…) and Cohere2 (`<|START_TEXT|>`…)
// are framing, never answer text.
const ThinkFamily kCommandR{{"<|START_THINKING|>", "<|END_THINKING|>", "<|START_RESPONSE|>",
                             "<|END_RESPONSE|>", "<|START_TEXT|>", "<|END_TEXT|>"},
                            false};
const ThinkFamily kApertus{{"<|inner_prefix|>", "<|inner_suffix|>"}, false};

}  // namespace

std::unique_ptr<ReasoningParser> MakeCommandRParser(const ReasoningOptions& o) {
  return std::make_unique<ThinkParser>(kCommandR, o);
}
std::unique_ptr<ReasoningParser> MakeApertusParser(const ReasoningOptions& o) {
  return std::make_unique<ThinkParser>(kApertus, o);
}
std::unique_ptr<ReasoningParser> MakeThinkParser(const ReasoningOptions& o) {
  return std::make_unique<ThinkParser>(kThink, o);
}
std::unique_ptr<ReasoningParser> MakeQwen3Parser(const ReasoningOptions& o) {
  return std::make_unique<ThinkParser>(kQwen3, o);
}
std::unique_ptr<ReasoningParser> MakeDeepSeekR1Parser(const ReasoningOptions& o) {
  return std::make_unique<ThinkParser>(kDeepSeekR1, o);
}
std::unique_ptr<ReasoningParser> MakeGlm4Parser(const ReasoningOptions& o) {
  return std::make_unique<ThinkParser>(kGlm4, o);
}
std::unique_ptr<ReasoningParser> MakeMistralParser(const ReasoningOptions& o) {
  return std::make_unique<ThinkParser>(kMistral, o);
}
std::unique_ptr<ReasoningParser> MakePoolsideV1Parser(const ReasoningOptions& o) {
  return std::make_unique<ThinkParser>(kPoolsideV1, o);
}
std::unique_ptr<ReasoningParser> MakeStep3p5Parser(const ReasoningOptions& o) {
  return std::make_unique<ThinkParser>(kStep3p5, o);
}

}  // namespace crux::parse
