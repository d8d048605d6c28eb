// kimi_k3: Moonshot Kimi K3 ("XTML" markup: `<|open|>tag attrs<|sep|>` … `<|close|>tag<|sep|>`).
// The assistant turn is think / response / tools sections (template Kimi-K3):
//   <|open|>response<|sep|>Checking.<|close|>response<|sep|><|open|>tools<|sep|>
//   <|open|>call tool="get_weather" index="1"<|sep|>
//   <|open|>argument key="city" type="string"<|sep|>Oslo<|close|>argument<|sep|>
//   <|open|>argument key="days" type="number"<|sep|>3<|close|>argument<|sep|>
//   <|close|>call<|sep|><|close|>tools<|sep|><|close|>message<|sep|><|end_of_msg|>
// Arguments come one tag per key with the JSON type of the value in `type`; string values
// are raw text, others JSON. Instead of argument tags a call may hold its arguments as one
// JSON object: `<|open|>json type="object"<|sep|>{…}<|close|>json<|sep|>`. Attribute values
// are XML-escaped (&amp; &quot;). A parameter's type is the tool schema's when it declares
// one, else the `type` attribute. Strings stream as they arrive; other values are emitted
// when their closing tag arrives. Ids are generated (`index` is a per-turn counter).
// The response / tools / message wrappers and `<|end_of_msg|>` are dropped from content; the
// think section belongs to the reasoning parser. A call outside a tools section is accepted.
#include <memory>

#include "crux/parse/call_grammar.h"
#include "crux/parse/tools/registry.h"
#include "parse/tools/tokens_common.h"

namespace crux::parse::tools {
namespace {

constexpr std::string_view kCall = "<|open|>call";
constexpr std::string_view kCallEnd = "<|close|>call<|sep|>";
constexpr std::string_view kSep = "<|sep|>";
constexpr std::string_view kArgEnd = "<|close|>argument<|sep|>";
constexpr std::string_view kJsonEnd = "<|close|>json<|sep|>";
constexpr size_t kMaxTag = 1024;

class KimiK3Parser final : public TokenParser {
 public:
  explicit KimiK3Parser(const ToolParserOptions& options) : TokenParser(options) {}

 private:
  enum class State : uint8_t {
    kOutside,
    kCallTag,
    kBody,
    kArgTag,
    kArgValue,
    kJsonTag,
    kJson,
    kAfterJson,
    kDiscard
  };
  enum BodyMarker : int { kArgMarker = 0, kJsonMarker = 1, kCallEndMarker = 2 };

  // Id 0 begins a call; the section wrappers are dropped.
  static const text::MarkerSet& OutsideMarkers() {
    static const text::MarkerSet set{kCall,
                                     "<|open|>tools<|sep|>",
                                     "<|close|>tools<|sep|>",
                                     "<|open|>response<|sep|>",
                                     "<|close|>response<|sep|>",
                                     "<|open|>message role=\"assistant\"<|sep|>",
                                     "<|close|>message<|sep|>",
                                     "<|end_of_msg|>"};
    return set;
  }
  static const text::MarkerSet& SepMarker() {
    static const text::MarkerSet set{kSep};
    return set;
  }
  static const text::MarkerSet& BodyMarkers() {
    static const text::MarkerSet set{"<|open|>argument", "<|open|>json", kCallEnd};
    return set;
  }
  static const text::MarkerSet& ArgEnd() {
    static const text::MarkerSet set{kArgEnd};
    return set;
  }
  static const text::MarkerSet& JsonEnd() {
    static const text::MarkerSet set{kJsonEnd};
    return set;
  }
  static const text::MarkerSet& DiscardMarkers() {
    static const text::MarkerSet set{kCallEnd, "<|close|>tools<|sep|>"};
    return set;
  }

  void OnReset() override { state_ = State::kOutside; }

  void EmitArgs() {
    if (!json_.empty()) Args(json_);
    json_.clear();
  }

