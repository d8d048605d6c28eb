// muse_glimmer / atem (Muse Glimmer's ATEM protocol). The assistant turn is a series of
// messages `<|start|>assistant to=RECIPIENT<|message|>BODY` ended by `<|eom|>` (more follow) or
// `<|eot|>`; the generation prompt ends with `<|start|>assistant`, so the output starts with
// ` to=RECIPIENT<|message|>`. Recipient `self` is chain of thought (emitted as reasoning
// events, blocks joined by "\n"), `user` the answer (content); a message to a tool carries
//   <atem:function_calls>
//   <atem:invoke name="get_weather">
//   <atem:parameter name="city">Paris</atem:parameter>
//   </atem:invoke>
//   </atem:function_calls>
// Parameter values are written as is for strings and scalars and as JSON for lists and
// objects; they are typed by the tool's schema: string parameters stream as escaped JSON text
// as they arrive (spaces kept), others are converted when their closing tag arrives
// (ConvertValue). A call block is recognised in any message; framing tokens and headers never
// reach content. A malformed block is returned as content up to its end tag.
// A channel format: this parser also runs for the `muse_glimmer` / `atem` reasoning parser
// names (src/parse/reasoning/channel.cc, crux/parse/chain.h).
#include <memory>

#include "crux/parse/call_grammar.h"
#include "crux/parse/tools/registry.h"
#include "parse/tools/other_common.h"
#include "parse/tools/string_value.h"

namespace crux::parse::tools {
namespace {

enum FrameId : int { kStart = 0, kMessage, kEom, kEot, kBlockOpen };
enum TagId : int { kInvokeOpen = 0, kParamOpen, kInvokeClose, kBlockClose };

constexpr std::string_view kBlockOpenTag = "<atem:function_calls>";
constexpr std::string_view kParamClose = "</atem:parameter>";
constexpr size_t kMaxHeader = 256;

class MuseGlimmerParser final : public ToolParserCore {
 public:
  explicit MuseGlimmerParser(const ToolParserOptions& options) : ToolParserCore(options) {}

 private:
  enum class State : uint8_t {
    kStart,       // the output may open with a header (` to=…<|message|>`)
    kHeader,      // between <|start|> and <|message|>
    kBody,        // message text
    kBlock,       // inside <atem:function_calls>: an invoke or the end tag
    kInvokeName,  // <atem:invoke name="…">
    kInvoke,      // inside an invoke: a parameter or the end tag
    kParamName,   // <atem:parameter name="…">
    kParamValue,
    kDiscard,
  };

  static const text::MarkerSet& FrameMarkers() {
    static const text::MarkerSet set{"<|start|>", "<|message|>", "<|eom|>", "<|eot|>",
                                     kBlockOpenTag};
    return set;
  }
  static const text::MarkerSet& Tags() {
    static const text::MarkerSet set{"<atem:invoke name=\"", "<atem:parameter name=\"",
                                     "</atem:invoke>", "</atem:function_calls>"};
    return set;
  }
  static const text::MarkerSet& ParamClose() {
    static const text::MarkerSet set{kParamClose};
    return set;
  }
  static const text::MarkerSet& BlockClose() {
    static const text::MarkerSet set{"</atem:function_calls>"};
    return set;
  }

