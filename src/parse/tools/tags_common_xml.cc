// XML-style calls of the tag group (see XmlSyntax): names, key/value pairs converted to a JSON
// object on the fly, optional JSON bodies and CDATA values.
//
// Every decision is made at a definite byte (the first byte that breaks the syntax, the byte
// that makes a name too long), so the result never depends on where the deltas were cut.
#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "parse/tools/tags_common.h"

namespace crux::parse::tools::tags {
namespace {

constexpr size_t kMaxName = 256;
constexpr std::string_view kCdataOpen = "<![CDATA[";

size_t CountSpace(std::string_view text) {
  size_t n = 0;
  while (n < text.size() && text::IsSpace(text[n]))
    ++n;
  return n;
}

// Takes the bytes of `part` that may belong to a name or key: up to a newline, a '<', or the
// byte that would make `out` longer than kMaxName. Returns how many were taken.
size_t TakeNameBytes(std::string_view part, std::string& out) {
  size_t n = 0;
  while (n < part.size() && part[n] != '\n' && part[n] != '<' && out.size() + n < kMaxName)
    ++n;
  out.append(part.substr(0, n));
  return n;
}

// Scans for the marker that ends a name or key of `have` bytes so far, looking no further
// than the name could still reach (the bytes after that point cannot change the outcome).
text::ScanResult ScanWindow(const text::MarkerSet& set, std::string_view rest, size_t have,
                            bool at_end) {
  const size_t room = have < kMaxName ? kMaxName - have : 0;
  const size_t window = std::min(rest.size(), room + set.max_length());
  return set.Scan(rest.substr(0, window), at_end || window < rest.size());
}

void TrimInPlace(std::string& s) {
  const std::string_view t = text::Trim(s);
  if (t.size() == s.size()) return;
  s.assign(std::string(t));
}

// Decodes the XML entities &amp; &quot; &lt; &gt; &apos; of `s` (others are kept as written).
void XmlUnescapeInPlace(std::string& s) {
  if (s.find('&') == std::string::npos) return;
  static constexpr std::pair<std::string_view, char> kEntities[] = {
      {"&amp;", '&'}, {"&quot;", '"'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&apos;", '\''}};
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    for (const auto& [entity, ch] : kEntities) {
      if (std::string_view(s).substr(i, entity.size()) == entity) {
        c = ch;
        i += entity.size() - 1;
        break;
      }
    }
    out.push_back(c);
  }
  s.swap(out);
}

// The value of attribute `key` in `attrs` (` key="value"`, as written); empty when absent.
std::string_view AttributeValue(std::string_view attrs, std::string_view key) {
  for (size_t at = attrs.find(key); at != std::string_view::npos; at = attrs.find(key, at + 1)) {
    const size_t eq = at + key.size();
    if (at == 0 || !text::IsSpace(attrs[at - 1]) || attrs.substr(eq, 2) != "=\"") continue;
    const size_t end = attrs.find('"', eq + 2);
    if (end == std::string_view::npos) return {};
    return attrs.substr(eq + 2, end - eq - 2);
  }
  return {};
}

// The JSON type a type attribute names ("string", "number", …); kAny for any other word.
ParamType TypeNamed(std::string_view word) {
  static constexpr std::pair<std::string_view, ParamType> kTypes[] = {
      {"string", ParamType::kString}, {"integer", ParamType::kInteger},
      {"number", ParamType::kNumber}, {"boolean", ParamType::kBoolean},
      {"null", ParamType::kNull},     {"object", ParamType::kObject},
      {"array", ParamType::kArray}};
  for (const auto& [name, type] : kTypes) {
    if (word == name) return type;
  }
  return ParamType::kAny;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Values

bool StreamsAsString(ParamType type, const ValueRules& rules) {
  return type == ParamType::kString ||
         (type == ParamType::kAny && rules.untyped == Untyped::kString);
}

namespace {

// `text` trimmed as a string value of `trim` (whole, not streamed).
std::string_view TrimAsString(std::string_view text, ValueTrim trim) {
  switch (trim) {
    case ValueTrim::kNone:
      return text;
    case ValueTrim::kOneNewline:
      if (!text.empty() && text.front() == '\n') text.remove_prefix(1);
      if (!text.empty() && text.back() == '\n') text.remove_suffix(1);
      return text;
    case ValueTrim::kStrip:
      return text::Trim(text);
  }
  return text;
}

}  // namespace

std::string TypedValue(std::string_view text, ValueType type, const ValueRules& rules) {
  const std::string_view t = text::Trim(text);
  std::string out;
  if (type.nullable && t == "null") return "null";
  if (type.type == ParamType::kString) {
    text::AppendJsonString(out, TrimAsString(text, rules.string_trim));
    return out;
  }
  out = ConvertTyped(t, type.type, rules.untyped == Untyped::kJsonOrPython);
  // A string that the text was not written as (no quotes): the fallback for text that is not
  // a value of the type. It keeps the whitespace a string parameter would keep.
  if (!out.empty() && out[0] == '"' && !t.empty() && t[0] != '"' && t[0] != '\'') {
    out.clear();
    text::AppendJsonString(out, TrimAsString(text, rules.string_trim));
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// XmlCallDecoder

void XmlCallDecoder::Start(const TagFamily::Compiled& syntax, bool in_container) {
  syntax_ = &syntax;
  outer_ = in_container ? 1 : 0;
  state_ = State::kName;
  committed_ = false;
  skip_value_ = false;
  string_value_ = false;
  held_ = false;
  json_done_ = false;
  name_.clear();
  key_.clear();
  attrs_.clear();
  value_.clear();
  keys_.clear();
  writer_.Reset();
  json_.Reset();
}

CallDecoder::Status XmlCallDecoder::Feed(std::string_view text, bool at_end, size_t& consumed,
                                         CallSink& sink) {
  size_t i = 0;
  while (i < text.size()) {
    size_t used = 0;
    const Flow flow = Step(text.substr(i), at_end, used, sink);
    i += used;
    switch (flow) {
      case Flow::kContinue:
        continue;
      case Flow::kWait:
        consumed = i;
        return Status::kNeedMore;
      case Flow::kDone:
        consumed = i;
        return Status::kDone;
      case Flow::kError:
        consumed = i;
        return Status::kError;
    }
  }
  consumed = text.size();
  return Status::kNeedMore;
}

XmlCallDecoder::Flow XmlCallDecoder::Step(std::string_view rest, bool at_end, size_t& used,
                                          CallSink& sink) {
  switch (state_) {
    case State::kName:
      return syntax_->syntax->name_close.empty() ? StepGlmName(rest, used)
                                                 : StepName(rest, at_end, used);
    case State::kBetween:
      return StepBetween(rest, at_end, used, sink);
    case State::kKey:
      return StepKey(rest, at_end, used);
    case State::kAfterKey:
      return StepAfterKey(rest, at_end, used, sink);
    case State::kValueStart:
      return StepValueStart(rest, at_end, used, sink);
    case State::kValue:
      return StepValue(rest, at_end, used, sink);
    case State::kCdata:
      return StepCdata(rest, at_end, used, sink);
    case State::kAfterCdata:
      return StepAfterCdata(rest, at_end, used, sink);
    case State::kAttrs:
      return StepAttrs(rest, at_end, used);
    case State::kJsonStart:
      return StepJsonStart(rest, used, sink);
    case State::kJson:
      return StepJson(rest, used, sink);
    case State::kAfterJson:
      return StepAfterJson(rest, at_end, used, sink);
    case State::kDone:
      break;
  }
  return Flow::kDone;
}

bool XmlCallDecoder::FinishCall(CallSink& sink) {
  if (state_ != State::kAfterJson || !syntax_->syntax->json_close.empty()) return false;
  sink.EndCall();
  state_ = State::kDone;
  return true;
}

XmlCallDecoder::Flow XmlCallDecoder::StepName(std::string_view rest, bool at_end, size_t& used) {
  const text::ScanResult hit = ScanWindow(syntax_->name_close, rest, name_.size(), at_end);
  used = TakeNameBytes(rest.substr(0, hit.pos), name_);
  if (used < hit.pos) return Flow::kError;
  if (hit.status != text::ScanStatus::kFound) return Flow::kWait;
  used += hit.length;
  TrimInPlace(name_);
  if (syntax_->syntax->escaped) XmlUnescapeInPlace(name_);
  if (name_.empty()) return Flow::kError;
  AfterTag(State::kBetween);
  return Flow::kContinue;
}

void XmlCallDecoder::AfterTag(State next) {
  attrs_.clear();
  state_ = syntax_->syntax->tag_close.empty() ? next : State::kAttrs;
  after_attrs_ = next;
}

// A tag's further attributes, up to tag_close.
XmlCallDecoder::Flow XmlCallDecoder::StepAttrs(std::string_view rest, bool at_end, size_t& used) {
  const text::ScanResult hit = ScanWindow(syntax_->tag_close, rest, attrs_.size(), at_end);
  used = TakeNameBytes(rest.substr(0, hit.pos), attrs_);
  if (used < hit.pos) return Flow::kError;
  if (hit.status != text::ScanStatus::kFound) return Flow::kWait;
  used += hit.length;
  state_ = after_attrs_;
  return Flow::kContinue;
}

// GLM: the name runs to a newline (consumed) or to the '<' of the first tag.
XmlCallDecoder::Flow XmlCallDecoder::StepGlmName(std::string_view rest, size_t& used) {
  used = TakeNameBytes(rest, name_);
  if (used == rest.size()) return Flow::kWait;
  if (rest[used] != '\n' && rest[used] != '<') return Flow::kError;  // too long
  if (rest[used] == '\n') ++used;
  TrimInPlace(name_);
  if (name_.empty()) return Flow::kError;
  state_ = State::kBetween;
  return Flow::kContinue;
}

XmlCallDecoder::Flow XmlCallDecoder::StepBetween(std::string_view rest, bool at_end, size_t& used,
                                                 CallSink& sink) {
  used = CountSpace(rest);
  if (used == rest.size()) return Flow::kWait;
  const std::string_view next = rest.substr(used);
  const bool body_may_start = keys_.empty() && !json_done_;
  if (syntax_->syntax->json_body && body_may_start && next[0] == '{') {
    state_ = State::kJsonStart;
    return Flow::kContinue;
  }
  if (!syntax_->syntax->json_open.empty() && body_may_start) {
    const Flow flow = StepJsonOpen(next, at_end, used);
    if (flow != Flow::kError) return flow;
  }
  const text::ScanResult hit = ScanAtStart(syntax_->between[outer_], next, at_end);
  if (hit.status == text::ScanStatus::kNone) return Flow::kError;
  if (hit.status == text::ScanStatus::kPartial) return Flow::kWait;
  if (hit.id == 0 && json_done_) return Flow::kError;  // a JSON body is the only content
  Commit(sink);
  if (hit.id == 0) {               // a key
    if (held_) ReleaseHeld(sink);  // not the only parameter: an ordinary one
    used += hit.length;
    key_.clear();
    state_ = State::kKey;
    return Flow::kContinue;
  }
  if (hit.id == 1) used += hit.length;  // the call's closing tag; a container's stays
  EndCall(sink);
  return Flow::kDone;
}

XmlCallDecoder::Flow XmlCallDecoder::StepKey(std::string_view rest, bool at_end, size_t& used) {
  const text::ScanResult hit = ScanWindow(syntax_->key_close, rest, key_.size(), at_end);
  used = TakeNameBytes(rest.substr(0, hit.pos), key_);
  if (used < hit.pos) return Flow::kError;
  if (hit.status != text::ScanStatus::kFound) return Flow::kWait;
  used += hit.length;
  TrimInPlace(key_);
  if (syntax_->syntax->escaped) XmlUnescapeInPlace(key_);
  if (key_.empty()) return Flow::kError;
  AfterTag(State::kAfterKey);
  return Flow::kContinue;
}

// After the key: whitespace and the value's opening tag, if the syntax has one.
XmlCallDecoder::Flow XmlCallDecoder::StepAfterKey(std::string_view rest, bool at_end, size_t& used,
                                                  CallSink& sink) {
  if (syntax_->syntax->value_open.empty()) {
    StartValue(sink);
    return Flow::kContinue;
  }
  used = CountSpace(rest);
  if (used == rest.size()) return Flow::kWait;
  const text::ScanResult hit = ScanAtStart(syntax_->value_open, rest.substr(used), at_end);
  if (hit.status == text::ScanStatus::kNone) return Flow::kError;
  if (hit.status == text::ScanStatus::kPartial) return Flow::kWait;
  used += hit.length;
  StartValue(sink);
  return Flow::kContinue;
}

// CDATA syntaxes: a value may open with <![CDATA[.
XmlCallDecoder::Flow XmlCallDecoder::StepValueStart(std::string_view rest, bool at_end,
                                                    size_t& used, CallSink& sink) {
  const size_t n = std::min(rest.size(), kCdataOpen.size());
  if (rest.substr(0, n) == kCdataOpen.substr(0, n)) {
    if (n < kCdataOpen.size() && !at_end) return Flow::kWait;
    if (n == kCdataOpen.size()) {
      used = n;
      state_ = State::kCdata;
      if (string_value_ && !skip_value_ && !held_) {  // CDATA is text, never the bare null
        scratch_.clear();
        string_.NotNull(scratch_);
        if (!scratch_.empty()) sink.Args(scratch_);
      }
      return Flow::kContinue;
    }
  }
  state_ = State::kValue;
  return Flow::kContinue;
}

XmlCallDecoder::Flow XmlCallDecoder::StepValue(std::string_view rest, bool at_end, size_t& used,
                                               CallSink& sink) {
  const text::ScanResult hit = syntax_->value_end[outer_].Scan(rest, at_end);
  ValueText(rest.substr(0, hit.pos), sink);
  used = hit.pos;
  if (hit.status != text::ScanStatus::kFound) return Flow::kWait;
  if (hit.id == 0) used += hit.length;  // auto-closing markers are read by kBetween
  EndValue(sink);
  state_ = State::kBetween;
  return Flow::kContinue;
}

XmlCallDecoder::Flow XmlCallDecoder::StepCdata(std::string_view rest, bool at_end, size_t& used,
                                               CallSink& sink) {
  const text::ScanResult hit = syntax_->cdata_close.Scan(rest, at_end);
  ValueText(rest.substr(0, hit.pos), sink);
  used = hit.pos;
  if (hit.status != text::ScanStatus::kFound) return Flow::kWait;
  used += hit.length;
  state_ = State::kAfterCdata;
  return Flow::kContinue;
}

XmlCallDecoder::Flow XmlCallDecoder::StepAfterCdata(std::string_view rest, bool at_end,
                                                    size_t& used, CallSink& sink) {
  used = CountSpace(rest);
  if (used == rest.size()) return Flow::kWait;
  const text::ScanResult hit = ScanAtStart(syntax_->value_end[outer_], rest.substr(used), at_end);
  if (hit.status == text::ScanStatus::kNone) return Flow::kError;
  if (hit.status == text::ScanStatus::kPartial) return Flow::kWait;
  if (hit.id == 0) used += hit.length;
  EndValue(sink);
  state_ = State::kBetween;
  return Flow::kContinue;
}

// At a JSON body's own open tag: kError when `next` does not start with it (it may be a key).
XmlCallDecoder::Flow XmlCallDecoder::StepJsonOpen(std::string_view next, bool at_end,
                                                  size_t& used) {
  const text::ScanResult hit = ScanAtStart(syntax_->json_open, next, at_end);
  if (hit.status == text::ScanStatus::kNone) return Flow::kError;
  if (hit.status == text::ScanStatus::kPartial) return Flow::kWait;
  used += hit.length;
  AfterTag(State::kJsonStart);
  return Flow::kContinue;
}

// Whitespace, then the `{` of a JSON body.
XmlCallDecoder::Flow XmlCallDecoder::StepJsonStart(std::string_view rest, size_t& used,
                                                   CallSink& sink) {
  used = CountSpace(rest);
  if (used == rest.size()) return Flow::kWait;
  if (rest[used] != '{') return Flow::kError;
  Commit(sink);
  json_.Reset();
  state_ = State::kJson;
  return Flow::kContinue;
}

XmlCallDecoder::Flow XmlCallDecoder::StepJson(std::string_view rest, size_t& used, CallSink& sink) {
  const auto status = json_.Feed(rest, used);
  if (status == text::JsonScanner::Status::kError) return Flow::kError;
  if (used > 0) sink.Args(rest.substr(0, used));
  if (status == text::JsonScanner::Status::kDone) state_ = State::kAfterJson;
  return status == text::JsonScanner::Status::kDone ? Flow::kContinue : Flow::kWait;
}

XmlCallDecoder::Flow XmlCallDecoder::StepAfterJson(std::string_view rest, bool at_end, size_t& used,
                                                   CallSink& sink) {
  used = CountSpace(rest);
  if (used == rest.size()) return Flow::kWait;
  const text::ScanResult hit = ScanAtStart(syntax_->after_json[outer_], rest.substr(used), at_end);
  if (hit.status == text::ScanStatus::kNone) return Flow::kError;
  if (hit.status == text::ScanStatus::kPartial) return Flow::kWait;
  if (hit.id == 0) used += hit.length;
  json_done_ = true;
  if (!syntax_->syntax->json_close.empty()) {  // then the call's closing tag
    state_ = State::kBetween;
    return Flow::kContinue;
  }
  EndCall(sink);
  return Flow::kDone;
}

void XmlCallDecoder::Commit(CallSink& sink) {
  if (committed_) return;
  committed_ = true;
  sink.BeginCall(name_);
}

// The type the key's tag names (kAny when it names none).
ParamType XmlCallDecoder::AttributeType() const {
  const XmlSyntax& s = *syntax_->syntax;
  if (s.type_attribute.empty()) return ParamType::kAny;
  const std::string_view value = AttributeValue(attrs_, s.type_attribute);
  if (!s.type_flag) return TypeNamed(value);
  return value == "true" ? ParamType::kString : ParamType::kAny;
}

// Whether the current key, the call's first, may be a lone wrapper (see ValueRules).
bool XmlCallDecoder::IsLoneWrapper() const {
  if (std::find(rules_.lone_wrappers.begin(), rules_.lone_wrappers.end(), key_) ==
      rules_.lone_wrappers.end()) {
    return false;
  }
  const ToolSpec* tool = FindTool(options_.tools, name_);
  if (tool == nullptr || tool->params.empty()) return false;
  return std::none_of(tool->params.begin(), tool->params.end(),
                      [&](const ToolParam& param) { return param.name == key_; });
}

// Whether the lone wrapper's `value` is a JSON object of keys the tool declares.
bool XmlCallDecoder::IsWrappedArguments(std::string_view value) const {
  text::JsonScanner scanner;
  size_t used = 0;
  if (scanner.Feed(value, used) != text::JsonScanner::Status::kDone || used != value.size() ||
      text::JsonTextType(value) != text::JsonType::kObject) {
    return false;
  }
  const ToolSpec* tool = FindTool(options_.tools, name_);  // found: see IsLoneWrapper
  for (const JsonMember& member : ObjectMembers(value)) {
    if (std::none_of(tool->params.begin(), tool->params.end(),
                     [&](const ToolParam& param) { return param.name == member.key; })) {
      return false;
    }
  }
  return true;
}

void XmlCallDecoder::StartValue(CallSink& sink) {
  type_ = ValueTypeOf(options_, name_, key_);
  if (type_.type == ParamType::kAny) type_.type = AttributeType();
  skip_value_ = !keys_.insert(key_).second;  // a repeated key: the first value wins
  string_value_ = StreamsAsString(type_.type, rules_);
  held_ = !skip_value_ && keys_.size() == 1 && IsLoneWrapper();
  value_.clear();
  state_ = syntax_->syntax->cdata ? State::kValueStart : State::kValue;
  if (!skip_value_ && !held_) OpenValue(sink);
}

// Writes the current key and, for a string, the value's opening.
void XmlCallDecoder::OpenValue(CallSink& sink) {
  scratch_.clear();
  writer_.Key(scratch_, key_);
  if (string_value_) string_.Start(rules_.string_trim, type_.nullable, scratch_);
  sink.Args(scratch_);
}

// The held first parameter is an ordinary one after all: writes it whole.
void XmlCallDecoder::ReleaseHeld(CallSink& sink) {
  held_ = false;
  OpenValue(sink);
  if (string_value_) ValueText(value_, sink);  // streams; value_ is left as it is
  EndValue(sink);
}

void XmlCallDecoder::ValueText(std::string_view text, CallSink& sink) {
  if (skip_value_ || text.empty()) return;
  if (!string_value_ || held_) {
    value_.append(text);
    return;
  }
  scratch_.clear();
  string_.Append(text, scratch_);
  if (!scratch_.empty()) sink.Args(scratch_);
}

void XmlCallDecoder::EndValue(CallSink& sink) {
  if (skip_value_ || held_) return;
  scratch_.clear();
  if (string_value_) {
    string_.End(scratch_);
  } else {
    scratch_ = TypedValue(value_, type_, rules_);
  }
  sink.Args(scratch_);
}

void XmlCallDecoder::EndCall(CallSink& sink) {
  bool whole = json_done_;  // the arguments are written already
  if (held_) {              // the only parameter: a lone wrapper?
    const std::string_view value = text::Trim(value_);
    whole = IsWrappedArguments(value);
    if (whole) {
      held_ = false;
      sink.Args(value);
    } else {
      ReleaseHeld(sink);
    }
  }
  if (!whole) {
    scratch_.clear();
    writer_.Close(scratch_);
    sink.Args(scratch_);
  }
  sink.EndCall();
  state_ = State::kDone;
}

}  // namespace crux::parse::tools::tags
