// Gemma 4 channels: `<|channel>thought\n…reasoning…<channel|>…answer…`, or a switch to the
// answer with `<|channel>response\n`. A channel marker may be followed by a label word
// (`thought` or `response`) that picks the channel and is never shown. Text before any marker
// is content unless the prompt opened the thought channel (start_in_reasoning), in which case
// a leading label may follow. Degenerate cycling (`<channel|>thought\n…<channel|>`) keeps
// every thought in reasoning. A `<channel|>` in the answer that closes no channel (not even
// `<|channel>response`), does not repeat the close right before it (only whitespace between)
// and carries no label is lone: kept verbatim in content and counted, as in the think family.
#include <string_view>

#include "crux/text/marker_set.h"
#include "crux/text/stream_buffer.h"
#include "parse/reasoning/channel_writer.h"
#include "parse/reasoning/families.h"

namespace crux::parse {
namespace {

enum MarkerId : int { kOpen = 0, kClose = 1 };

constexpr std::string_view kThoughtWord = "thought";
constexpr std::string_view kResponseWord = "response";

bool IsLetter(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

enum class Label { kNone, kThought, kResponse, kUndecided };

// Decides whether `text` starts with a channel label; sets `length` to the label's size.
Label ReadLabel(std::string_view text, bool at_end, size_t& length) {
  for (auto [word, label] :
       {std::pair{kThoughtWord, Label::kThought}, {kResponseWord, Label::kResponse}}) {
    if (text.size() <= word.size()) {
      if (word.compare(0, text.size(), text) == 0 && !at_end) return Label::kUndecided;
      if (text == word) {  // at end: the label is the last thing in the stream
        length = word.size();
        return label;
      }
      continue;
    }
    if (text.compare(0, word.size(), word) == 0 && !IsLetter(text[word.size()])) {
      length = word.size();
      return label;
    }
  }
  return Label::kNone;
}

class Gemma4Parser final : public ReasoningParser {
 public:
  explicit Gemma4Parser(const ReasoningOptions& options)
      : start_in_reasoning_(options.start_in_reasoning.value_or(false)) {
    Reset();
  }

  void Feed(std::string_view delta, EventSink& out) override { Process(delta, false, out); }
  void Finish(EventSink& out) override { Process({}, true, out); }

  void Reset() override {
    buffer_.Clear();
    writer_.Reset();
    in_reasoning_ = start_in_reasoning_;
    label_pending_ = start_in_reasoning_;
    lone_pending_ = false;
    just_closed_ = false;
    channel_open_ = start_in_reasoning_;
    lone_end_markers_ = 0;
    if (in_reasoning_) writer_.StartReasoningBlock();
  }

  int lone_end_markers() const override { return lone_end_markers_; }

 private:
  static const text::MarkerSet& Markers() {
    static const text::MarkerSet markers{"<|channel>", "<channel|>"};
    return markers;
  }

  void Process(std::string_view delta, bool at_end, EventSink& out) {
    const std::string_view view = buffer_.Take(delta, at_end);
    size_t pos = 0;
    while (pos < view.size()) {
      if (label_pending_) {
        size_t length = 0;
        const Label label = ReadLabel(view.substr(pos), at_end, length);
        if (label == Label::kUndecided) break;
        label_pending_ = false;
        const bool lone = lone_pending_;
        lone_pending_ = false;
        if (label != Label::kNone) {
          SwitchTo(label == Label::kThought);
          pos += length;
          continue;
        }
        if (lone) KeepLoneClose(out);
      }
      const text::ScanResult hit = Markers().Scan(view.substr(pos), at_end);
      const std::string_view plain = view.substr(pos, hit.pos);
      writer_.Write(in_reasoning_, plain, out);
      if (just_closed_ && !in_reasoning_ && !text::Trim(plain).empty()) just_closed_ = false;
      pos += hit.pos;
      if (hit.status != text::ScanStatus::kFound) break;
      pos += hit.length;
      // `<|channel>` opens a channel (thought unless labelled otherwise); `<channel|>` closes
      // it (answer unless labelled otherwise). Either may be followed by a label.
      if (hit.id == kOpen) {
        channel_open_ = true;
      } else {
        if (in_reasoning_ || channel_open_) {
          just_closed_ = true;  // closes a thought, or a `<|channel>response` channel
        } else {
          lone_pending_ = !just_closed_;
        }
        channel_open_ = false;
      }
      SwitchTo(hit.id == kOpen);
      label_pending_ = true;
    }
    if (at_end && lone_pending_) {  // the stream ended right after the marker
      lone_pending_ = false;
      KeepLoneClose(out);
    }
    buffer_.Keep(pos);
  }

  void KeepLoneClose(EventSink& out) {
    writer_.Content(Markers().marker(kClose), out);
    just_closed_ = false;
    ++lone_end_markers_;
  }

  void SwitchTo(bool reasoning) {
    if (reasoning && !in_reasoning_) writer_.StartReasoningBlock();
    in_reasoning_ = reasoning;
  }

  const bool start_in_reasoning_;
  text::StreamBuffer buffer_;
  ChannelWriter writer_;
  bool in_reasoning_ = false;
  bool label_pending_ = false;
  bool lone_pending_ = false;  // a `<channel|>` in the answer waits for its label
  bool just_closed_ = false;   // a `<channel|>` closed a channel, and only whitespace followed
  bool channel_open_ = false;  // a `<|channel>` (any label) is not closed yet
  int lone_end_markers_ = 0;
};

}  // namespace

std::unique_ptr<ReasoningParser> MakeGemma4Parser(const ReasoningOptions& o) {
  return std::make_unique<Gemma4Parser>(o);
}

}  // namespace crux::parse