  void OnReset() override {
    state_ = State::kStart;
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
        case State::kStart:
          n = StartStep(rest, at_end);
          break;
        case State::kHeader:
        case State::kBody:
          n = FrameStep(rest, at_end);
          break;
        case State::kBlock:
        case State::kInvoke:
          n = TagStep(rest, at_end);
          break;
        case State::kInvokeName:
        case State::kParamName:
          n = AttributeStep(rest);
          break;
        case State::kParamValue:
          n = ValueStep(rest, at_end);
          break;
        case State::kDiscard:
          n = DiscardStep(rest, at_end);
          break;
      }
      return n;
    });
  }

  size_t StartStep(std::string_view rest, bool at_end) {
    for (const std::string_view lead : {std::string_view(" to="), std::string_view("to=")}) {
      if (rest.starts_with(lead)) {
        state_ = State::kHeader;
        return 0;
      }
      if (!at_end && rest.size() < lead.size() && lead.starts_with(rest)) return kHold;
    }
    state_ = State::kBody;
    return 0;
  }

  size_t FrameStep(std::string_view rest, bool at_end) {
    const text::ScanResult hit = FrameMarkers().Scan(rest, at_end);
    Text(rest.substr(0, hit.pos));
    if (hit.status != text::ScanStatus::kFound) return hit.pos == 0 ? kHold : hit.pos;
    switch (hit.id) {
      case kStart:
        header_.clear();
        state_ = State::kHeader;
        break;
      case kMessage:
        if (state_ == State::kHeader) OpenMessage();
        break;  // stray: framing
      case kEom:
      case kEot:
        header_.clear();
        reasoning_body_ = false;
        state_ = State::kBody;
        break;
      default:  // <atem:function_calls>
        if (state_ == State::kHeader) ReleaseHeader();
        OpenRegion(kBlockOpenTag);
        state_ = State::kBlock;
        break;
    }
    return hit.pos + hit.length;
  }

  void Text(std::string_view text) {
    if (text.empty()) return;
    if (state_ == State::kHeader) {
      header_.append(text);
      if (header_.size() > kMaxHeader) ReleaseHeader();
    } else if (reasoning_body_) {
      scratch_.clear();
      reasoning_.Append(text, scratch_);
      out().Reasoning(scratch_);
    } else {
      Content(text);
    }
  }

  void ReleaseHeader() {  // not a header after all
    Content(header_);
    header_.clear();
    reasoning_body_ = false;
    state_ = State::kBody;
  }

  void OpenMessage() {
    const size_t to = header_.find("to=");
    std::string_view recipient;
    if (to != std::string::npos) recipient = text::Trim(std::string_view(header_).substr(to + 3));
    reasoning_body_ = recipient == "self";
    if (reasoning_body_) reasoning_.StartPart("\n");
    header_.clear();
    state_ = State::kBody;
  }

  // At a tag inside a block (after whitespace).
  size_t TagStep(std::string_view rest, bool at_end) {
    if (text::IsSpace(rest[0])) {
      if (region_open()) Capture(rest.substr(0, 1));
      return 1;
    }
    const text::ScanResult hit = Tags().Scan(rest, at_end);
    if (hit.pos == 0 && hit.status == text::ScanStatus::kPartial) return kHold;
    const bool in_invoke = state_ == State::kInvoke;
    const bool expected = hit.pos == 0 && hit.status == text::ScanStatus::kFound &&
                          (in_invoke ? (hit.id == kParamOpen || hit.id == kInvokeClose)
                                     : (hit.id == kInvokeOpen || hit.id == kBlockClose));
    if (!expected) return Discard();
    const std::string_view tag = rest.substr(0, hit.length);
    if (hit.id == kBlockClose) {
      if (region_open()) CloseRegion();
      state_ = State::kBody;
      return hit.length;
    }
    if (!region_open()) OpenRegion({});
    Capture(tag);
    attribute_.clear();
    if (hit.id == kInvokeOpen) {
      state_ = State::kInvokeName;
    } else if (hit.id == kParamOpen) {
      state_ = State::kParamName;
    } else {  // </atem:invoke>
      scratch_.clear();
      writer_.Close(scratch_);
      Args(scratch_);
      EndCall();
      CloseRegion();
      state_ = State::kBlock;
    }
    return hit.length;
  }

  size_t Discard() {
    state_ = State::kDiscard;
    if (!region_open()) OpenRegion({});
    return 0;
  }

  // The value of a name attribute, then `">`.
  size_t AttributeStep(std::string_view rest) {
    size_t i = 0;
    while (i < rest.size() && IsNameByte(rest[i]) && attribute_.size() + i < kMaxNameLength)
      ++i;
    attribute_.append(rest.substr(0, i));
    Capture(rest.substr(0, i));
    if (i == rest.size()) return i;
    if (rest[i] != '"' || attribute_.empty()) return i + Discard();
    if (i + 1 == rest.size()) return i == 0 ? kHold : i;  // the '>' decides
    if (rest[i + 1] != '>') return i + Discard();
    Capture(rest.substr(i, 2));
    if (state_ == State::kInvokeName) {
      name_ = attribute_;
      writer_.Reset();
      BeginCall(name_);
      state_ = State::kInvoke;
    } else {
      scratch_.clear();
      writer_.Key(scratch_, attribute_);
      value_.Begin(ValueTypeOf(options(), name_, attribute_), scratch_);
      Args(scratch_);
      state_ = State::kParamValue;
    }
    return i + 2;
  }

  size_t ValueStep(std::string_view rest, bool at_end) {
    const text::ScanResult hit = ParamClose().Scan(rest, at_end);
    const std::string_view part = rest.substr(0, hit.pos);
    Capture(part);
    scratch_.clear();
    value_.Text(part, scratch_);
    if (hit.status == text::ScanStatus::kFound) {
      Capture(kParamClose);
      value_.End(scratch_);
      state_ = State::kInvoke;
    }
    if (!scratch_.empty()) Args(scratch_);
    if (hit.status == text::ScanStatus::kFound) return hit.pos + hit.length;
    return hit.pos == 0 ? kHold : hit.pos;
  }

  // A malformed block: captured up to its end tag, then returned as content.
  size_t DiscardStep(std::string_view rest, bool at_end) {
    const text::ScanResult hit = BlockClose().Scan(rest, at_end);
    Capture(rest.substr(0, hit.pos));
    if (hit.status != text::ScanStatus::kFound) return hit.pos == 0 ? kHold : hit.pos;
    Capture(rest.substr(hit.pos, hit.length));
    CancelRegion();
    state_ = State::kBody;
    return hit.pos + hit.length;
  }

  State state_ = State::kStart;
  bool reasoning_body_ = false;
  std::string header_;
  std::string name_;
  std::string attribute_;
  ParamValue value_;
  std::string scratch_;
  ArgsWriter writer_;
  text::TrimStream reasoning_;
};

}  // namespace

