// kimi / kimi_k2 / moonshot / kimi_k2_thinking: Moonshot Kimi K2 (Instruct, 0905, Thinking).
//   <|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0
//   <|tool_call_argument_begin|>{"city": "Oslo"}<|tool_call_end|><|tool_calls_section_end|>
// (templates moonshotai-Kimi-K2, Kimi-K2-Instruct, Kimi-K2-Thinking: the tool-call format is
// the same; Thinking differs only in its reasoning, which the reasoning parser handles.)
// The model writes its own call id, `functions.NAME:IDX`; it is used as the call id (the
// templates send it back as `## Return of functions.NAME:IDX`), and the name is the part
// after the last '.' without the `:IDX` suffix. The section markers (also the singular
// `<|tool_call_section_begin|>` spelling) are dropped; a call outside a section is accepted.
// Empty arguments (`<|tool_call_argument_begin|><|tool_call_end|>`) are `{}`; anything else
// must be a JSON object, else the call is returned as content. Text after the section is
// content (the reference drops it).
#include <memory>

#include "crux/parse/call_grammar.h"
#include "crux/parse/tools/registry.h"
#include "parse/tools/tokens_common.h"

namespace crux::parse::tools {
namespace {

constexpr std::string_view kCallBegin = "<|tool_call_begin|>";
constexpr std::string_view kArgsBegin = "<|tool_call_argument_begin|>";
constexpr std::string_view kCallEnd = "<|tool_call_end|>";
constexpr size_t kMaxId = 256;

class KimiParser final : public TokenParser {
 public:
  explicit KimiParser(const ToolParserOptions& options) : TokenParser(options) {}

 private:
  enum class State : uint8_t { kOutside, kId, kArgs, kAfterArgs, kDiscard };

  // Id 0 begins a call; section markers and stray call markers are dropped.
  static const text::MarkerSet& OutsideMarkers() {
    static const text::MarkerSet set{kCallBegin,
                                     "<|tool_calls_section_begin|>",
                                     "<|tool_call_section_begin|>",
                                     "<|tool_calls_section_end|>",
                                     "<|tool_call_section_end|>",
                                     kCallEnd,
                                     kArgsBegin};
    return set;
  }
  static const text::MarkerSet& IdMarkers() {
    static const text::MarkerSet set{kArgsBegin, kCallEnd, kCallBegin};
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

  void OnReset() override {
    state_ = State::kOutside;
    layout_.Reset();
  }

  // Back to outside text after a call (kept or given back as content).
  void BackOutside() {
    state_ = State::kOutside;
    layout_.AfterCall();
  }

  // "functions.get_weather:0" → "get_weather". Without the "functions." prefix, the part
  // after the last '.' (as the reference); with it, dots in the name are kept.
  static std::string_view NameOf(std::string_view id) {
    const size_t colon = id.rfind(':');
    if (colon != std::string_view::npos && colon + 1 < id.size() &&
        id.find_first_not_of("0123456789", colon + 1) == std::string_view::npos) {
      id = id.substr(0, colon);
    }
    constexpr std::string_view kPrefix = "functions.";
    if (id.substr(0, kPrefix.size()) == kPrefix) return id.substr(kPrefix.size());
    const size_t dot = id.rfind('.');
    return dot == std::string_view::npos ? id : id.substr(dot + 1);
  }

  size_t Outside(std::string_view rest, bool at_end) {
    const size_t skipped = layout_.Skip(rest);
    rest.remove_prefix(skipped);
    const text::ScanResult hit = OutsideMarkers().Scan(rest, at_end);
    Content(rest.substr(0, hit.pos));
    if (hit.status != text::ScanStatus::kFound) return skipped + hit.pos;
    if (hit.id == 0) {
      OpenRegion(kCallBegin);
      id_.clear();
      state_ = State::kId;
    }
    if (hit.id == 1 || hit.id == 2) layout_.Enter();
    if (hit.id == 3 || hit.id == 4) layout_.Leave();
    return skipped + hit.pos + hit.length;
  }

  size_t Id(std::string_view rest, bool at_end) {
    const text::ScanResult hit = IdMarkers().Scan(rest, at_end);
    id_.append(rest.substr(0, hit.pos));
    Capture(rest.substr(0, hit.pos));
    if (id_.size() > kMaxId || (hit.status == text::ScanStatus::kFound && hit.id != 0)) {
      state_ = State::kDiscard;
      return hit.pos;
    }
    if (hit.status != text::ScanStatus::kFound) return hit.pos;
    Capture(kArgsBegin);
    const std::string_view id = text::Trim(id_);
    const std::string_view name = text::Trim(NameOf(id));
    if (name.empty()) {
      state_ = State::kDiscard;
    } else {
      args_.Start(name, id);
      state_ = State::kArgs;
    }
    return hit.pos + hit.length;
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
        BackOutside();
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

  // After the object: whitespace, then the end marker; anything else ends the call (its
  // arguments are complete) and is read as outside text.
  size_t AfterArgs(std::string_view rest, bool at_end) {
    const size_t n = CaptureSpace(rest);
    if (n == rest.size()) return n;
    const MarkerMatch m = MatchAt(EndMarker(), rest.substr(n), at_end);
    if (m.status == MarkerMatch::Status::kWait) return n;
    if (m.status == MarkerMatch::Status::kFound) Capture(kCallEnd);
    CloseRegion();
    BackOutside();
    return m.status == MarkerMatch::Status::kFound ? n + m.length : n;
  }

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
        case State::kId:
          n = Id(rest, at_end);
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
  JsonArgs args_;
  BlockLayout layout_;
};

}  // namespace

std::unique_ptr<ToolParser> MakeKimiParser(const ToolParserOptions& options) {
  return std::make_unique<KimiParser>(options);
}

const ToolParserInfo& KimiToolFormat() {
  using S = CallGrammar::Slot;
  static const CallGrammar grammar{
      .open = "<|tool_calls_section_begin|>",
      .close = "<|tool_calls_section_end|>",
      .call = {{S::kText, "<|tool_call_begin|>functions."},
               {S::kName},
               {S::kText, ":"},
               {S::kIndex},
               {S::kText, "<|tool_call_argument_begin|>"},
               {S::kArguments},
               {S::kText, "<|tool_call_end|>"}},
  };
  static const ToolParserInfo format{
      .name = "kimi",
      .aliases = {"kimi_k2", "moonshot", "kimi_k2_thinking"},
      .models = "Kimi K2 Instruct, K2-0905, K2 Thinking",
      .format =
          "<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>"
          "{…}"
          "<|tool_call_end|><|tool_calls_section_end|>",
      .create = MakeKimiParser,
      .grammar = &grammar,
      .detect_markers = {"<|tool_calls_section_begin|>", "<|tool_call_section_begin|>",
                         "<|tool_call_begin|>"},
      .template_needles = {{40, "<|tool_calls_section_begin|>", ""}},
  };
  return format;
}

}  // namespace crux::parse::tools
