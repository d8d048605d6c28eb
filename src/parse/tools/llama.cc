// llama / llama3 / llama4 (Llama 3.1–3.3 JSON tool calling, Llama 4 JSON mode). Three forms,
// in any order:
//   <|python_tag|>{"name": "f", "parameters": {…}}; {"name": "g", "parameters": {…}}
//   <|python_tag|>brave_search.call(query="x")        (built-in tools; the name drops ".call")
//   {"name": "f", "parameters": {…}}                   (bare, only at the start of the output)
//   <function=f>{…}</function>                         (legacy)
// An object is a call when it has "name" and "parameters" (or "arguments"); the arguments
// stream as they are generated. A bare object is held only while it can still be a call: its
// first key must be "name" or "type", otherwise everything held is released as content at that
// byte. Several envelopes may follow each other separated by ';'. A malformed call is returned
// as content, markup included; a dangling ';' at the end of the output is dropped.
// Deviations from the reference: arguments must be a JSON object (null → {}); bare calls
// already streamed stay calls even if a later object in the same sequence is not one.
#include <memory>

#include "crux/parse/call_grammar.h"
#include "crux/parse/tools/registry.h"
#include "parse/tools/grammars.h"
#include "parse/tools/other_common.h"

namespace crux::parse::tools {
namespace {

constexpr std::string_view kPythonTag = "<|python_tag|>";
constexpr std::string_view kFunctionOpen = "<function=";
constexpr std::string_view kFunctionCloseTag = "</function>";

// Collects what a JsonCallObject emits during one Feed, so the family can decide (with the key
// tracker) whether to forward it: an envelope without an arguments key is not a Llama call.
struct HeldCall final : CallSink {
  void BeginCall(std::string_view call_name, std::string /*id*/) override {
    begun = true;
    name.assign(call_name);
  }
  void Args(std::string_view fragment) override { args.append(fragment); }
  void EndCall() override { ended = true; }
  void Clear() {
    begun = false;
    ended = false;
    args.clear();
  }
  bool begun = false;
  bool ended = false;
  std::string name;
  std::string args;
};

class LlamaParser final : public ToolParserCore {
 public:
  explicit LlamaParser(const ToolParserOptions& options) : ToolParserCore(options) {}

 private:
  enum class State : uint8_t {
    kStart,           // leading whitespace; a '{' here starts a bare envelope
    kOutside,         // content; scanning for the markers
    kTagBody,         // after <|python_tag|>: an envelope or a built-in call
    kEnvelope,        // inside a JSON envelope
    kAfterCall,       // after an envelope: whitespace, then ';' or content
    kAfterSemicolon,  // after ';': whitespace, then the next envelope
    kBuiltinName,     // <|python_tag|>name.call(
    kBuiltinArgs,
    kFunctionName,  // <function=NAME>
    kFunctionArgs,
    kFunctionClose,
  };

  static const text::MarkerSet& Markers() {
    static const text::MarkerSet set{kPythonTag, kFunctionOpen};
    return set;
  }
  static const text::MarkerSet& CloseMarkers() {
    static const text::MarkerSet set{kFunctionCloseTag};
    return set;
  }

  void OnReset() override {
    state_ = State::kStart;
    pending_.clear();
    name_.clear();
    StartEnvelope(true);
  }

  void OnFinish() override {
    if (state_ == State::kAfterSemicolon) pending_.clear();  // a dangling ';' is syntax
    if (state_ == State::kAfterCall) Content(pending_);
    pending_.clear();
    ToolParserCore::OnFinish();
  }

  void StartEnvelope(bool committed) {
    envelope_.Reset();
    held_.Clear();
    committed_ = committed;
    forwarded_ = false;
  }

  size_t Process(std::string_view text, bool at_end) override {
    return RunSteps(text, [&](std::string_view rest) {
      size_t n = 0;
      switch (state_) {
        case State::kStart:
          n = StartStep(rest);
          break;
        case State::kOutside:
          n = OutsideStep(rest, at_end);
          break;
        case State::kTagBody:
          n = TagBodyStep(rest);
          break;
        case State::kEnvelope:
          n = EnvelopeStep(rest);
          break;
        case State::kAfterCall:
        case State::kAfterSemicolon:
          n = SeparatorStep(rest);
          break;
        case State::kBuiltinName:
        case State::kFunctionName:
          n = NameStep(rest);
          break;
        case State::kBuiltinArgs:
          n = BuiltinArgsStep(rest);
          break;
        case State::kFunctionArgs:
          n = FunctionArgsStep(rest);
          break;
        case State::kFunctionClose:
          n = FunctionCloseStep(rest, at_end);
          break;
      }
      return n;
    });
  }

