// solar_open: Upstage Solar Open (100B). The assistant turn is `<|begin|>assistant` followed
// by `<|content|>text<|end|>` or by tool calls (template upstage-Solar-Open-100B):
//   <|tool_calls|><|tool_call:begin|>a1b2c3d4e5<|tool_call:name|>get_weather
//   <|tool_call:args|>{"city": "Oslo"}<|tool_call:end|><|calls|>
// The model writes its own call id (10 lowercase alphanumerics, which the template sends
// back with the tool result); it is used as the call id, and an empty one gets a generated
// id. Empty arguments are `{}`; anything else must be a JSON object, else the call is
// returned as content. The turn wrappers (`<|begin|>assistant`, `<|content|>`, `<|end|>`,
// `<|tool_calls|>`, `<|calls|>`) are dropped from content; `<|think|>` reasoning belongs to
// the reasoning parser.
#include <memory>

#include "crux/parse/call_grammar.h"
#include "crux/parse/tools/registry.h"
#include "parse/tools/tokens_common.h"

namespace crux::parse::tools {
namespace {

constexpr std::string_view kCallBegin = "<|tool_call:begin|>";
constexpr std::string_view kNameMarker = "<|tool_call:name|>";
constexpr std::string_view kArgsMarker = "<|tool_call:args|>";
constexpr std::string_view kCallEnd = "<|tool_call:end|>";
constexpr size_t kMaxId = 64;
constexpr size_t kMaxName = 256;

class SolarOpenParser final : public TokenParser {
 public:
  explicit SolarOpenParser(const ToolParserOptions& options) : TokenParser(options) {}

 private:
  enum class State : uint8_t { kOutside, kId, kName, kArgs, kAfterArgs, kDiscard };

  // Id 0 begins a call; the turn wrappers (and a stray end marker) are dropped.
  static const text::MarkerSet& OutsideMarkers() {
    static const text::MarkerSet set{kCallBegin, "<|tool_calls|>",     "<|calls|>", "<|content|>",
                                     "<|end|>",  "<|begin|>assistant", kCallEnd};
    return set;
  }
  // The header fields end at the next header marker; any other marker there is an error.
  static const text::MarkerSet& HeaderMarkers() {
    static const text::MarkerSet set{kNameMarker, kArgsMarker, kCallEnd, kCallBegin};
    return set;
  }
  static const text::MarkerSet& EndMarker() {
    static const text::MarkerSet set{kCallEnd};
    return set;
  }
  static const text::MarkerSet& DiscardMarkers() {
    static const text::MarkerSet set{kCallEnd, kCallBegin};
    return set;
  }

  void OnReset() override { state_ = State::kOutside; }

  size_t Outside(std::string_view rest, bool at_end) {
    const text::ScanResult hit = OutsideMarkers().Scan(rest, at_end);
    Content(rest.substr(0, hit.pos));
    if (hit.status != text::ScanStatus::kFound) return hit.pos;
    if (hit.id == 0) {
      OpenRegion(kCallBegin);
      id_.clear();
      name_.clear();
      state_ = State::kId;
    }
    return hit.pos + hit.length;
  }

  // Reads the id (up to the name marker) or the name (up to the args marker).
  size_t Header(std::string_view rest, bool at_end) {
    const bool id = state_ == State::kId;
    std::string& field = id ? id_ : name_;
    const text::ScanResult hit = HeaderMarkers().Scan(rest, at_end);
    field.append(rest.substr(0, hit.pos));
    Capture(rest.substr(0, hit.pos));
    const bool found = hit.status == text::ScanStatus::kFound;
    if (field.size() > (id ? kMaxId : kMaxName) || (found && hit.id != (id ? 0 : 1))) {
      state_ = State::kDiscard;  // a wrong marker stays for Discard
      return hit.pos;
    }
    if (!found) return hit.pos;
    Capture(rest.substr(hit.pos, hit.length));
    const size_t n = hit.pos + hit.length;
    if (id) {
      state_ = State::kName;
      return n;
    }
    const std::string_view name = text::Trim(name_);
    if (name.empty()) {
      state_ = State::kDiscard;
      return n;
    }
    args_.Start(name, text::Trim(id_));
    state_ = State::kArgs;
    return n;
  }

  size_t Arguments(std::string_view rest, bool at_end) {
    size_t n = 0;
    if (!args_.started()) {
      n = CaptureSpace(rest);
      if (n == rest.size()) return n;
      if (rest[n] != '{') {  // empty arguments, or not an object
        const MarkerMatch m = MatchAt(EndMarker(), rest.substr(n), at_end);
        if (m.status == MarkerMatch::Status::kWait) return n;
        if (m.status == MarkerMatch::Status::kNo) {
          state_ = State::kDiscard;
          return n;
        }
        args_.EmitEmpty(*this);
        Capture(kCallEnd);
        CloseRegion();
        state_ = State::kOutside;
        return n + m.length;
      }
    }
    size_t m = 0;
    const auto st = args_.Feed(rest.substr(n), m, *this);
    Capture(rest.substr(n, m));
    if (st == JsonArgs::Status::kError) state_ = State::kDiscard;
    if (st == JsonArgs::Status::kDone) state_ = State::kAfterArgs;
    return n + m;
  }

  size_t AfterArgs(std::string_view rest, bool at_end) {
    const size_t n = CaptureSpace(rest);
    if (n == rest.size()) return n;
    const MarkerMatch m = MatchAt(EndMarker(), rest.substr(n), at_end);
    if (m.status == MarkerMatch::Status::kWait) return n;
    if (m.status == MarkerMatch::Status::kFound) Capture(kCallEnd);
    CloseRegion();
    state_ = State::kOutside;
    return m.status == MarkerMatch::Status::kFound ? n + m.length : n;
  }

  size_t Discard(std::string_view rest, bool at_end) {
    const DiscardResult d = DiscardCall(DiscardMarkers(), rest, at_end);
    if (d.ended) {
      state_ = State::kOutside;
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
        case State::kId:
        case State::kName:
          n = Header(rest, at_end);
          break;
        case State::kArgs:
          n = Arguments(rest, at_end);
          break;
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
  std::string id_;
  std::string name_;
  JsonArgs args_;
};

}  // namespace

std::unique_ptr<ToolParser> MakeSolarOpenParser(const ToolParserOptions& options) {
  return std::make_unique<SolarOpenParser>(options);
}

const ToolParserInfo& SolarOpenToolFormat() {
  using S = CallGrammar::Slot;
  static const CallGrammar grammar{
      .open = "<|tool_calls|>",
      .close = "<|calls|>",
      .call = {{S::kText, "<|tool_call:begin|>"},
               {S::kId},
               {S::kText, "<|tool_call:name|>"},
               {S::kName},
               {S::kText, "<|tool_call:args|>"},
               {S::kArguments},
               {S::kText, "<|tool_call:end|>"}},
  };
  static const ToolParserInfo format{
      .name = "solar_open",
      .aliases = {"solar"},
      .models = "Upstage Solar Open 100B",
      .format = "<|tool_call:begin|>id<|tool_call:name|>f<|tool_call:args|>{…}<|tool_call:end|>",
      .create = MakeSolarOpenParser,
      .grammar = &grammar,
      .detect_markers = {"<|tool_calls|>", "<|tool_call:begin|>"},
      .template_needles = {{240, "<|tool_call:begin|>", ""}},
  };
  return format;
}

}  // namespace crux::parse::tools
