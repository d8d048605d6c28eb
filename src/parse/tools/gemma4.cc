// gemma4 (Gemma 4): `<|tool_call>call:NAME{ARGS}<tool_call|>`, ARGS in Gemma's literal syntax:
// bare keys (or `<|"|>key<|"|>`), strings between `<|"|>` delimiters, bare numbers and
// true/false/null, nested {} and []. Several `call:` may follow each other in one block, and
// every block in the output is parsed (the reference only reads the first). ARGS are converted
// to JSON as they stream: `<|"|>` strings become escaped JSON strings byte by byte; a bare
// value is written when it ends, as a number or literal when it is one, otherwise as a string
// (so `note:hello world` is the string "hello world"; bare words are strings because the
// template omits the delimiters for enum values). JSON "strings" are accepted too.
// Fallback forms real models write, also streamed:
// * `call:NAME(k="v")` inside a block (Python keyword arguments);
// * a stray colon after the opener: `<|tool_call>:call:NAME{…}`;
// * a fenced ```tool_code block of Python calls, one per line (names may be dotted);
// * `tool_code = NAME(k="v")` at the start of the answer or of a line (right after a newline),
//   the `print(tool_code)` that follows it dropped;
// * `call:NAME{…}` (or `(…)`) without the opener, only at the start of the answer: nothing but
//   whitespace before it, or right after `<channel|>` (the end of reasoning, when it reaches
//   this parser); more `call:` and a closing `<tool_call|>` may follow, as in a block;
// * `<call>NAME{…}` (or `(…)`), then an optional `</call>` or `<tool_call|>`.
// A malformed call is returned as content with its markup: in a block or fence up to its end
// marker; in the forms without one at once, from the byte that broke it, so prose that merely
// starts like a call (`a call: …`, `<call> tags`, `my_tool_code = …`) stays content.
#include <memory>
#include <utility>

#include "crux/parse/call_grammar.h"
#include "crux/parse/tools/registry.h"
#include "parse/tools/gemma_args.h"
#include "parse/tools/other_common.h"

namespace crux::parse::tools {
namespace {

constexpr std::string_view kBlockOpen = "<|tool_call>";
constexpr std::string_view kBlockClose = "<tool_call|>";
constexpr std::string_view kCallPrefix = "call:";
constexpr std::string_view kQuote = "<|\"|>";
constexpr std::string_view kFenceOpen = "```tool_code";
constexpr std::string_view kFence = "```";
constexpr std::string_view kCallTag = "<call>";
constexpr std::string_view kCallTagClose = "</call>";
constexpr std::string_view kChannelEnd = "<channel|>";
constexpr std::string_view kToolCode = "tool_code";
constexpr std::string_view kLineToolCode = "\ntool_code";
constexpr std::string_view kPrintToolCode = "print(tool_code)";

const text::MarkerSet& QuoteMarker() {
  static const text::MarkerSet set{kQuote};
  return set;
}

class Gemma4Parser final : public ToolParserCore {
 public:
  explicit Gemma4Parser(const ToolParserOptions& options) : ToolParserCore(options) {}

 private:
  enum class State : uint8_t {
    kOutside,
    kBlockCall,    // inside a block, before a call: `call:` or the end marker
    kName,         // after `call:` (or, fenced, at a name)
    kGemmaArgs,    // {…}
    kPythonArgs,   // (…)
    kAfterCall,    // inside a block, after a call
    kDiscard,      // a malformed call: captured up to the block's end
    kFenceHeader,  // the rest of the ```tool_code line
    kFenceCall,    // fenced: a call or the closing fence
    kAssign,       // after a line's `tool_code`: ` = `, then the call
    kAfterAssign,  // after `tool_code = f(…)`: a `print(tool_code)` line is dropped
    kCallTagEnd,   // after `<call>f{…}`: an optional `</call>` or `<tool_call|>`
  };
  // How the open call was introduced.
  enum class Form : uint8_t {
    kBlock,   // <|tool_call> … <tool_call|>
    kFenced,  // ```tool_code … ```
    kBare,    // call:f{…} at the start of the answer (after <channel|>), no block opener
    kTagged,  // <call>f{…}
    kAssign,  // tool_code = f(…) at the start of a line
  };