std::unique_ptr<ToolParser> MakeMuseGlimmerParser(const ToolParserOptions& options) {
  return std::make_unique<MuseGlimmerParser>(options);
}

const ToolParserInfo& MuseGlimmerToolFormat() {
  using S = CallGrammar::Slot;
  static const CallGrammar grammar{
      .close = "<|eot|>",
      .separator = "<|eom|><|start|>assistant",
      .call = {{S::kText, " to="},
               {S::kName},
               {S::kText, "<|message|><atem:function_calls>\n<atem:invoke name=\""},
               {S::kName},
               {S::kText, "\">\n"},
               {S::kArguments},
               {S::kText, "</atem:invoke>\n</atem:function_calls>"}},
      .args = CallGrammar::Args::kKeyValue,
      .argument = {{S::kText, "<atem:parameter name=\""},
                   {S::kKey},
                   {S::kText, "\">"},
                   {S::kValue},
                   {S::kText, "</atem:parameter>\n"}},
  };
  static const ToolParserInfo format{
      .name = "muse_glimmer",
      .aliases = {"atem", "muse"},
      .models = "Muse Glimmer (ATEM)",
      .format =
          " to=f<|message|><atem:function_calls><atem:invoke name=\"f\"><atem:parameter "
          "name=\"k\">v</atem:parameter></atem:invoke></atem:function_calls><|eom|>",
      .create = MakeMuseGlimmerParser,
      .grammar = &grammar,
      .detect_markers = {"<|start|>", "<atem:function_calls>"},
      .template_needles = {{20, "<atem:function_calls>", ""}},
      .channel = true,
  };
  return format;
}

}  // namespace crux::parse::tools