  // Returned by a step that needs more bytes before it can consume anything.

  size_t StartStep(std::string_view rest) {
    size_t ws = 0;
    while (ws < rest.size() && text::IsSpace(rest[ws]))
      ++ws;
    Content(rest.substr(0, ws));
    if (ws == rest.size()) return ws;
    if (rest[ws] == '{') {
      OpenRegion({});
      StartEnvelope(false);
      state_ = State::kEnvelope;
    } else {
      state_ = State::kOutside;
    }
    return ws;
  }

  size_t OutsideStep(std::string_view rest, bool at_end) {
    const text::ScanResult hit = Markers().Scan(rest, at_end);
    Content(rest.substr(0, hit.pos));
    if (hit.status != text::ScanStatus::kFound) return hit.pos == 0 ? kHold : hit.pos;
    OpenRegion(rest.substr(hit.pos, hit.length));
    if (Markers().marker(hit.id) == kPythonTag) {
      state_ = State::kTagBody;
    } else {
      name_.clear();
      state_ = State::kFunctionName;
    }
    return hit.pos + hit.length;
  }

  size_t TagBodyStep(std::string_view rest) {
    const char c = rest[0];
    if (text::IsSpace(c)) {
      Capture(rest.substr(0, 1));
      return 1;
    }
    if (c == '{') {
      StartEnvelope(true);
      state_ = State::kEnvelope;
      return 0;
    }
    if (IsNameStart(c)) {
      name_.clear();
      state_ = State::kBuiltinName;
      return 0;
    }
    CancelRegion();  // not a call after the tag
    state_ = State::kOutside;
    return 0;
  }

  // Feeds the envelope. While a bare object is not yet committed, one byte at a time, so the
  // release decision falls on the same byte however the text is cut.
  size_t EnvelopeStep(std::string_view rest) {
    const std::string_view piece = committed_ ? rest : rest.substr(0, 1);
    size_t n = 0;
    held_.Clear();
    const JsonCallObject::Status status = envelope_.Feed(piece, n, held_);
    Capture(piece.substr(0, n));
    const JsonKeyTracker& keys = envelope_.tracker();
    if (!committed_) {
      if (keys.no_key() || status == JsonCallObject::Status::kError ||
          !CanStartEnvelope(keys.first_key(), keys.first_key_done())) {
        Release();
        return n;
      }
      if (keys.first_key_done()) committed_ = true;
    }
    Forward();
    if (status == JsonCallObject::Status::kError) {
      Release();
    } else if (status == JsonCallObject::Status::kDone) {
      if (forwarded_) {
        CloseRegion();
        pending_.clear();
        state_ = State::kAfterCall;
      } else {
        Release();  // an object without arguments: not a call
      }
    }
    return n;
  }

  void Forward() {
    if (!forwarded_ && held_.begun && envelope_.tracker().has_args()) {
      BeginCall(held_.name);
      forwarded_ = true;
    }
    if (!forwarded_) return;
    if (!held_.args.empty()) Args(held_.args);
    if (held_.ended) EndCall();
  }

  void Release() {
    CancelRegion();
    state_ = State::kOutside;
  }

  size_t SeparatorStep(std::string_view rest) {
    const char c = rest[0];
    if (text::IsSpace(c)) {
      pending_.push_back(c);
      return 1;
    }
    if (c == ';' && state_ == State::kAfterCall) {
      pending_.push_back(c);
      state_ = State::kAfterSemicolon;
      return 1;
    }
    if (c == '{' && state_ == State::kAfterSemicolon) {
      OpenRegion(pending_);
      pending_.clear();
      StartEnvelope(true);
      state_ = State::kEnvelope;
      return 0;
    }
    Content(pending_);  // not a separator after all
    pending_.clear();
    state_ = State::kOutside;
    return 0;
  }