  // The markers outside calls. `call:` counts only at the start of the answer, `tool_code` also
  // at the start of a line (`\ntool_code` finds those in running text). While neither can
  // hold, the smaller set keeps their first bytes from being held back; the choice of set
  // changes what is held, never the result.
  static const text::MarkerSet& OutsideMarkers(bool at_start) {
    static const text::MarkerSet late{kBlockOpen, kFenceOpen, kCallTag, kChannelEnd, kLineToolCode};
    static const text::MarkerSet early{kBlockOpen,    kFenceOpen,  kCallTag, kChannelEnd,
                                       kLineToolCode, kCallPrefix, kToolCode};
    return at_start ? early : late;
  }
  static const text::MarkerSet& CallTagEndMarkers() {
    static const text::MarkerSet set{kCallTagClose, kBlockClose};
    return set;
  }
  static const text::MarkerSet& BlockMarkers() {
    static const text::MarkerSet set{kCallPrefix, kBlockClose};
    return set;
  }
  static const text::MarkerSet& DiscardMarkers() {
    static const text::MarkerSet set{kBlockClose, kBlockOpen};
    return set;
  }
  static const text::MarkerSet& FenceMarkers() {
    static const text::MarkerSet set{kFence};
    return set;
  }

  void OnReset() override {
    state_ = State::kOutside;
    form_ = Form::kBlock;
    fence_header_ = 0;
    answer_start_ = true;
    line_start_ = true;
    stray_colon_ = false;
    assign_eq_ = false;
    name_.clear();
  }

  size_t Process(std::string_view text, bool at_end) override {
    return RunSteps(text, [&](std::string_view rest) {
      size_t n = 0;
      switch (state_) {
        case State::kOutside:
          n = OutsideStep(rest, at_end);
          break;
        case State::kBlockCall:
        case State::kAfterCall:
          n = BlockStep(rest, at_end);
          break;
        case State::kName:
          n = NameStep(rest);
          break;
        case State::kGemmaArgs:
          n = GemmaArgsStep(rest, at_end);
          break;
        case State::kPythonArgs:
          n = PythonArgsStep(rest);
          break;
        case State::kDiscard:
          n = DiscardStep(rest, at_end);
          break;
        case State::kFenceHeader:
          n = FenceHeaderStep(rest);
          break;
        case State::kFenceCall:
          n = FenceCallStep(rest, at_end);
          break;
        case State::kAssign:
          n = AssignStep(rest);
          break;
        case State::kAfterAssign:
          n = AfterAssignStep(rest, at_end);
          break;
        case State::kCallTagEnd:
          n = CallTagEndStep(rest, at_end);
          break;
      }
      return n;
    });
  }

  // Answer text: tracks whether the next byte starts the answer (only whitespace so far, or
  // since `<channel|>`) or a line (right after a newline). Indented lines do not count: a
  // marker can only say "a newline right before", and the result must not depend on where
  // the text was cut.
  void PlainText(std::string_view text) {
    if (text.empty()) return;
    Content(text);
    line_start_ = text.back() == '\n';
    if (answer_start_) answer_start_ = text::Trim(text).empty();
  }

