// deepseek_v32 / deepseek_v4 / dsml: DeepSeek V3.2 and V4 ("DSML" markup; `｜` is U+FF5C).
//   <｜DSML｜function_calls>
//   <｜DSML｜invoke name="get_weather">
//   <｜DSML｜parameter name="city" string="true">Oslo</｜DSML｜parameter>
//   <｜DSML｜parameter name="days" string="false">3</｜DSML｜parameter>
//   </｜DSML｜invoke>
//   </｜DSML｜function_calls>
// (templates deepseek-ai-DeepSeek-V3.2; V4 names the block `tool_calls` instead of
// `function_calls`: both are accepted.) String parameters are written as is (no escaping),
// others as JSON. A parameter's type is the tool schema's when it declares one, else
// `string="true"` means a string and anything else JSON (a value that is not valid JSON is
// kept as a string). Strings stream as they arrive; other values are emitted when their
// closing tag arrives. The call begins at its invoke tag; it ends (and is kept) at
// `</｜DSML｜invoke>`. Block markers are dropped; an invoke outside a block is accepted.
// Anything but whitespace between parameters makes the call malformed: it is returned,
// markers included, as content.
// A lone wrapper parameter is unwrapped: when a call's only parameter is `arguments` or
// `input`, the tool's schema declares properties but not that one, and the value is a JSON
// object whose keys the schema declares, that object is the call's arguments (the model put
// the arguments inside one parameter). Such a first parameter is held until the next tag
// tells whether it is the only one.
#include <memory>

#include "crux/parse/call_grammar.h"
#include "crux/parse/tools/registry.h"
#include "parse/tools/tokens_common.h"

namespace crux::parse::tools {
namespace {

constexpr std::string_view kInvoke = "<｜DSML｜invoke";
constexpr std::string_view kInvokeEnd = "</｜DSML｜invoke>";
constexpr std::string_view kParam = "<｜DSML｜parameter";
constexpr std::string_view kParamEnd = "</｜DSML｜parameter>";
constexpr size_t kMaxTag = 1024;

class DsmlParser final : public TokenParser {
 public:
  explicit DsmlParser(const ToolParserOptions& options) : TokenParser(options) {}

 private:
  enum class State : uint8_t { kOutside, kInvokeTag, kBody, kParamTag, kValue, kDiscard };
  enum BodyMarker : int { kParamMarker = 0, kInvokeEndMarker = 1 };

  // Id 0 begins a call; the block markers are dropped.
  static const text::MarkerSet& OutsideMarkers() {
    static const text::MarkerSet set{kInvoke, "<｜DSML｜function_calls>",
                                     "</｜DSML｜function_calls>", "<｜DSML｜tool_calls>",
                                     "</｜DSML｜tool_calls>"};
    return set;
  }
  static const text::MarkerSet& TagEnd() {
    static const text::MarkerSet set{">"};
    return set;
  }
  static const text::MarkerSet& BodyMarkers() {
    static const text::MarkerSet set{kParam, kInvokeEnd};
    return set;
  }
  static const text::MarkerSet& ValueEnd() {
    static const text::MarkerSet set{kParamEnd};
    return set;
  }
  // A malformed call ends at its invoke end (kept in its text) or at the block's end.
  static const text::MarkerSet& DiscardMarkers() {
    static const text::MarkerSet set{kInvokeEnd, "</｜DSML｜function_calls>",
                                     "</｜DSML｜tool_calls>"};
    return set;
  }

  void OnReset() override {
    state_ = State::kOutside;
    held_ = false;
    layout_.Reset();
  }

  // Back to outside text after a call (kept or given back as content).
  void BackOutside() {
    state_ = State::kOutside;
    layout_.AfterCall();
  }

  void EmitArgs() {
    if (!json_.empty()) Args(json_);
    json_.clear();
  }