  // The name of a built-in call (up to '(') or of <function=NAME> (up to '>').
  size_t NameStep(std::string_view rest) {
    const bool builtin = state_ == State::kBuiltinName;
    size_t i = 0;
    while (i < rest.size() && IsNameByte(rest[i]) && name_.size() + i < kMaxNameLength)
      ++i;
    name_.append(rest.substr(0, i));
    Capture(rest.substr(0, i));
    if (i == rest.size()) return i;
    const char end = builtin ? '(' : '>';
    if (rest[i] != end || name_.empty()) {
      Release();
      return i;
    }
    Capture(rest.substr(i, 1));
    if (builtin) {
      constexpr std::string_view kCall = ".call";
      if (name_.size() > kCall.size() && name_.ends_with(kCall)) {
        name_.resize(name_.size() - kCall.size());
      }
      py_args_.Reset();
      state_ = State::kBuiltinArgs;
    } else {
      json_.Reset();
      state_ = State::kFunctionArgs;
    }
    return i + 1;
  }

  size_t BuiltinArgsStep(std::string_view rest) {
    size_t n = 0;
    scratch_.clear();
    const PythonArgs::Status status = py_args_.Feed(rest, n, scratch_);
    Capture(rest.substr(0, n));
    if (!scratch_.empty()) {  // before the error, so the call begins at the same byte always
      if (!call_begun()) BeginCall(name_);
      Args(scratch_);
    }
    if (status == PythonArgs::Status::kError) {
      Release();
      return n;
    }
    if (status == PythonArgs::Status::kDone) {
      EndCall();
      CloseRegion();
      state_ = State::kOutside;
    }
    return n;
  }

  size_t FunctionArgsStep(std::string_view rest) {
    if (!json_.started()) {
      if (text::IsSpace(rest[0])) {
        Capture(rest.substr(0, 1));
        return 1;
      }
      if (rest[0] != '{') {
        Release();
        return 0;
      }
      BeginCall(name_);
    }
    size_t n = 0;
    const text::JsonScanner::Status status = json_.Feed(rest, n);
    Capture(rest.substr(0, n));
    if (n > 0) Args(rest.substr(0, n));
    if (status == text::JsonScanner::Status::kError) {
      Release();
    } else if (status == text::JsonScanner::Status::kDone) {
      EndCall();
      state_ = State::kFunctionClose;
    }
    return n;
  }

  size_t FunctionCloseStep(std::string_view rest, bool at_end) {
    if (text::IsSpace(rest[0])) {
      Capture(rest.substr(0, 1));
      return 1;
    }
    const text::ScanResult hit = CloseMarkers().Scan(rest, at_end);
    if (hit.pos == 0 && hit.status == text::ScanStatus::kPartial) return kHold;
    CloseRegion();  // the call is complete; a missing </function> is tolerated
    state_ = State::kOutside;
    return hit.pos == 0 && hit.status == text::ScanStatus::kFound ? hit.length : 0;
  }

  State state_ = State::kStart;
  TrackedEnvelope envelope_;
  HeldCall held_;
  bool committed_ = true;  // the object is a call attempt (not a bare object still undecided)
  bool forwarded_ = false;
  std::string pending_;  // whitespace and ';' after an envelope, until the next byte decides
  std::string name_;
  std::string scratch_;
  PythonArgs py_args_;
  text::JsonScanner json_;
};

}  // namespace

std::unique_ptr<ToolParser> MakeLlamaParser(const ToolParserOptions& options) {
  return std::make_unique<LlamaParser>(options);
}

// Bare envelopes separated by "; " — the Llama 3.x JSON tool-calling output.

const ToolParserInfo& LlamaToolFormat() {
  static const CallGrammar grammar = Envelopes("", "", "; ", ", \"parameters\": ");

  static const ToolParserInfo format{
      .name = "llama",
      .aliases = {"llama3", "llama4"},
      .models = "Llama 3.1 / 3.2 / 3.3 (JSON tool calling), Llama 4 (JSON mode), Functionary v3.1",
      .format =
          "<|python_tag|>{\"name\": …, \"parameters\": {…}}; … | bare {\"name\": …, "
          "\"parameters\": {…}} at the start | <function=f>{…}</function>",
      .create = MakeLlamaParser,
      .grammar = &grammar,
      .detect_markers = {"<function=", "<|python_tag|>"},
      .template_needles = {{350, "<|python_tag|>", ""},
                           {360, "\"parameters\": dictionary of argument name", ""}},
  };
  return format;
}

}  // namespace crux::parse::tools
