// Harmony (gpt-oss): messages `<|start|>assistant<|channel|>NAME[ to=RECIPIENT][<|constrain|>T]
// <|message|>BODY<|end|>` (or `<|return|>`, `<|call|>`). The analysis channel is reasoning and
// the final channel is content; commentary without a recipient (a preamble to the user) is
// content. A message addressed to a recipient (`to=functions.f`) is a tool call: it is passed
// through verbatim, header and terminator included, so the harmony tool parser downstream can
// read it. Header text (role, channel name, recipient) is framing and never shown. Text outside
// any message is content. A body runs to its terminator or to the next header, so a missing
// `<|end|>` loses nothing.
#include <string>
#include <string_view>

#include "crux/text/marker_set.h"
#include "crux/text/stream_buffer.h"
#include "parse/reasoning/channel_writer.h"
#include "parse/reasoning/families.h"

namespace crux::parse {
namespace {

enum MarkerId : int {
  kStart = 0,
  kChannel,
  kMessage,
  kConstrain,
  kEnd,
  kReturn,
  kCall,
};

enum class Route : uint8_t { kReasoning, kContent, kPassThrough };

// Headers longer than this are not headers: their text is released as content.
constexpr size_t kMaxHeader = 1024;

class HarmonyParser final : public ReasoningParser {
 public:
  HarmonyParser() { Reset(); }

  void Feed(std::string_view delta, EventSink& out) override { Process(delta, false, out); }
  void Finish(EventSink& out) override {
    Process({}, true, out);
    if (state_ == State::kHeader) header_.clear();  // an unfinished header is only framing
  }

  void Reset() override {
    buffer_.Clear();
    writer_.Reset();
    header_.clear();
    state_ = State::kOutside;
    route_ = Route::kContent;
  }

 private:
  enum class State : uint8_t { kOutside, kHeader, kBody };

  static const text::MarkerSet& Markers() {
    static const text::MarkerSet markers{"<|start|>", "<|channel|>", "<|message|>", "<|constrain|>",
                                         "<|end|>",   "<|return|>",  "<|call|>"};
    return markers;
  }

  void Process(std::string_view delta, bool at_end, EventSink& out) {
    const std::string_view view = buffer_.Take(delta, at_end);
    size_t pos = 0;
    while (pos < view.size()) {
      const text::ScanResult hit = Markers().Scan(view.substr(pos), at_end);
      Text(view.substr(pos, hit.pos), out);
      pos += hit.pos;
      if (hit.status != text::ScanStatus::kFound) break;
      OnMarker(hit.id, view.substr(pos, hit.length), out);
      pos += hit.length;
    }
    buffer_.Keep(pos);
  }

  void Text(std::string_view text, EventSink& out) {
    if (text.empty()) return;
    switch (state_) {
      case State::kOutside:
        writer_.Content(text, out);
        break;
      case State::kHeader:
        header_.append(text);
        if (header_.size() > kMaxHeader) {  // not a header after all
          writer_.Content(header_, out);
          header_.clear();
          state_ = State::kOutside;
        }
        break;
      case State::kBody:
        Body(text, out);
        break;
    }
  }

  void Body(std::string_view text, EventSink& out) {
    switch (route_) {
      case Route::kReasoning:
        writer_.Reasoning(text, out);
        break;
      case Route::kContent:
        writer_.Content(text, out);
        break;
      case Route::kPassThrough:
        out.Content(text);
        break;
    }
  }

  void OnMarker(int id, std::string_view marker, EventSink& out) {
    switch (id) {
      case kStart:
      case kChannel:
        if (state_ == State::kHeader) {
          header_.append(marker);
          return;
        }
        EndBody(out, {});
        state_ = State::kHeader;
        header_.assign(marker);
        return;
      case kConstrain:
        if (state_ == State::kHeader) header_.append(marker);
        return;  // a stray constrain token outside a header is framing
      case kMessage:
        if (state_ != State::kHeader) return;  // stray: framing
        OpenBody(out);
        return;
      default:                                          // <|end|>, <|return|>, <|call|>
        if (state_ == State::kHeader) header_.clear();  // header without a body: framing
        EndBody(out, marker);
        state_ = State::kOutside;
        return;
    }
  }

  void OpenBody(EventSink& out) {
    route_ = RouteFor(header_);
    if (route_ == Route::kPassThrough) {
      out.Content(header_);
      out.Content("<|message|>");
    } else if (route_ == Route::kReasoning) {
      writer_.StartReasoningBlock();
    }
    header_.clear();
    state_ = State::kBody;
  }

  // A passed-through call ended by the next header instead of a terminator gets `<|call|>`,
  // so the tool parser downstream sees where its arguments end.
  void EndBody(EventSink& out, std::string_view terminator) {
    if (state_ == State::kBody && route_ == Route::kPassThrough) {
      out.Content(terminator.empty() ? std::string_view("<|call|>") : terminator);
    }
  }

  static Route RouteFor(std::string_view header) {
    if (header.find("to=") != std::string_view::npos) return Route::kPassThrough;
    const size_t channel = header.rfind("<|channel|>");
    if (channel == std::string_view::npos) return Route::kContent;
    std::string_view name = text::TrimLeft(header.substr(channel + 11));
    size_t end = 0;
    while (end < name.size() && !text::IsSpace(name[end]) && name[end] != '<')
      ++end;
    name = name.substr(0, end);
    return name == "analysis" ? Route::kReasoning : Route::kContent;
  }

  text::StreamBuffer buffer_;
  ChannelWriter writer_;
  std::string header_;
  State state_ = State::kOutside;
  Route route_ = Route::kContent;
};

}  // namespace

std::unique_ptr<ReasoningParser> MakeHarmonyParser(const ReasoningOptions&) {
  return std::make_unique<HarmonyParser>();
}
std::unique_ptr<ReasoningParser> MakeGptOssParser(const ReasoningOptions&) {
  return std::make_unique<HarmonyParser>();
}

}  // namespace crux::parse
