// harmony / gpt-oss tool calls. A Harmony message is `[<|start|>ROLE]<|channel|>CHANNEL
// [ to=RECIPIENT][ <|constrain|>TYPE]<|message|>BODY` ended by `<|call|>`, `<|end|>`,
// `<|return|>` or the next header. A message with a recipient (`to=functions.f`, before or
// after the channel) is a tool call: f with BODY as its JSON arguments, streamed as they are
// validated. Recipients outside `functions.` (built-in tools such as `browser.search`) keep
// their full name. Messages without a recipient: final and commentary (preambles) are content;
// analysis is reasoning, emitted as reasoning events (trimmed blocks joined by "\n") so that
// nothing is lost when no reasoning parser runs first. Text outside messages is content; the
// control tokens themselves never are.
// Harmony is a channel format: this one parser reads the whole output, and it is what runs for
// the `harmony` / `gpt_oss` reasoning parser names too (src/parse/reasoning/channel.cc,
// crux/parse/chain.h), so no framing reaches content whichever name the user set.
// Deviations from the reference: invalid or non-object JSON arguments are returned as content
// (the reference keeps raw text when a terminator follows); the recipient-before-channel order
// and names with '-' are supported; final text after a call is kept.
#include <memory>

#include "crux/parse/call_grammar.h"
#include "crux/parse/tools/registry.h"
#include "parse/tools/other_common.h"

namespace crux::parse::tools {
namespace {

enum MarkerId : int { kStart = 0, kChannel, kMessage, kConstrain, kEnd, kReturn, kCall };

constexpr std::string_view kMessageMarker = "<|message|>";
// Headers longer than this are not headers: their text is released as content.
constexpr size_t kMaxHeader = 1024;

class HarmonyParser final : public ToolParserCore {
 public:
  explicit HarmonyParser(const ToolParserOptions& options) : ToolParserCore(options) {}

 private:
  enum class State : uint8_t {
    kOutside,    // content
    kHeader,     // between a header start and <|message|>
    kBody,       // a content or reasoning message body
    kArgs,       // a call's arguments
    kAfterArgs,  // after the arguments: whitespace, then the terminator
    kDiscard,    // malformed arguments, captured up to the message's end
  };

  static const text::MarkerSet& Markers() {
    static const text::MarkerSet set{"<|start|>", "<|channel|>", "<|message|>", "<|constrain|>",
                                     "<|end|>",   "<|return|>",  "<|call|>"};
    return set;
  }

  void OnReset() override {
    state_ = State::kOutside;
    reasoning_body_ = false;
    header_.clear();
    reasoning_.Reset();
  }

  void OnFinish() override {
    header_.clear();  // an unfinished header is framing
    ToolParserCore::OnFinish();
  }

  size_t Process(std::string_view text, bool at_end) override {
    return RunSteps(text, [&](std::string_view rest) {
      size_t n = 0;
      switch (state_) {
        case State::kOutside:
        case State::kHeader:
        case State::kBody:
          n = TextStep(rest, at_end);
          break;
        case State::kArgs:
          n = ArgsStep(rest);
          break;
        case State::kAfterArgs:
          n = AfterArgsStep(rest, at_end);
          break;
        case State::kDiscard:
          n = DiscardStep(rest, at_end);
          break;
      }
      return n;
    });
  }

  // Text and markers outside call arguments.
  size_t TextStep(std::string_view rest, bool at_end) {
    const text::ScanResult hit = Markers().Scan(rest, at_end);
    Text(rest.substr(0, hit.pos));
    if (hit.status != text::ScanStatus::kFound) return hit.pos == 0 ? kHold : hit.pos;
    OnMarker(hit.id, rest.substr(hit.pos, hit.length));
    return hit.pos + hit.length;
  }

  void Text(std::string_view text) {
    if (text.empty()) return;
    if (state_ == State::kHeader) {
      header_.append(text);
      if (header_.size() > kMaxHeader) {  // not a header after all
        Content(header_);
        header_.clear();
        state_ = State::kOutside;
      }
    } else if (state_ == State::kBody && reasoning_body_) {
      scratch_.clear();
      reasoning_.Append(text, scratch_);
      out().Reasoning(scratch_);
    } else {
      Content(text);
    }
  }

  void OnMarker(int id, std::string_view marker) {
    switch (id) {
      case kStart:
      case kChannel:
        if (state_ != State::kHeader) header_.clear();
        header_.append(marker);
        state_ = State::kHeader;
        return;
      case kConstrain:
        if (state_ == State::kHeader) header_.append(marker);
        return;  // stray: framing
      case kMessage:
        if (state_ == State::kHeader) OpenBody();
        return;  // stray: framing
      default:   // <|end|>, <|return|>, <|call|>: the message (or a header without body) ends
        header_.clear();
        state_ = State::kOutside;
        return;
    }
  }

