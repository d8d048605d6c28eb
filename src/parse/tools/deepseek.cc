// deepseek / deepseek_v3 / deepseek_r1 / deepseek_v31: DeepSeek V3, R1 (and distills), V3.1.
// Markers use U+FF5C `｜` and U+2581 `▁`. A block holds one or more calls:
//   <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather
//   ```json
//   {"city": "Oslo"}
//   ```<｜tool▁call▁end｜><｜tool▁calls▁end｜>                        (V3, R1)
//   <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{"city": "Oslo"}
//   <｜tool▁call▁end｜><｜tool▁calls▁end｜>                           (V3.1: no type, no fence)
//   <｜tool▁call▁begin｜>get_weather
//   ```json
//   {"city": "Oslo"}
//   ```<｜tool▁call▁end｜>                                            (V3/R1 without the type)
// The first two are told apart after `<｜tool▁sep｜>`: an object right away means the text
// before the separator is the name (V3.1); otherwise that text is the type and the name
// follows (when none does, the text before the separator was the name). The fence is
// optional in both. A fence before any separator means the type and the separator were left
// out: the text before the fence is the name (one word). The block markers are dropped; a
// call-begin marker outside a block is accepted. Arguments must be a JSON object (streamed
// as validated); the reference passes invalid JSON through, crux returns such a call,
// markers included, as content. Text after the block is content (the reference drops it).
#include <memory>

#include "crux/parse/call_grammar.h"
#include "crux/parse/tools/registry.h"
#include "parse/tools/tokens_common.h"

namespace crux::parse::tools {
namespace {

constexpr std::string_view kCallBegin = "<｜tool▁call▁begin｜>";
constexpr std::string_view kCallEnd = "<｜tool▁call▁end｜>";
constexpr std::string_view kSep = "<｜tool▁sep｜>";
constexpr size_t kMaxHead = 256;

class DeepSeekParser final : public TokenParser {
 public:
  explicit DeepSeekParser(const ToolParserOptions& options) : TokenParser(options) {}

 private:
  enum class State : uint8_t {
    kOutside,
    kHead,
    kAfterSep,
    kName,
    kFence,
    kArgs,
    kAfterArgs,
    kDiscard
  };

  // Id 0 begins a call; the others (block markers, a stray end marker) are dropped.
  static const text::MarkerSet& OutsideMarkers() {
    static const text::MarkerSet set{kCallBegin, "<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>",
                                     kCallEnd};
    return set;
  }
  // kHead: the separator ends the head, and so does a fence (id 3: no type, no separator);
  // a call marker there is an error.
  static const text::MarkerSet& HeadMarkers() {
    static const text::MarkerSet set{kSep, kCallEnd, kCallBegin, "```"};
    return set;
  }
  static const text::MarkerSet& FenceMarkers() {
    static const text::MarkerSet set{"```json", "```"};
    return set;
  }
  static const text::MarkerSet& CloseMarkers() {
    static const text::MarkerSet set{kCallEnd, "```"};
    return set;
  }
  static const text::MarkerSet& DiscardMarkers() {
    static const text::MarkerSet set{kCallEnd, kCallBegin};
    return set;
  }

  void OnReset() override {
    state_ = State::kOutside;
    layout_.Reset();
  }

  // Back to outside text after a call (kept or given back as content).
  void BackOutside() {
    state_ = State::kOutside;
    layout_.AfterCall();
  }

  size_t Outside(std::string_view rest, bool at_end) {
    const size_t skipped = layout_.Skip(rest);
    rest.remove_prefix(skipped);
    const text::ScanResult hit = OutsideMarkers().Scan(rest, at_end);
    Content(rest.substr(0, hit.pos));
    if (hit.status != text::ScanStatus::kFound) return skipped + hit.pos;
    if (hit.id == 0) {
      OpenRegion(kCallBegin);
      head_.clear();
      state_ = State::kHead;
    }
    if (hit.id == 1) layout_.Enter();
    if (hit.id == 2) layout_.Leave();
    return skipped + hit.pos + hit.length;
  }

  size_t Head(std::string_view rest, bool at_end) {
    const text::ScanResult hit = HeadMarkers().Scan(rest, at_end);
    head_.append(rest.substr(0, hit.pos));
    Capture(rest.substr(0, hit.pos));
    if (head_.size() > kMaxHead ||
        (hit.status == text::ScanStatus::kFound && hit.id == 3 && !HeadIsName())) {
      state_ = State::kDiscard;
      return hit.pos;
    }
    if (hit.status == text::ScanStatus::kFound && hit.id == 3) {  // the fence is read by kFence
      name_.assign(text::Trim(head_));
      fenced_ = false;
      state_ = State::kFence;
      return hit.pos;
    }
    if (hit.status == text::ScanStatus::kFound && hit.id != 0) {
      state_ = State::kDiscard;
      return hit.pos;
    }
    if (hit.status != text::ScanStatus::kFound) return hit.pos;
    Capture(kSep);
    state_ = State::kAfterSep;
    return hit.pos + hit.length;
  }

  // The head before a fence is a name: one word, nothing else.
  bool HeadIsName() const {
    const std::string_view name = text::Trim(head_);
    if (name.empty()) return false;
    for (const char c : name) {
      if (text::IsSpace(c) || c == '{' || c == '<') return false;
    }
    return true;
  }

  size_t AfterSep(std::string_view rest) {
    const size_t n = CaptureSpace(rest);
    if (n == rest.size()) return n;
    if (rest[n] == '{') {  // V3.1: the head was the name
      const std::string_view name = text::Trim(head_);
      if (name.empty()) {
        state_ = State::kDiscard;
        return n;
      }
      args_.Start(name, {});
      state_ = State::kArgs;
      return n;
    }
    name_.clear();
    state_ = State::kName;
    return n;
  }