  size_t OutsideStep(std::string_view rest, bool at_end) {
    const text::MarkerSet& markers = OutsideMarkers(answer_start_ || line_start_);
    const text::ScanResult hit = markers.Scan(rest, at_end);
    PlainText(rest.substr(0, hit.pos));
    if (hit.status != text::ScanStatus::kFound) return hit.pos == 0 ? kHold : hit.pos;
    const std::string_view marker = markers.marker(hit.id);
    const size_t end = hit.pos + hit.length;
    if (marker == kLineToolCode) {  // the newline is text; `tool_code` is looked at next
      PlainText(marker.substr(0, 1));
      return hit.pos + 1;
    }
    if (marker == kChannelEnd) {  // the end of reasoning left in the text: the answer starts
      PlainText(marker);
      answer_start_ = true;
      return end;
    }
    Form form = Form::kBlock;
    State next = State::kBlockCall;
    if (marker == kFenceOpen) {
      form = Form::kFenced;
      next = State::kFenceHeader;
    } else if (marker == kCallTag) {
      form = Form::kTagged;
      next = State::kName;
    } else if (marker == kCallPrefix || marker == kToolCode) {
      const bool bare = marker == kCallPrefix;
      if (!(answer_start_ || (!bare && line_start_))) {  // mid-sentence: text
        PlainText(marker);
        return end;
      }
      form = bare ? Form::kBare : Form::kAssign;
      next = bare ? State::kName : State::kAssign;
    }
    OpenRegion(marker);
    form_ = form;
    state_ = next;
    name_.clear();
    answer_start_ = line_start_ = false;
    stray_colon_ = form == Form::kBlock;
    assign_eq_ = false;
    return end;
  }

  // After a line's `tool_code`: spaces, `=`, spaces, then the call's name.
  size_t AssignStep(std::string_view rest) {
    const char c = rest[0];
    if (c == ' ' || c == '\t' || (c == '=' && !assign_eq_)) {
      assign_eq_ = assign_eq_ || c == '=';
      Capture(rest.substr(0, 1));
      return 1;
    }
    if (!assign_eq_ || !IsNameStart(c)) return Discard();
    state_ = State::kName;
    return 0;
  }

  // After `tool_code = f(…)`: the `print(tool_code)` that follows it (the template's idiom) is
  // framing and dropped; anything else is answer text.
  size_t AfterAssignStep(std::string_view rest, bool at_end) {
    constexpr size_t kMaxSpace = 8;
    size_t i = 0;
    while (i < rest.size() && i < kMaxSpace && text::IsSpace(rest[i]))
      ++i;
    const std::string_view tail = rest.substr(i);
    if (tail.starts_with(kPrintToolCode)) {
      state_ = State::kOutside;
      return i + kPrintToolCode.size();
    }
    const bool undecided =
        (i == rest.size() && i < kMaxSpace) ||
        (tail.size() < kPrintToolCode.size() && kPrintToolCode.starts_with(tail));
    if (undecided && !at_end) return kHold;
    state_ = State::kOutside;
    return 0;
  }

  // After `<call>f{…}`: its closing `</call>` (or a block's end marker) is framing.
  size_t CallTagEndStep(std::string_view rest, bool at_end) {
    const text::ScanResult hit = ScanAtStart(CallTagEndMarkers(), rest, at_end);
    if (hit.status == text::ScanStatus::kPartial) return kHold;
    state_ = State::kOutside;
    return hit.status == text::ScanStatus::kFound ? hit.length : 0;
  }

  // `rest` starts with a marker of `set`: kFound / kPartial at 0, else kNone.
  static text::ScanResult ScanAtStart(const text::MarkerSet& set, std::string_view rest,
                                      bool at_end) {
    const text::ScanResult hit =
        set.Scan(rest.substr(0, set.max_length()), at_end || rest.size() > set.max_length());
    if (hit.pos != 0) return {};
    return hit;
  }

  // Inside a block, before a call or after one: `call:`, the end marker, or (after a call)
  // anything else, which ends the block.
  size_t BlockStep(std::string_view rest, bool at_end) {
    const bool after_call = state_ == State::kAfterCall;
    if (std::exchange(stray_colon_, false) && rest[0] == ':') {  // `<|tool_call>:call:f{…}`
      Capture(rest.substr(0, 1));
      return 1;
    }
    if (text::IsSpace(rest[0])) {
      if (!after_call) Capture(rest.substr(0, 1));
      return 1;
    }
    const text::ScanResult hit = BlockMarkers().Scan(rest, at_end);
    if (hit.pos == 0 && hit.status == text::ScanStatus::kPartial) return kHold;
    if (hit.pos != 0 || hit.status != text::ScanStatus::kFound) {
      if (!after_call) return Discard();
      state_ = State::kOutside;  // text after the calls without an end marker: content
      return 0;
    }
    if (BlockMarkers().marker(hit.id) == kBlockClose) {
      CloseRegion();  // an empty block is framing only
      state_ = State::kOutside;
      return hit.length;
    }
    if (after_call) OpenRegion({});
    Capture(kCallPrefix);
    name_.clear();
    state_ = State::kName;
    return hit.length;
  }