  size_t Outside(std::string_view rest, bool at_end) {
    const size_t skipped = layout_.Skip(rest);
    rest.remove_prefix(skipped);
    const text::ScanResult hit = OutsideMarkers().Scan(rest, at_end);
    Content(rest.substr(0, hit.pos));
    if (hit.status != text::ScanStatus::kFound) return skipped + hit.pos;
    if (hit.id == 0) {
      OpenRegion(kInvoke);
      tag_.clear();
      state_ = State::kInvokeTag;
    }
    if (hit.id == 1 || hit.id == 3) layout_.Enter();
    if (hit.id == 2 || hit.id == 4) layout_.Leave();
    return skipped + hit.pos + hit.length;
  }

  size_t InvokeTag(std::string_view rest, bool at_end) {
    const ReadResult r = ReadUntil(TagEnd(), rest, at_end, kMaxTag, tag_);
    if (r.too_long || (r.found && !FindAttribute(tag_, "name", name_)) ||
        (r.found && name_.empty())) {
      state_ = State::kDiscard;
    } else if (r.found) {
      BeginCall(name_);
      writer_.Reset();
      state_ = State::kBody;
    }
    return r.consumed;
  }

  size_t Body(std::string_view rest, bool at_end) {
    const size_t n = CaptureSpace(rest);
    if (n == rest.size()) return n;
    const MarkerMatch m = MatchAt(BodyMarkers(), rest.substr(n), at_end);
    if (m.status == MarkerMatch::Status::kWait) return n;
    if (m.status == MarkerMatch::Status::kNo) {
      state_ = State::kDiscard;
      return n;
    }
    Capture(rest.substr(n, m.length));
    if (m.id == kParamMarker) {
      if (held_) ReleaseHeld();
      tag_.clear();
      state_ = State::kParamTag;
    } else {
      if (held_ && !Unwrap()) ReleaseHeld();
      if (!held_) writer_.Close(json_);
      held_ = false;
      EmitArgs();
      CloseRegion();
      BackOutside();
    }
    return n + m.length;
  }

  // Whether the parameter `key_`, the first of the call, may be a wrapper around the
  // arguments: the tool declares properties, and `key_` is not one of them.
  bool MayBeWrapper() const {
    if (writer_.keys() != 0 || (key_ != "arguments" && key_ != "input")) return false;
    const ToolSpec* tool = FindTool(options().tools, name_);
    if (tool == nullptr || tool->params.empty()) return false;
    for (const ToolParam& param : tool->params) {
      if (param.name == key_) return false;
    }
    return true;
  }

  // The held wrapper is the only parameter: its value, when it is a JSON object of declared
  // keys, becomes the arguments. False when it is not.
  bool Unwrap() {
    const std::string_view value = text::Trim(held_value_);
    text::JsonScanner scanner;
    size_t used = 0;
    if (scanner.Feed(value, used) != text::JsonScanner::Status::kDone || used != value.size() ||
        text::JsonTextType(value) != text::JsonType::kObject) {
      return false;
    }
    const ToolSpec* tool = FindTool(options().tools, name_);  // found: see MayBeWrapper
    for (const JsonMember& member : ObjectMembers(value)) {
      bool declared = false;
      for (const ToolParam& param : tool->params) {
        declared = declared || param.name == member.key;
      }
      if (!declared) return false;
    }
    json_.append(value);
    return true;
  }

  // The held parameter is an ordinary one after all: write it as the first parameter.
  void ReleaseHeld() {
    held_ = false;
    writer_.Key(json_, key_);
    value_.Begin(held_type_, json_);
    value_.Text(held_value_, json_);
    value_.End(json_);
    EmitArgs();
  }

  size_t ParamTag(std::string_view rest, bool at_end) {
    const ReadResult r = ReadUntil(TagEnd(), rest, at_end, kMaxTag, tag_);
    if (r.too_long || (r.found && (!FindAttribute(tag_, "name", key_) || key_.empty()))) {
      state_ = State::kDiscard;
    } else if (r.found) {
      std::string_view hint;
      if (FindAttribute(tag_, "string", attr_) && attr_ == "true") hint = "string";
      const ValueType type{EffectiveType(ParamTypeOf(options(), name_, key_), hint),
                           ValueTypeOf(options(), name_, key_).nullable};
      if (MayBeWrapper()) {
        held_ = true;
        held_type_ = type;
        held_value_.clear();
      } else {
        writer_.Key(json_, key_);
        value_.Begin(type, json_);
        EmitArgs();
      }
      state_ = State::kValue;
    }
    return r.consumed;
  }

