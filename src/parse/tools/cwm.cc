// cwm: Meta Code World Model (facebook/cwm; read from vLLM's cwm tool parser and its tests, a
// PR-branch file, and the later copy of those tests with a shorthand case). A call is a
// "Cursor-style" tool tag whose body starts with the function name, followed by free text:
//   <tool: function>
//   terminal find . -name "*.py" | xargs grep -n "def bulk_create"
//   </tool>
// The label (`function`) is informational. The name is the body's first word; the rest,
// trimmed, is the arguments when it is a JSON object, else the string `{"command": REST}` ("" when
// nothing follows the name). The shorthand `<tool: python import os </tool>` (no `>` after
// the label) makes the label the name and the rest the command. Several calls are several
// tags. Read by the tag engine: `<tool:` … `</tool>` is the container and a custom decoder
// reads its body (TagFamilyDef::custom_start empty: the body itself is the call). A tag whose
// body has no name (or a name with bytes other than [A-Za-z0-9_.-]) is returned as content,
// and so is a tag cut off by the end of the output (its command may be unfinished).
// Deviations from the reference: text after the calls is content (the reference drops it);
// the tag is matched case-sensitively; a JSON array after the name is a command string (the
// reference passes the array as the arguments).
#include <memory>
#include <string>

#include "crux/parse/call_grammar.h"
#include "crux/parse/tools/registry.h"
#include "parse/tools/other_common.h"
#include "parse/tools/tags_common.h"

namespace crux::parse::tools::tags {
namespace {

constexpr std::string_view kOpen = "<tool:";
constexpr std::string_view kClose = "</tool>";
constexpr size_t kMaxLabel = 64;

const text::MarkerSet& CloseMarker() {
  static const text::MarkerSet set{kClose};
  return set;
}

// The body of one `<tool:` tag, from its label up to (not including) `</tool>`.
class CwmDecoder final : public CallDecoder {
 public:
  void Restart() override {
    state_ = State::kLabel;
    label_.clear();
    name_.clear();
    rest_.clear();
  }

  Status Feed(std::string_view text, bool at_end, size_t& consumed, CallSink& sink) override {
    consumed = 0;
    while (consumed < text.size() && state_ != State::kRest) {
      if (text[consumed] == '<') {  // the head ends before a tag (`</tool>` or other text)
        if (state_ == State::kLabel || state_ == State::kAfterLabel) name_ = label_;
        state_ = State::kRest;
        break;
      }
      if (!Head(text[consumed])) return Status::kError;
      ++consumed;
    }
    const text::ScanResult hit = CloseMarker().Scan(text.substr(consumed), at_end);
    rest_.append(text.substr(consumed, hit.pos));
    consumed += hit.pos;
    if (hit.status != text::ScanStatus::kFound) return Status::kNeedMore;
    if (!IsName(name_)) return Status::kError;
    Emit(sink);
    return Status::kDone;
  }

 private:
  enum class State : uint8_t { kLabel, kAfterLabel, kBeforeName, kName, kRest };

  // One byte of the label and the name; false when the tag cannot be a call.
  bool Head(char c) {
    const bool space = text::IsSpace(c);
    switch (state_) {
      case State::kLabel:
        if (c == '>' || space) {
          state_ = c == '>' ? State::kBeforeName : State::kAfterLabel;
          return !label_.empty();
        }
        label_.push_back(c);
        return label_.size() <= kMaxLabel;
      case State::kAfterLabel:
        if (space) return true;
        if (c == '>') {
          state_ = State::kBeforeName;
          return true;
        }
        name_ = label_;  // the shorthand: the label names the call, the rest is its command
        rest_.push_back(c);
        state_ = State::kRest;
        return true;
      case State::kBeforeName:
        if (space) return true;
        state_ = State::kName;
        [[fallthrough]];
      case State::kName:
        if (space) {
          state_ = State::kRest;
          return true;
        }
        name_.push_back(c);
        return IsNameByte(c) && name_.size() <= kMaxNameLength;  // else not a call
      case State::kRest:
        break;
    }
    return true;
  }

  static bool IsName(std::string_view name) {
    for (const char c : name) {
      if (!IsNameByte(c)) return false;
    }
    return !name.empty() && name.size() <= kMaxNameLength;
  }

  // The arguments: the rest when it is a JSON object, else {"command": rest}.
  void Emit(CallSink& sink) {
    const std::string_view rest = text::Trim(rest_);
    sink.BeginCall(name_);
    if (rest.starts_with('{') && IsJsonValue(rest)) {
      sink.Args(rest);
    } else {
      std::string json = "{\"command\": ";
      text::AppendJsonString(json, rest);
      json.push_back('}');
      sink.Args(json);
    }
    sink.EndCall();
  }

  State state_ = State::kLabel;
  std::string label_;
  std::string name_;
  std::string rest_;
};

std::unique_ptr<CallDecoder> MakeDecoder(const ToolParserOptions& /*options*/) {
  return std::make_unique<CwmDecoder>();
}

const TagFamily& Family() {
  static const TagFamily family(TagFamilyDef{
      .container_open = kOpen,
      .container_close = kClose,
      .custom = MakeDecoder,
  });
  return family;
}

}  // namespace

std::unique_ptr<ToolParser> MakeCwmParser(const ToolParserOptions& options) {
  return MakeTagParser(Family(), options);
}

}  // namespace crux::parse::tools::tags

namespace crux::parse::tools {

const ToolParserInfo& CwmToolFormat() {
  using S = CallGrammar::Slot;
  static const CallGrammar grammar{
      .separator = "\n",
      .call = {{S::kText, "<tool: function>\n"},
               {S::kName},
               {S::kText, " "},
               {S::kArguments},
               {S::kText, "\n</tool>"}},
      .arguments_end_at_marker = true,
  };
  static const ToolParserInfo format{
      .name = "cwm",
      // vLLM's tests name the same parser `csm`.
      .aliases = {"csm"},
      .models = "Meta Code World Model (CWM)",
      .format = "<tool: LABEL>\\nf free text or {json}\\n</tool> | <tool: f free text </tool>",
      .create = tags::MakeCwmParser,
      .grammar = &grammar,
      .detect_markers = {"<tool:"},
  };
  return format;
}

}  // namespace crux::parse::tools