  size_t Outside(std::string_view rest, bool at_end) {
    const text::ScanResult hit = OutsideMarkers().Scan(rest, at_end);
    Content(rest.substr(0, hit.pos));
    if (hit.status != text::ScanStatus::kFound) return hit.pos;
    if (hit.id == 0) {
      OpenRegion(kCall);
      tag_.clear();
      state_ = State::kCallTag;
    }
    return hit.pos + hit.length;
  }

  size_t CallTag(std::string_view rest, bool at_end) {
    const ReadResult r = ReadUntil(SepMarker(), rest, at_end, kMaxTag, tag_);
    if (r.too_long || (r.found && (!FindAttribute(tag_, "tool", name_) || name_.empty()))) {
      state_ = State::kDiscard;
    } else if (r.found) {
      BeginCall(name_);
      writer_.Reset();
      json_object_ = false;
      state_ = State::kBody;
    }
    return r.consumed;
  }

  size_t Body(std::string_view rest, bool at_end) {
    const size_t n = CaptureSpace(rest);
    if (n == rest.size()) return n;
    const MarkerMatch m = MatchAt(BodyMarkers(), rest.substr(n), at_end);
    if (m.status == MarkerMatch::Status::kWait) return n;
    // A JSON object holds all the arguments: nothing may come before or after it.
    const bool mixed = json_object_ || (m.id == kJsonMarker && writer_.keys() > 0);
    if (m.status == MarkerMatch::Status::kNo || (m.id != kCallEndMarker && mixed)) {
      state_ = State::kDiscard;
      return n;
    }
    Capture(rest.substr(n, m.length));
    tag_.clear();
    if (m.id == kArgMarker) {
      state_ = State::kArgTag;
    } else if (m.id == kJsonMarker) {
      state_ = State::kJsonTag;
    } else {
      if (!json_object_) writer_.Close(json_);
      EmitArgs();
      CloseRegion();
      state_ = State::kOutside;
    }
    return n + m.length;
  }

  size_t ArgTag(std::string_view rest, bool at_end) {
    const ReadResult r = ReadUntil(SepMarker(), rest, at_end, kMaxTag, tag_);
    if (r.too_long || (r.found && (!FindAttribute(tag_, "key", key_) || key_.empty()))) {
      state_ = State::kDiscard;
    } else if (r.found) {
      if (!FindAttribute(tag_, "type", attr_)) attr_.clear();
      writer_.Key(json_, key_);
      value_.Begin({EffectiveType(ParamTypeOf(options(), name_, key_), attr_),
                    ValueTypeOf(options(), name_, key_).nullable},
                   json_);
      EmitArgs();
      state_ = State::kArgValue;
    }
    return r.consumed;
  }

  size_t ArgValue(std::string_view rest, bool at_end) {
    const text::ScanResult hit = ArgEnd().Scan(rest, at_end);
    Capture(rest.substr(0, hit.pos));
    value_.Text(rest.substr(0, hit.pos), json_);
    if (hit.status == text::ScanStatus::kFound) {
      Capture(kArgEnd);
      value_.End(json_);
      state_ = State::kBody;
    }
    EmitArgs();
    return hit.status == text::ScanStatus::kFound ? hit.pos + hit.length : hit.pos;
  }

  size_t JsonTag(std::string_view rest, bool at_end) {
    const ReadResult r = ReadUntil(SepMarker(), rest, at_end, kMaxTag, tag_);
    if (r.too_long) {
      state_ = State::kDiscard;
    } else if (r.found) {
      scanner_.Reset();
      state_ = State::kJson;
    }
    return r.consumed;
  }