  // A malformed call. In a block or fence it is captured up to the end marker; a call written
  // without one (bare, `<call>`, `tool_code =`) is given back at once, from the byte that broke
  // it, so prose that merely starts like one is never held.
  size_t Discard() {
    if (form_ == Form::kBlock || form_ == Form::kFenced) {
      state_ = State::kDiscard;
      return 0;
    }
    CancelRegion();
    state_ = State::kOutside;
    return 0;
  }

  size_t NameStep(std::string_view rest) {
    size_t i = 0;
    while (i < rest.size() && IsNameByte(rest[i]) && name_.size() + i < kMaxNameLength)
      ++i;
    name_.append(rest.substr(0, i));
    Capture(rest.substr(0, i));
    if (i == rest.size()) return i;
    const bool python_only = form_ == Form::kFenced || form_ == Form::kAssign;
    if (name_.empty() || (rest[i] != '{' && rest[i] != '(') || (python_only && rest[i] != '(')) {
      return i + Discard();
    }
    if (rest[i] == '{') {
      BeginCall(name_);
      gemma_.Reset();
      state_ = State::kGemmaArgs;
      return i;
    }
    Capture(rest.substr(i, 1));
    python_.Reset();
    state_ = State::kPythonArgs;
    return i + 1;
  }

  size_t GemmaArgsStep(std::string_view rest, bool at_end) {
    size_t n = 0;
    scratch_.clear();
    const GemmaArgs::Status status = gemma_.Feed(rest, at_end, n, scratch_);
    Capture(rest.substr(0, n));
    if (!scratch_.empty()) Args(scratch_);
    if (status == GemmaArgs::Status::kError) return n + Discard();
    if (status == GemmaArgs::Status::kDone) CallDone();
    if (status == GemmaArgs::Status::kNeedMore && n == 0) return kHold;
    return n;
  }

  size_t PythonArgsStep(std::string_view rest) {
    size_t n = 0;
    const PythonArgs::Status status = python_.FeedCall(rest, n, name_, call_begun(), *this);
    Capture(rest.substr(0, n));
    if (status == PythonArgs::Status::kError) return n + Discard();
    if (status == PythonArgs::Status::kDone) CallDone();
    return n;
  }

  void CallDone() {
    EndCall();
    CloseRegion();
    switch (form_) {
      case Form::kFenced:
        state_ = State::kFenceCall;
        break;
      case Form::kBlock:
      case Form::kBare:
        state_ = State::kAfterCall;
        break;
      case Form::kTagged:
        state_ = State::kCallTagEnd;
        break;
      case Form::kAssign:
        state_ = State::kAfterAssign;
        break;
    }
  }

  // Captures a malformed call up to the end of its block (or the next block), then returns it
  // as content.
  size_t DiscardStep(std::string_view rest, bool at_end) {
    const bool fenced = form_ == Form::kFenced;
    const text::MarkerSet& markers = fenced ? FenceMarkers() : DiscardMarkers();
    const text::ScanResult hit = markers.Scan(rest, at_end);
    Capture(rest.substr(0, hit.pos));
    if (hit.status != text::ScanStatus::kFound) return hit.pos == 0 ? kHold : hit.pos;
    const bool close = fenced || markers.marker(hit.id) == kBlockClose;
    if (close) Capture(rest.substr(hit.pos, hit.length));
    CancelRegion();
    state_ = State::kOutside;
    return hit.pos + (close ? hit.length : 0);
  }

