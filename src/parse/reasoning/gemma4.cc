// Gemma 4 channels: `<|channel>thought\n…reasoning…<channel|>…answer…`, or a switch to the
// answer with `<|channel>response\n`. A channel marker may be followed by a label word
// (`thought` or `response`) that picks the channel and is never shown. Text before any marker
// is content unless the prompt opened the thought channel (start_in_reasoning), in which case
// a leading label may follow. Degenerate cycling (`<channel|>thought\n…<channel|>`) keeps
// every thought in reasoning.
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
    if (in_reasoning_) writer_.StartReasoningBlock();
  }

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
        if (label != Label::kNone) {
          SwitchTo(label == Label::kThought);
          pos += length;
          continue;
        }
      }
      const text::ScanResult hit = Markers().Scan(view.substr(pos), at_end);
      writer_.Write(in_reasoning_, view.substr(pos, hit.pos), out);
      pos += hit.pos;
      if (hit.status != text::ScanStatus::kFound) break;
      pos += hit.length;
      // `<|channel>` opens a channel (thought unless labelled otherwise); `<channel|>` closes
      // it (answer unless labelled otherwise). Either may be followed by a label.
      SwitchTo(hit.id == kOpen);
      label_pending_ = true;
    }
    buffer_.Keep(pos);
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
};

}  // namespace

std::unique_ptr<ReasoningParser> MakeGemma4Parser(const ReasoningOptions& o) {
  return std::make_unique<Gemma4Parser>(o);
}

}  // namespace crux::parse