  size_t Value(std::string_view rest, bool at_end) {
    const text::ScanResult hit = ValueEnd().Scan(rest, at_end);
    Capture(rest.substr(0, hit.pos));
    if (held_) {
      held_value_.append(rest.substr(0, hit.pos));
    } else {
      value_.Text(rest.substr(0, hit.pos), json_);
    }
    if (hit.status == text::ScanStatus::kFound) {
      Capture(kParamEnd);
      if (!held_) value_.End(json_);
      state_ = State::kBody;
    }
    EmitArgs();
    return hit.status == text::ScanStatus::kFound ? hit.pos + hit.length : hit.pos;
  }

  size_t Discard(std::string_view rest, bool at_end) {
    const DiscardResult d = DiscardCall(DiscardMarkers(), rest, at_end);
    if (d.ended) {
      json_.clear();
      held_ = false;
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
        case State::kInvokeTag:
          n = InvokeTag(rest, at_end);
          break;
        case State::kBody:
          n = Body(rest, at_end);
          break;
        case State::kParamTag:
          n = ParamTag(rest, at_end);
          break;
        case State::kValue:
          n = Value(rest, at_end);
          break;
        case State::kDiscard:
          n = Discard(rest, at_end);
          break;
      }
      return n;
    });
  }

  State state_ = State::kOutside;
  std::string tag_;   // attributes of the tag being read
  std::string name_;  // the call's function name
  std::string key_;   // the current parameter
  std::string attr_;
  std::string json_;   // arguments text not yet emitted
  bool held_ = false;  // the first parameter may be a wrapper: its value is held
  ValueType held_type_;
  std::string held_value_;  // its raw text
  ArgsWriter writer_;
  ParamValue value_;
  BlockLayout layout_;
};

}  // namespace

std::unique_ptr<ToolParser> MakeDeepSeekDsmlParser(const ToolParserOptions& options) {
  return std::make_unique<DsmlParser>(options);
}

const ToolParserInfo& DeepseekV32ToolFormat() {
  using S = CallGrammar::Slot;
  static const CallGrammar grammar{
      .open = "<｜DSML｜function_calls>\n",
      .close = "</｜DSML｜function_calls>",
      .call = {{S::kText, "<｜DSML｜invoke name=\""},
               {S::kName},
               {S::kText, "\">\n"},
               {S::kArguments},
               {S::kText, "</｜DSML｜invoke>\n"}},
      .args = CallGrammar::Args::kKeyValue,
      .argument = {{S::kText, "<｜DSML｜parameter name=\""},
                   {S::kKey},
                   {S::kText, "\" string=\""},
                   {S::kIsString},
                   {S::kText, "\">"},
                   {S::kValue},
                   {S::kText, "</｜DSML｜parameter>\n"}},
  };
  static const ToolParserInfo format{
      .name = "deepseek_v32",
      .aliases = {"deepseek_v3.2", "deepseek_v4", "dsml"},
      .models = "DeepSeek V3.2, V3.2-Exp, V4",
      .format =
          "<｜DSML｜function_calls><｜DSML｜invoke name=\"f\"><｜DSML｜parameter name=\"k\" "
          "string=\"true\">v</｜DSML｜parameter></｜DSML｜invoke></｜DSML｜function_calls>",
      .create = MakeDeepSeekDsmlParser,
      .grammar = &grammar,
      .detect_markers = {"<｜DSML｜"},
      .template_needles = {{60, "dsml_token", "DSML"}},
  };
  return format;
}

}  // namespace crux::parse::tools