  // The rest of the fence's first line, at most kMaxHeader bytes (counted so that the limit
  // falls on the same byte however the text is cut).
  size_t FenceHeaderStep(std::string_view rest) {
    constexpr size_t kMaxHeader = 64;
    const std::string_view window = rest.substr(0, kMaxHeader + 1 - fence_header_);
    const size_t newline = window.find('\n');
    const size_t n = newline == std::string_view::npos ? window.size() : newline + 1;
    fence_header_ += n;
    Capture(rest.substr(0, n));
    if (newline == std::string_view::npos && fence_header_ > kMaxHeader) {
      fence_header_ = 0;
      return n + Discard();
    }
    if (newline != std::string_view::npos) {
      fence_header_ = 0;
      state_ = State::kFenceCall;
    }
    return n;
  }

  // Fenced: the next call (a name), or the closing fence.
  size_t FenceCallStep(std::string_view rest, bool at_end) {
    const bool in_region = region_open();
    if (text::IsSpace(rest[0])) {
      if (in_region) Capture(rest.substr(0, 1));
      return 1;
    }
    const text::ScanResult hit = FenceMarkers().Scan(rest, at_end);
    if (hit.pos == 0 && hit.status == text::ScanStatus::kPartial) return kHold;
    if (hit.pos == 0 && hit.status == text::ScanStatus::kFound) {
      if (in_region) {  // a fence without a call is a code block: content
        Capture(kFence);
        CancelRegion();
      }
      state_ = State::kOutside;
      return hit.length;
    }
    if (!IsNameStart(rest[0])) {
      if (in_region) return Discard();
      state_ = State::kOutside;
      return 0;
    }
    if (!in_region) OpenRegion({});
    name_.clear();
    state_ = State::kName;
    return 0;
  }

  State state_ = State::kOutside;
  Form form_ = Form::kBlock;
  size_t fence_header_ = 0;
  bool answer_start_ = true;  // only whitespace (or `<channel|>`) before: `call:` is a call
  bool line_start_ = true;    // right after a newline: `tool_code =` is a call
  bool stray_colon_ = false;  // right after `<|tool_call>`: one `:` is tolerated
  bool assign_eq_ = false;    // `tool_code =`: the `=` was read
  std::string name_;
  std::string scratch_;
  GemmaArgs gemma_{QuoteMarker()};
  PythonArgs python_;
};

}  // namespace

std::unique_ptr<ToolParser> MakeGemma4ToolParser(const ToolParserOptions& options) {
  return std::make_unique<Gemma4Parser>(options);
}

namespace {

// The arguments object in Gemma literals: {k:<|"|>v<|"|>,n:1}.
void AppendGemma4Arguments(std::string& out, std::string_view json) {
  AppendGemmaLiteral<kQuote>(out, json);
}

}  // namespace

const ToolParserInfo& Gemma4ToolFormat() {
  using S = CallGrammar::Slot;
  static const CallGrammar grammar{
      .call = {{S::kText, "<|tool_call>call:"},
               {S::kName},
               {S::kArguments},
               {S::kText, "<tool_call|>"}},
      .args = CallGrammar::Args::kCustom,
      .argument = {{S::kKey}, {S::kText, ":"}, {S::kValue}},
      .argument_separator = ",",
      .write_arguments = AppendGemma4Arguments,
      .arguments_open = "{",
      .arguments_close = "}",
      .string_quote = kQuote,
  };
  static const ToolParserInfo format{
      .name = "gemma4",
      .aliases = {},
      .models = "Gemma 4",
      .format =
          "<|tool_call>call:f{k:<|\"|>v<|\"|>,n:1}<tool_call|> (also call:f(k=\"v\"), "
          "```tool_code fences)",
      .create = MakeGemma4ToolParser,
      .grammar = &grammar,
      .detect_markers = {"<|tool_call>"},
      .template_needles = {{110, "<|tool_call>call:", ""}},
  };
  return format;
}

}  // namespace crux::parse::tools