  size_t Json(std::string_view rest) {
    size_t n = 0;
    if (!scanner_.started()) {
      n = CaptureSpace(rest);
      if (n == rest.size()) return n;
      if (rest[n] != '{') {
        state_ = State::kDiscard;
        return n;
      }
    }
    size_t m = 0;
    const auto st = scanner_.Feed(rest.substr(n), m);
    Capture(rest.substr(n, m));
    if (m > 0) Args(rest.substr(n, m));
    if (st == text::JsonScanner::Status::kError) state_ = State::kDiscard;
    if (st == text::JsonScanner::Status::kDone) state_ = State::kAfterJson;
    return n + m;
  }

  size_t AfterJson(std::string_view rest, bool at_end) {
    const size_t n = CaptureSpace(rest);
    if (n == rest.size()) return n;
    const MarkerMatch m = MatchAt(JsonEnd(), rest.substr(n), at_end);
    if (m.status == MarkerMatch::Status::kWait) return n;
    if (m.status == MarkerMatch::Status::kNo) {
      state_ = State::kDiscard;
      return n;
    }
    Capture(kJsonEnd);
    json_object_ = true;
    state_ = State::kBody;
    return n + m.length;
  }

  size_t Discard(std::string_view rest, bool at_end) {
    const DiscardResult d = DiscardCall(DiscardMarkers(), rest, at_end);
    if (d.ended) {
      json_.clear();
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
        case State::kCallTag:
          n = CallTag(rest, at_end);
          break;
        case State::kBody:
          n = Body(rest, at_end);
          break;
        case State::kArgTag:
          n = ArgTag(rest, at_end);
          break;
        case State::kArgValue:
          n = ArgValue(rest, at_end);
          break;
        case State::kJsonTag:
          n = JsonTag(rest, at_end);
          break;
        case State::kJson:
          n = Json(rest);
          break;
        case State::kAfterJson:
          n = AfterJson(rest, at_end);
          break;
        case State::kDiscard:
          n = Discard(rest, at_end);
          break;
      }
      return n;
    });
  }

  State state_ = State::kOutside;
  std::string tag_;
  std::string name_;
  std::string key_;
  std::string attr_;
  std::string json_;
  bool json_object_ = false;  // the call's arguments came as one JSON object
  ArgsWriter writer_;
  ParamValue value_;
  text::JsonScanner scanner_;
};
}  // namespace

std::unique_ptr<ToolParser> MakeKimiK3Parser(const ToolParserOptions& options) {
  return std::make_unique<KimiK3Parser>(options);
}

const ToolParserInfo& KimiK3ToolFormat() {
  using S = CallGrammar::Slot;
  static const CallGrammar grammar{
      .open = "<|open|>tools<|sep|>",
      .close = "<|close|>tools<|sep|><|close|>message<|sep|><|end_of_msg|>",
      .call = {{S::kText, "<|open|>call tool=\""},
               {S::kName},
               {S::kText, "\" index=\""},
               {S::kIndex1},
               {S::kText, "\"<|sep|>"},
               {S::kArguments},
               {S::kText, "<|close|>call<|sep|>"}},
      .args = CallGrammar::Args::kKeyValue,
      .argument = {{S::kText, "<|open|>argument key=\""},
                   {S::kKey},
                   {S::kText, "\" type=\""},
                   {S::kValueType},
                   {S::kText, "\"<|sep|>"},
                   {S::kValue},
                   {S::kText, "<|close|>argument<|sep|>"}},
  };
  static const ToolParserInfo format{
      .name = "kimi_k3",
      .aliases = {},
      .models = "Kimi K3",
      .format =
          "<|open|>tools<|sep|><|open|>call tool=\"f\" index=\"1\"<|sep|><|open|>argument "
          "key=\"k\" type=\"string\"<|sep|>v<|close|>argument<|sep|><|close|>call<|sep|>"
          "<|close|>tools<|sep|>",
      .create = MakeKimiK3Parser,
      .grammar = &grammar,
      .detect_markers = {"<|open|>"},
      .template_needles = {{50, "<|open|>", "<|close|>"}},
  };
  return format;
}

}  // namespace crux::parse::tools
