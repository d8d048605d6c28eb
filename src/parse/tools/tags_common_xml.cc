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
  name_.clear();
  key_.clear();
  value_.clear();
  keys_.clear();
  writer_.Reset();
  json_.Reset();
}

CallDecoder::Status XmlCallDecoder::Feed(std::string_view text, bool at_end, size_t& consumed,
                                         CallSink& sink) {
  size_t i = 0;
  while (i < text.size()) {
    const std::string_view rest = text.substr(i);
    size_t used = 0;
    Flow flow = Flow::kContinue;
    switch (state_) {
      case State::kName:
        flow = syntax_->syntax->name_close.empty() ? StepGlmName(rest, used)
                                                   : StepName(rest, at_end, used);
        break;
      case State::kBetween:
        flow = StepBetween(rest, at_end, used, sink);
        break;
      case State::kKey:
        flow = StepKey(rest, at_end, used);
        break;
      case State::kAfterKey:
        flow = StepAfterKey(rest, at_end, used, sink);
        break;
      case State::kValueStart:
        flow = StepValueStart(rest, at_end, used, sink);
        break;
      case State::kValue:
        flow = StepValue(rest, at_end, used, sink);
        break;
      case State::kCdata:
        flow = StepCdata(rest, at_end, used, sink);
        break;
      case State::kAfterCdata:
        flow = StepAfterCdata(rest, at_end, used, sink);
        break;
      case State::kJson:
        flow = StepJson(rest, used, sink);
        break;
      case State::kAfterJson:
        flow = StepAfterJson(rest, at_end, used, sink);
        break;
      case State::kDone:
        flow = Flow::kDone;
        break;
    }
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

bool XmlCallDecoder::FinishCall(CallSink& sink) {
  if (state_ != State::kAfterJson) return false;
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
  if (name_.empty()) return Flow::kError;
  state_ = State::kBetween;
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
  if (syntax_->syntax->json_body && keys_.empty() && next[0] == '{') {
    Commit(sink);
    json_.Reset();
    state_ = State::kJson;
    return Flow::kContinue;
  }
  const text::ScanResult hit = ScanAtStart(syntax_->between[outer_], next, at_end);
  if (hit.status == text::ScanStatus::kNone) return Flow::kError;
  if (hit.status == text::ScanStatus::kPartial) return Flow::kWait;
  Commit(sink);
  if (hit.id == 0) {  // a key
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
  if (key_.empty()) return Flow::kError;
  state_ = State::kAfterKey;
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
      if (string_value_ && !skip_value_) {  // CDATA is text, never the bare word null
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
  sink.EndCall();
  state_ = State::kDone;
  return Flow::kDone;
}

void XmlCallDecoder::Commit(CallSink& sink) {
  if (committed_) return;
  committed_ = true;
  sink.BeginCall(name_);
}

void XmlCallDecoder::StartValue(CallSink& sink) {
  type_ = ValueTypeOf(options_, name_, key_);
  skip_value_ = !keys_.insert(key_).second;  // a repeated key: the first value wins
  string_value_ = StreamsAsString(type_.type, rules_);
  value_.clear();
  state_ = syntax_->syntax->cdata ? State::kValueStart : State::kValue;
  if (skip_value_) return;
  scratch_.clear();
  writer_.Key(scratch_, key_);
  if (string_value_) string_.Start(rules_.string_trim, type_.nullable, scratch_);
  sink.Args(scratch_);
}

void XmlCallDecoder::ValueText(std::string_view text, CallSink& sink) {
  if (skip_value_ || text.empty()) return;
  if (!string_value_) {
    value_.append(text);
    return;
  }
  scratch_.clear();
  string_.Append(text, scratch_);
  if (!scratch_.empty()) sink.Args(scratch_);
}

void XmlCallDecoder::EndValue(CallSink& sink) {
  if (skip_value_) return;
  scratch_.clear();
  if (string_value_) {
    string_.End(scratch_);
  } else {
    scratch_ = TypedValue(value_, type_, rules_);
  }
  sink.Args(scratch_);
}

void XmlCallDecoder::EndCall(CallSink& sink) {
  scratch_.clear();
  writer_.Close(scratch_);
  sink.Args(scratch_);
  sink.EndCall();
  state_ = State::kDone;
}

}  // namespace crux::parse::tools::tags