  size_t Name(std::string_view rest) {
    size_t n = 0;
    while (n < rest.size() && !text::IsSpace(rest[n]) && rest[n] != '`' && rest[n] != '{' &&
           rest[n] != '<' && name_.size() <= kMaxHead) {
      name_.push_back(rest[n++]);
    }
    Capture(rest.substr(0, n));
    if (name_.size() > kMaxHead) {
      state_ = State::kDiscard;
    } else if (n < rest.size()) {
      fenced_ = false;
      state_ = State::kFence;
    }
    return n;
  }

  // Between the name and the object: whitespace and an optional ```json fence.
  size_t Fence(std::string_view rest, bool at_end) {
    size_t n = CaptureSpace(rest);
    if (n == rest.size()) return n;
    // No name after the separator (`f<｜tool▁sep｜>```json`): the head was the name (V3.1).
    if (rest[n] == '{' && name_.empty() && HeadIsName()) name_.assign(text::Trim(head_));
    if (rest[n] == '{' && !name_.empty()) {
      args_.Start(name_, {});
      state_ = State::kArgs;
      return n;
    }
    const MarkerMatch m = fenced_ ? MarkerMatch{} : MatchAt(FenceMarkers(), rest.substr(n), at_end);
    if (m.status == MarkerMatch::Status::kWait) return n;
    if (m.status == MarkerMatch::Status::kNo) {
      state_ = State::kDiscard;
      return n;
    }
    Capture(rest.substr(n, m.length));
    fenced_ = true;
    return n + m.length;
  }

  // After the object: whitespace, an optional closing fence, then the end marker. Anything
  // else ends the call (its arguments are complete) and is read as outside text.
  size_t AfterArgs(std::string_view rest, bool at_end) {
    const size_t n = CaptureSpace(rest);
    if (n == rest.size()) return n;
    const MarkerMatch m = MatchAt(CloseMarkers(), rest.substr(n), at_end);
    if (m.status == MarkerMatch::Status::kWait) return n;
    if (m.status == MarkerMatch::Status::kFound) Capture(rest.substr(n, m.length));
    if (m.status == MarkerMatch::Status::kFound && m.id != 0) return n + m.length;  // fence
    CloseRegion();
    BackOutside();
    return m.status == MarkerMatch::Status::kFound ? n + m.length : n;
  }

  // A malformed call: keep its text up to its end marker (or the next call), then give it
  // back as content.
  size_t Discard(std::string_view rest, bool at_end) {
    const DiscardResult d = DiscardCall(DiscardMarkers(), rest, at_end);
    if (d.ended) {
      BackOutside();
    }
    return d.consumed;
  }

  size_t Process(std::string_view text, bool at_end) override {
    return RunSteps(text, state_, [&](std::string_view rest) {
      size_t n = 0;
      switch (state_) {
        case State::kOutside:
          n = Outside(rest, at_end);
          break;
        case State::kHead:
          n = Head(rest, at_end);
          break;
        case State::kAfterSep:
          n = AfterSep(rest);
          break;
        case State::kName:
          n = Name(rest);
          break;
        case State::kFence:
          n = Fence(rest, at_end);
          break;
        case State::kArgs: {
          const auto st = args_.Feed(rest, n, *this);
          Capture(rest.substr(0, n));
          if (st == JsonArgs::Status::kError) state_ = State::kDiscard;
          if (st == JsonArgs::Status::kDone) state_ = State::kAfterArgs;
          break;
        }
        case State::kAfterArgs:
          n = AfterArgs(rest, at_end);
          break;
        case State::kDiscard:
          n = Discard(rest, at_end);
          break;
      }
      return n;
    });
  }

  State state_ = State::kOutside;
  std::string head_;
  std::string name_;
  bool fenced_ = false;
  JsonArgs args_;
  BlockLayout layout_;
};

}  // namespace

std::unique_ptr<ToolParser> MakeDeepSeekParser(const ToolParserOptions& options) {
  return std::make_unique<DeepSeekParser>(options);
}

const ToolParserInfo& DeepseekToolFormat() {
  using S = CallGrammar::Slot;
  static const CallGrammar grammar{
      .open = "<｜tool▁calls▁begin｜>",
      .close = "<｜tool▁calls▁end｜>",
      .call = {{S::kText, "<｜tool▁call▁begin｜>function<｜tool▁sep｜>"},
               {S::kName},
               {S::kText, "\n```json\n"},
               {S::kArguments},
               {S::kText, "\n```<｜tool▁call▁end｜>"}},
  };
  static const ToolParserInfo format{
      .name = "deepseek",
      .aliases = {"deepseek_v3", "deepseek_r1", "deepseek_v31"},
      .models = "DeepSeek V3, V3-0324, R1, R1-0528, R1 distills, V3.1",
      .format =
          "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>f\\n```json\\n{…}\\n```"
          "<｜tool▁call▁end｜><｜tool▁calls▁end｜> (V3.1: f<｜tool▁sep｜>{…}; no type: "
          "<｜tool▁call▁begin｜>f\\n```json\\n{…}\\n```)",
      .create = MakeDeepSeekParser,
      .grammar = &grammar,
      .detect_markers = {"<｜tool▁calls▁begin｜>", "<｜tool▁call▁begin｜>"},
      .template_needles = {{70, "tool▁calls▁begin", ""}},
  };
  return format;
}

}  // namespace crux::parse::tools