  void OpenBody() {
    const std::string_view recipient = Recipient(header_);
    if (!recipient.empty()) {
      constexpr std::string_view kFunctions = "functions.";
      name_.assign(recipient.starts_with(kFunctions) ? recipient.substr(kFunctions.size())
                                                     : recipient);
      OpenRegion(header_);
      Capture(kMessageMarker);
      json_.Reset();
      state_ = State::kArgs;
    } else {
      reasoning_body_ = ChannelOf(header_) == "analysis";
      if (reasoning_body_) reasoning_.StartPart("\n");
      state_ = State::kBody;
    }
    header_.clear();
  }

  // The name after `to=` in a header, or "".
  static std::string_view Recipient(std::string_view header) {
    const size_t to = header.find("to=");
    if (to == std::string_view::npos) return {};
    std::string_view name = header.substr(to + 3);
    size_t end = 0;
    while (end < name.size() && IsNameByte(name[end]))
      ++end;
    return name.substr(0, std::min(end, kMaxNameLength));
  }

  static std::string_view ChannelOf(std::string_view header) {
    const size_t channel = header.rfind("<|channel|>");
    if (channel == std::string_view::npos) return {};
    std::string_view name = text::TrimLeft(header.substr(channel + 11));
    size_t end = 0;
    while (end < name.size() && IsNameByte(name[end]))
      ++end;
    return name.substr(0, end);
  }

  size_t ArgsStep(std::string_view rest) {
    if (!json_.started()) {
      if (text::IsSpace(rest[0])) {
        Capture(rest.substr(0, 1));
        return 1;
      }
      if (rest[0] != '{') {  // not an object: malformed
        state_ = State::kDiscard;
        return 0;
      }
      BeginCall(name_);
    }
    size_t n = 0;
    const text::JsonScanner::Status status = json_.Feed(rest, n);
    Capture(rest.substr(0, n));
    if (n > 0) Args(rest.substr(0, n));
    if (status == text::JsonScanner::Status::kError) {
      state_ = State::kDiscard;
    } else if (status == text::JsonScanner::Status::kDone) {
      EndCall();
      state_ = State::kAfterArgs;
    }
    return n;
  }

  size_t AfterArgsStep(std::string_view rest, bool at_end) {
    if (text::IsSpace(rest[0])) {
      Capture(rest.substr(0, 1));
      return 1;
    }
    const text::ScanResult hit = Markers().Scan(rest, at_end);
    if (hit.pos == 0 && hit.status == text::ScanStatus::kPartial) return kHold;
    if (hit.pos != 0 || hit.status != text::ScanStatus::kFound) {
      state_ = State::kDiscard;  // text after the arguments: malformed
      return 0;
    }
    if (hit.id == kStart || hit.id == kChannel) {  // the next header ends the message
      CloseRegion();
      state_ = State::kOutside;
      return 0;
    }
    if (hit.id == kMessage || hit.id == kConstrain) {
      state_ = State::kDiscard;
      return 0;
    }
    CloseRegion();
    state_ = State::kOutside;
    return hit.length;
  }

  // Captures the rest of a malformed call message, then returns it as content.
  size_t DiscardStep(std::string_view rest, bool at_end) {
    const text::ScanResult hit = Markers().Scan(rest, at_end);
    Capture(rest.substr(0, hit.pos));
    if (hit.status != text::ScanStatus::kFound) return hit.pos == 0 ? kHold : hit.pos;
    if (hit.id == kStart || hit.id == kChannel) {
      CancelRegion();
      state_ = State::kOutside;
      return hit.pos;
    }
    Capture(rest.substr(hit.pos, hit.length));
    if (hit.id == kMessage || hit.id == kConstrain) return hit.pos + hit.length;
    CancelRegion();
    state_ = State::kOutside;
    return hit.pos + hit.length;
  }

  State state_ = State::kOutside;
  bool reasoning_body_ = false;
  std::string header_;
  std::string name_;
  std::string scratch_;
  text::TrimStream reasoning_;
  text::JsonScanner json_;
};

}  // namespace

std::unique_ptr<ToolParser> MakeHarmonyToolParser(const ToolParserOptions& options) {
  return std::make_unique<HarmonyParser>(options);
}

const ToolParserInfo& HarmonyToolFormat() {
  using S = CallGrammar::Slot;
  static const CallGrammar grammar{
      .separator = "<|start|>assistant",
      .call = {{S::kText, "<|channel|>commentary to=functions."},
               {S::kName},
               {S::kText, " <|constrain|>json<|message|>"},
               {S::kArguments},
               {S::kText, "<|call|>"}},
  };
  static const ToolParserInfo format{
      .name = "harmony",
      .aliases = {"gpt-oss", "gpt_oss", "openai"},
      .models = "gpt-oss-20b / gpt-oss-120b (Harmony)",
      .format = "<|channel|>commentary to=functions.f <|constrain|>json<|message|>{…}<|call|>",
      .create = MakeHarmonyToolParser,
      .grammar = &grammar,
      .detect_markers = {"<|start|>", "<|channel|>"},
      .template_needles = {{10, "<|channel|>", "<|message|>"}},
      .channel = true,
  };
  return format;
}

}  // namespace crux::parse::tools
